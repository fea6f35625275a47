/**
 * The key hashes RocksDB and LevelDB filters use.
 *
 * - hash64 = XXPH3_64bits(key), seed 0 (util/hash.cc Hash64 -> util/xxph3.h): the *preview* XXH3 of
 *   xxHash 0.7.2 that RocksDB froze for FastLocalBloom and Ribbon filters, with RocksDB's change for
 *   empty input. It differs from the final XXH3 on some lengths, so it is ported here, not borrowed.
 * - bloomHash32 = util/hash.cc Hash(key, 0xbc9f1d34), a MurmurHash1 variant. RocksDB sign-extends the
 *   last 1-3 bytes (int8), LevelDB (util/hash.cc) zero-extends them (uint8): `leveldb` picks that.
 */

const M64 = 0xffffffffffffffffn;
const P32_1 = 0x9e3779b1n;
const P32_2 = 0x85ebca77n;
const P32_3 = 0xc2b2ae3dn;
const P64_1 = 0x9e3779b185ebca87n;
const P64_2 = 0xc2b2ae3d27d4eb4fn;
const P64_3 = 0x165667b19e3779f9n;
const P64_4 = 0x85ebca77c2b2ae63n;
const P64_5 = 0x27d4eb2f165667c5n;

/** XXH3's default 192-byte secret (kSecret in xxh3.h / xxph3.h); hash_fast.ts reads it too. */
// prettier-ignore
export const SECRET = Buffer.from([
  0xb8, 0xfe, 0x6c, 0x39, 0x23, 0xa4, 0x4b, 0xbe, 0x7c, 0x01, 0x81, 0x2c, 0xf7, 0x21, 0xad, 0x1c,
  0xde, 0xd4, 0x6d, 0xe9, 0x83, 0x90, 0x97, 0xdb, 0x72, 0x40, 0xa4, 0xa4, 0xb7, 0xb3, 0x67, 0x1f,
  0xcb, 0x79, 0xe6, 0x4e, 0xcc, 0xc0, 0xe5, 0x78, 0x82, 0x5a, 0xd0, 0x7d, 0xcc, 0xff, 0x72, 0x21,
  0xb8, 0x08, 0x46, 0x74, 0xf7, 0x43, 0x24, 0x8e, 0xe0, 0x35, 0x90, 0xe6, 0x81, 0x3a, 0x26, 0x4c,
  0x3c, 0x28, 0x52, 0xbb, 0x91, 0xc3, 0x00, 0xcb, 0x88, 0xd0, 0x65, 0x8b, 0x1b, 0x53, 0x2e, 0xa3,
  0x71, 0x64, 0x48, 0x97, 0xa2, 0x0d, 0xf9, 0x4e, 0x38, 0x19, 0xef, 0x46, 0xa9, 0xde, 0xac, 0xd8,
  0xa8, 0xfa, 0x76, 0x3f, 0xe3, 0x9c, 0x34, 0x3f, 0xf9, 0xdc, 0xbb, 0xc7, 0xc7, 0x0b, 0x4f, 0x1d,
  0x8a, 0x51, 0xe0, 0x4b, 0xcd, 0xb4, 0x59, 0x31, 0xc8, 0x9f, 0x7e, 0xc9, 0xd9, 0x78, 0x73, 0x64,
  0xea, 0xc5, 0xac, 0x83, 0x34, 0xd3, 0xeb, 0xc3, 0xc5, 0x81, 0xa0, 0xff, 0xfa, 0x13, 0x63, 0xeb,
  0x17, 0x0d, 0xdd, 0x51, 0xb7, 0xf0, 0xda, 0x49, 0xd3, 0x16, 0x55, 0x26, 0x29, 0xd4, 0x68, 0x9e,
  0x2b, 0x16, 0xbe, 0x58, 0x7d, 0x47, 0xa1, 0xfc, 0x8f, 0xf8, 0xb8, 0xd1, 0x7a, 0xd0, 0x31, 0xce,
  0x45, 0xcb, 0x3a, 0x8f, 0x95, 0x16, 0x04, 0x28, 0xaf, 0xd7, 0xfb, 0xca, 0xbb, 0x4b, 0x40, 0x7e,
]);
const SECRET_SIZE = 192;

function le64(b: Uint8Array, p: number): bigint {
  const lo = (b[p]! | (b[p + 1]! << 8) | (b[p + 2]! << 16) | (b[p + 3]! << 24)) >>> 0;
  const hi = (b[p + 4]! | (b[p + 5]! << 8) | (b[p + 6]! << 16) | (b[p + 7]! << 24)) >>> 0;
  return (BigInt(hi) << 32n) | BigInt(lo);
}
function le32(b: Uint8Array, p: number): bigint {
  return BigInt((b[p]! | (b[p + 1]! << 8) | (b[p + 2]! << 16) | (b[p + 3]! << 24)) >>> 0);
}
function mul128fold64(a: bigint, b: bigint): bigint {
  const p = a * b;
  return (p & M64) ^ (p >> 64n);
}
function avalanche(h: bigint): bigint {
  h ^= h >> 37n;
  h = (h * P64_3) & M64;
  return h ^ (h >> 32n);
}
function mix16B(input: Uint8Array, p: number, s: number): bigint {
  return mul128fold64(le64(input, p) ^ le64(SECRET, s), le64(input, p + 8) ^ le64(SECRET, s + 8));
}

const SEED_ZERO_EMPTY = mul128fold64(le64(SECRET, 0), P64_2);

/** XXPH3_64bits(input) with seed 0, as RocksDB's Hash64 / GetSliceHash64. */
export function hash64(input: Uint8Array): bigint {
  const len = input.length;
  if (len <= 16) {
    if (len > 8) {
      const lo = le64(input, 0) ^ le64(SECRET, 0);
      const hi = le64(input, len - 8) ^ le64(SECRET, 8);
      return avalanche((BigInt(len) + lo + hi + mul128fold64(lo, hi)) & M64);
    }
    if (len >= 4) {
      const in64 = le32(input, 0) | (le32(input, len - 4) << 32n);
      const keyed = in64 ^ le64(SECRET, 0);
      const mix64 = (BigInt(len) + (keyed ^ (keyed >> 51n)) * P32_1) & M64;
      return avalanche(((mix64 ^ (mix64 >> 47n)) * P64_2) & M64);
    }
    if (len > 0) {
      const combined = (input[0]! | (input[len >> 1]! << 8) | (input[len - 1]! << 16) | (len << 24)) >>> 0;
      const keyed = BigInt(combined) ^ le32(SECRET, 0);
      return avalanche((keyed * P64_1) & M64);
    }
    return SEED_ZERO_EMPTY;
  }
  if (len <= 128) {
    let acc = (BigInt(len) * P64_1) & M64;
    if (len > 32) {
      if (len > 64) {
        if (len > 96) {
          acc += mix16B(input, 48, 96);
          acc += mix16B(input, len - 64, 112);
        }
        acc += mix16B(input, 32, 64);
        acc += mix16B(input, len - 48, 80);
      }
      acc += mix16B(input, 16, 32);
      acc += mix16B(input, len - 32, 48);
    }
    acc += mix16B(input, 0, 0);
    acc += mix16B(input, len - 16, 16);
    return avalanche(acc & M64);
  }
  if (len <= 240) {
    let acc = (BigInt(len) * P64_1) & M64;
    const nbRounds = Math.floor(len / 16);
    for (let i = 0; i < 8; i++) acc += mix16B(input, 16 * i, 16 * i);
    acc = avalanche(acc & M64);
    for (let i = 8; i < nbRounds; i++) acc += mix16B(input, 16 * i, 16 * (i - 8) + 3);
    acc += mix16B(input, len - 16, 136 - 17);
    return avalanche(acc & M64);
  }
  return hashLong(input);
}

function accumulate512(acc: bigint[], input: Uint8Array, p: number, s: number): void {
  for (let i = 0; i < 8; i++) {
    const dataVal = le64(input, p + 8 * i);
    const dataKey = dataVal ^ le64(SECRET, s + 8 * i);
    acc[i] = (acc[i]! + dataVal + (dataKey & 0xffffffffn) * (dataKey >> 32n)) & M64;
  }
}

function scramble(acc: bigint[], s: number): void {
  for (let i = 0; i < 8; i++) {
    let a = acc[i]!;
    a ^= a >> 47n;
    a ^= le64(SECRET, s + 8 * i);
    acc[i] = (a * P32_1) & M64;
  }
}

function hashLong(input: Uint8Array): bigint {
  const len = input.length;
  const acc = [P32_3, P64_1, P64_2, P64_3, P64_4, P32_2, P64_5, P32_1];
  const nbRounds = (SECRET_SIZE - 64) / 8;
  const blockLen = 64 * nbRounds;
  const nbBlocks = Math.floor(len / blockLen);
  for (let n = 0; n < nbBlocks; n++) {
    for (let k = 0; k < nbRounds; k++) accumulate512(acc, input, n * blockLen + k * 64, k * 8);
    scramble(acc, SECRET_SIZE - 64);
  }
  const nbStripes = Math.floor((len - blockLen * nbBlocks) / 64);
  for (let k = 0; k < nbStripes; k++) accumulate512(acc, input, nbBlocks * blockLen + k * 64, k * 8);
  if (len & 63) accumulate512(acc, input, len - 64, SECRET_SIZE - 64 - 7);
  let result = (BigInt(len) * P64_1) & M64;
  for (let i = 0; i < 4; i++) {
    result += mul128fold64(
      acc[2 * i]! ^ le64(SECRET, 11 + 16 * i),
      acc[2 * i + 1]! ^ le64(SECRET, 11 + 16 * i + 8),
    );
  }
  return avalanche(result & M64);
}

/** util/hash.cc Hash(data, n, seed) (RocksDB: tail bytes sign-extended; LevelDB: zero-extended). */
export function murmurHash32(data: Uint8Array, seed: number, leveldb: boolean): number {
  const m = 0xc6a4a793;
  const n = data.length;
  let h = (seed ^ Math.imul(n, m)) >>> 0;
  let p = 0;
  while (p + 4 <= n) {
    const w = (data[p]! | (data[p + 1]! << 8) | (data[p + 2]! << 16) | (data[p + 3]! << 24)) >>> 0;
    p += 4;
    h = (h + w) >>> 0;
    h = Math.imul(h, m) >>> 0;
    h = (h ^ (h >>> 16)) >>> 0;
  }
  const rest = n - p;
  const byte = (i: number) => {
    const b = data[p + i]!;
    return leveldb ? b : (b << 24) >> 24; // int8 sign extension
  };
  if (rest >= 3) h = (h + (byte(2) << 16)) >>> 0;
  if (rest >= 2) h = (h + (byte(1) << 8)) >>> 0;
  if (rest >= 1) {
    h = (h + byte(0)) >>> 0;
    h = Math.imul(h, m) >>> 0;
    h = (h ^ (h >>> 24)) >>> 0;
  }
  return h;
}

export function bloomHash32(key: Uint8Array, leveldb: boolean): number {
  return murmurHash32(key, 0xbc9f1d34, leveldb);
}
