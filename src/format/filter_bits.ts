/**
 * Filter bits and their may-contain queries (table/block_based/filter_policy.cc, util/bloom_impl.h,
 * util/ribbon_impl.h, util/ribbon_alg.h; LevelDB util/bloom.cc).
 *
 * A full filter (or one partition) ends in 5 metadata bytes; the first of them tells the kind:
 *
 *   legacy Bloom (format_version < 5):  bits [len] | num_probes (1..127) | num_lines fixed32
 *        hash h = Hash(key, 0xbc9f1d34) (RocksDB flavour); line = h % num_lines; within the
 *        cache line (len / num_lines bytes): probe bit h & (line_bits - 1), h += rotr(h, 17)
 *   FastLocalBloom ("newer Bloom"):     bits [len] | 0xff (-1) | sub-impl 0 | block_and_probes |
 *                                        2 reserved zero bytes
 *        block_and_probes: low 5 bits num_probes, top 3 bits log2(block bytes) - 6 (only 64 supported)
 *        h = Hash64(key) (XXPH3); line = FastRange32(lower32(h), len / 64); h2 = upper32(h);
 *        probes: bit h2 >>> 23 of the 512-bit line, h2 *= 0x9e3779b9
 *   Standard128Ribbon:                  solution [len] | 0xfe (-2) | seed byte | num_blocks 24-bit LE
 *        interleaved solution of 128-bit segments; see ribbonMayMatch
 *   0x00 marker: zero probes, always "may contain"; other negative markers: reserved, same.
 *   len_with_meta <= 5: empty filter, never contains.
 *
 * LevelDB-style filters (LevelDB tables and RocksDB's legacy block-based "filter." blocks) are one
 * small Bloom per 2^base_lg bytes of data offsets:
 *   filter data* | filter offsets fixed32 * n | offset-array start fixed32 | base_lg byte
 *   each filter: bits [len-1] | k (probes); bit = h % bits, h += rotr(h, 17)
 */
import { bloomHash32 } from "./hash.js";
import { hash64Parts } from "./hash_fast.js";
import { readFixed32 } from "../util/coding.js";

const H = new Uint32Array(2);

/**
 * The last key hashed for a fast-bloom query and its hash (in H): a point lookup asks every table a
 * Get consults with the same key — thousands of filters on an L0 pile-up — and hashes it once.
 */
let lastKey = new Uint8Array(64);
let lastKeyLength = -1;

/** hash64Parts(key, H), unless H already holds key's hash. */
function hashKey(key: Uint8Array): void {
  const n = key.length;
  if (n === lastKeyLength) {
    let i = 0;
    while (i < n && key[i] === lastKey[i]) i++;
    if (i === n) return;
  }
  hash64Parts(key, H);
  if (n > lastKey.length) lastKey = new Uint8Array(n * 2);
  lastKey.set(key);
  lastKeyLength = n;
}

export type FilterBitsKind = "bloom" | "fastbloom" | "ribbon" | "always-true" | "always-false";

/** What a table's filter is, from the filter block's own marker byte (not the policy name). */
export type FilterKind = "bloom" | "fastbloom" | "ribbon" | "none";

export interface FilterBits {
  kind: FilterBitsKind;
  /** Filter bytes without the 5 metadata bytes. */
  dataBytes: number;
  /** Bloom probes (bloom, fastbloom). */
  numProbes?: number;
  /** Ribbon: blocks of 128 slots and seed. */
  ribbonBlocks?: number;
  ribbonSeed?: number;
  mayMatch(key: Uint8Array): boolean;
  /**
   * mayMatch for a key whose 64-bit XXH3 (hash64Parts: `lo`, `hi`) the caller has: the kinds that hash
   * keys so (fastbloom, ribbon) have it, for a caller that asks one key of many tables' filters and
   * hashes it once.
   */
  mayMatchHash?(lo: number, hi: number): boolean;
}

const M64 = 0xffffffffffffffffn;

/** What the 5 metadata bytes say, without the filter bits (no query). */
export type FilterMetadata = Omit<FilterBits, "mayMatch">;

/**
 * Kind and geometry of a filter from its last 5 bytes (`meta`) and its total length, the same
 * decisions as decodeFilterBits: lets a table describe its filter with a 5-byte read.
 */
export function filterMetadata(meta: Uint8Array, totalLength: number): FilterMetadata {
  if (totalLength <= 5 || meta.length < 5) return { kind: "always-false", dataBytes: 0 };
  const len = totalLength - 5;
  const marker = (meta[0]! << 24) >> 24;
  const alwaysTrue: FilterMetadata = { kind: "always-true", dataBytes: len };
  if (marker === -1) {
    const numProbes = meta[2]! & 31;
    const log2BlockBytes = ((meta[2]! >> 5) & 7) + 6;
    if (
      numProbes < 1 ||
      numProbes > 30 ||
      meta[1] !== 0 ||
      meta[3] !== 0 ||
      meta[4] !== 0 ||
      log2BlockBytes !== 6
    ) {
      return alwaysTrue;
    }
    return { kind: "fastbloom", dataBytes: len, numProbes };
  }
  if (marker === -2) {
    const numBlocks = meta[2]! | (meta[3]! << 8) | (meta[4]! << 16);
    if (numBlocks < 2) return alwaysTrue;
    return { kind: "ribbon", dataBytes: len, ribbonBlocks: numBlocks, ribbonSeed: meta[1]! };
  }
  if (marker < 1) return alwaysTrue;
  const numLines = readFixed32(meta, 1);
  if (numLines * 64 !== len) {
    if (numLines === 0 || len % numLines !== 0) return alwaysTrue;
    let log2 = 0;
    while (numLines * 2 ** log2 < len) log2++;
    if (numLines * 2 ** log2 !== len) return alwaysTrue;
  }
  return { kind: "bloom", dataBytes: len, numProbes: marker };
}

/** Decode the 5 metadata bytes at the end of a full filter / partition and build its query. */
export function decodeFilterBits(data: Uint8Array): FilterBits {
  const n = data.length;
  if (n <= 5) return { kind: "always-false", dataBytes: 0, mayMatch: () => false };
  const len = n - 5;
  const marker = (data[len]! << 24) >> 24;
  const alwaysTrue = (): FilterBits => ({ kind: "always-true", dataBytes: len, mayMatch: () => true });
  if (marker < 1) {
    if (marker === -1) return fastBloom(data, len);
    if (marker === -2) return ribbon(data, len);
    return alwaysTrue();
  }
  const numProbes = marker;
  const numLines = readFixed32(data, n - 4);
  let log2Line: number;
  if (numLines * 64 === len) log2Line = 6;
  else if (numLines === 0 || len % numLines !== 0) return alwaysTrue();
  else {
    log2Line = 0;
    while (numLines * 2 ** log2Line < len) log2Line++;
    if (numLines * 2 ** log2Line !== len) return alwaysTrue();
  }
  const lineBitsMask = (1 << (log2Line + 3)) - 1;
  return {
    kind: "bloom",
    dataBytes: len,
    numProbes,
    mayMatch(key) {
      let h = bloomHash32(key, false);
      const base = (h % numLines) * 2 ** log2Line;
      const delta = ((h >>> 17) | (h << 15)) >>> 0;
      for (let i = 0; i < numProbes; i++) {
        const bitpos = h & lineBitsMask;
        if ((data[base + (bitpos >>> 3)]! & (1 << (bitpos & 7))) === 0) return false;
        h = (h + delta) >>> 0;
      }
      return true;
    },
  };
}

function fastBloom(data: Uint8Array, len: number): FilterBits {
  const n = data.length;
  const subImpl = data[n - 4]!;
  const blockAndProbes = data[n - 3]!;
  const log2BlockBytes = ((blockAndProbes >> 5) & 7) + 6;
  const numProbes = blockAndProbes & 31;
  const rest = data[n - 2]! | (data[n - 1]! << 8);
  if (numProbes < 1 || numProbes > 30 || rest !== 0 || subImpl !== 0 || log2BlockBytes !== 6) {
    return { kind: "always-true", dataBytes: len, mayMatch: () => true };
  }
  const lines = len >>> 6;
  const query = (h1: number, h2: number): boolean => {
    // FastRange32(h1, lines) = (h1 * lines) >> 32, exact in doubles while the product < 2^53
    const line =
      lines < 2097152 ? Math.floor((h1 * lines) / 4294967296) : Number((BigInt(h1) * BigInt(lines)) >> 32n);
    const base = line << 6;
    for (let i = 0; i < numProbes; i++) {
      const bitpos = h2 >>> 23;
      if ((data[base + (bitpos >>> 3)]! & (1 << (bitpos & 7))) === 0) return false;
      h2 = Math.imul(h2, 0x9e3779b9) >>> 0;
    }
    return true;
  };
  return {
    kind: "fastbloom",
    dataBytes: len,
    numProbes,
    mayMatch(key) {
      hashKey(key);
      return query(H[0]!, H[1]!);
    },
    mayMatchHash: query,
  };
}

// Standard128Ribbon constants (ribbon_impl.h StandardHasher / StandardRehasherAdapter)
const REHASH_FACTOR = 0x6193d459236a3a0dn;
const COEFF_AND_RESULT_FACTOR = 0xc28f82822b650bedn;
const COEFF_XOR64 = 0xc367844a6e52731dn;
const TO_RAW_SEED_FACTOR = 0xc78219a23eeadd03n;
const SEED_MIX_MASK = 0xf0f0f0f0f0f0f0f0n;

function parity32(x: number): number {
  x ^= x >>> 16;
  x ^= x >>> 8;
  x ^= x >>> 4;
  x &= 0xf;
  return (0x6996 >>> x) & 1;
}

function bswap32(x: number): number {
  return (((x & 0xff) << 24) | ((x & 0xff00) << 8) | ((x >>> 8) & 0xff00) | (x >>> 24)) >>> 0;
}

function ribbon(data: Uint8Array, len: number): FilterBits {
  const seed = data[len + 1]!;
  const numBlocks = data[len + 2]! | (data[len + 3]! << 8) | (data[len + 4]! << 16);
  if (numBlocks < 2) return { kind: "always-true", dataBytes: len, mayMatch: () => true };
  // SetOrdinalSeed
  let tmp = (BigInt(seed) * TO_RAW_SEED_FACTOR) & M64;
  tmp ^= (tmp & SEED_MIX_MASK) >> 4n;
  const rawSeed = tmp & 0xffffffffn;
  // InterleavedSolutionStorage::ConfigureForNumBlocks / InternalConfigure
  const numStarts = numBlocks * 128 - 127;
  let numSegments = Math.floor(len / 16);
  let upperNumColumns = Math.floor((numSegments + numBlocks - 1) / numBlocks);
  let upperStartBlock = upperNumColumns * numBlocks - numSegments;
  if (upperNumColumns > 32) {
    upperNumColumns = 32;
    upperStartBlock = 0;
    numSegments = numBlocks * 32;
  }
  const dv = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const numStartsBig = BigInt(numStarts);
  const lanes = new Uint32Array(8); // cr_left[0..3], cr_right[0..3]
  const query = (lo: number, hi: number): boolean => {
    const h64 = (BigInt(hi) << 32n) | BigInt(lo);
    const hash = ((h64 ^ rawSeed) * REHASH_FACTOR) & M64;
    const start = Number((hash * numStartsBig) >> 64n);
    const a = (hash * COEFF_AND_RESULT_FACTOR) & M64;
    const cr = ((a << 64n) ^ (a ^ COEFF_XOR64)) | 1n; // 128-bit coefficient row
    const expected = bswap32(Number(a >> 32n));
    const startBlock = Math.floor(start / 128);
    const startBit = start % 128;
    let numColumns = upperNumColumns;
    const segmentNum = startBlock * numColumns - Math.min(startBlock, upperStartBlock);
    if (startBlock < upperStartBlock) numColumns -= 1;
    const M128 = (1n << 128n) - 1n;
    const left = (cr << BigInt(startBit)) & M128;
    const right = startBit === 0 ? 0n : cr >> BigInt(128 - startBit);
    for (let j = 0; j < 4; j++) {
      lanes[j] = Number((left >> BigInt(32 * j)) & 0xffffffffn);
      lanes[4 + j] = Number((right >> BigInt(32 * j)) & 0xffffffffn);
    }
    for (let i = 0; i < numColumns; i++) {
      const s = (segmentNum + i) * 16;
      if (s + 16 > len) return true; // corrupt geometry: be safe
      let x =
        (dv.getUint32(s, true) & lanes[0]!) ^
        (dv.getUint32(s + 4, true) & lanes[1]!) ^
        (dv.getUint32(s + 8, true) & lanes[2]!) ^
        (dv.getUint32(s + 12, true) & lanes[3]!);
      if (startBit !== 0) {
        const t = (segmentNum + numColumns + i) * 16;
        if (t + 16 > len) return true;
        x ^=
          (dv.getUint32(t, true) & lanes[4]!) ^
          (dv.getUint32(t + 4, true) & lanes[5]!) ^
          (dv.getUint32(t + 8, true) & lanes[6]!) ^
          (dv.getUint32(t + 12, true) & lanes[7]!);
      }
      if (parity32(x >>> 0) !== ((expected >>> i) & 1)) return false;
    }
    return true;
  };
  return {
    kind: "ribbon",
    dataBytes: len,
    ribbonBlocks: numBlocks,
    ribbonSeed: seed,
    mayMatch(key) {
      hashKey(key);
      return query(H[0]!, H[1]!);
    },
    mayMatchHash: query,
  };
}

/** One LevelDB-format Bloom filter (LevelDB util/bloom.cc; RocksDB legacy block-based filter). */
export function leveldbBloomMayMatch(filter: Uint8Array, key: Uint8Array, leveldbHash: boolean): boolean {
  const len = filter.length;
  if (len < 2) return false;
  const bits = (len - 1) * 8;
  const k = filter[len - 1]!;
  if (k > 30) return true;
  let h = bloomHash32(key, leveldbHash);
  const delta = ((h >>> 17) | (h << 15)) >>> 0;
  for (let j = 0; j < k; j++) {
    const bitpos = h % bits;
    if ((filter[bitpos >>> 3]! & (1 << (bitpos & 7))) === 0) return false;
    h = (h + delta) >>> 0;
  }
  return true;
}

/** A LevelDB-style filter block: per data-block-offset range filters. */
export interface BlockBasedFilter {
  baseLg: number;
  numFilters: number;
  /** Probes (k byte) of the first non-empty filter. */
  numProbes?: number;
  /** Filters holding at least one key (the others are empty ranges). */
  nonEmptyFilters: number;
  /** Total bytes of the per-range filters. */
  dataBytes: number;
  mayMatch(dataBlockOffset: number, key: Uint8Array): boolean;
}

export function decodeBlockBasedFilter(
  contents: Uint8Array,
  leveldbHash: boolean,
): BlockBasedFilter | undefined {
  const n = contents.length;
  if (n < 5) return undefined;
  const baseLg = contents[n - 1]!;
  const arrayStart = readFixed32(contents, n - 5);
  if (arrayStart > n - 5) return undefined;
  const numFilters = Math.floor((n - 5 - arrayStart) / 4);
  const off = (i: number) => readFixed32(contents, arrayStart + 4 * i);
  let numProbes: number | undefined;
  let nonEmptyFilters = 0;
  for (let i = 0; i < numFilters; i++) {
    const start = off(i);
    const limit = i + 1 < numFilters ? off(i + 1) : arrayStart;
    if (limit > start && limit <= arrayStart) {
      numProbes ??= contents[limit - 1];
      nonEmptyFilters++;
    }
  }
  return {
    baseLg,
    numFilters,
    numProbes,
    nonEmptyFilters,
    dataBytes: arrayStart,
    mayMatch(dataBlockOffset, key) {
      const index = Math.floor(dataBlockOffset / 2 ** baseLg);
      if (index < numFilters) {
        const start = off(index);
        // the limit of the last filter is the start of the offset array
        const limit = index + 1 < numFilters ? off(index + 1) : arrayStart;
        if (start <= limit && limit <= arrayStart) {
          return leveldbBloomMayMatch(contents.subarray(start, limit), key, leveldbHash);
        } else if (start === limit) return false;
      }
      return true;
    },
  };
}

// ------------------------------------------------------------------ geometry and false-positive rates

/** A filter's kind and geometry as a table reports it (FilterInfo in filter_reader.ts). */
export interface FilterGeometry {
  kind: FilterKind;
  /** The marker said something this reader treats as "always may contain" or "never contains". */
  degenerate?: "always-true" | "always-false";
  /** Stored filter bits per key: filter bytes * 8 / keys added (num.filter_entries or num.entries). */
  bitsPerKey?: number;
  numProbes?: number;
  /** Ribbon: 128-slot blocks of the (first) filter. */
  ribbonBlocks?: number;
  /** Expected false-positive rate from the filter's own geometry (RocksDB's estimators). */
  estimatedFpRate?: number;
}

/** Kind, bits per key and expected FP rate of a full filter (or partitions) of `totalBytes` over `keys`. */
export function describeFilterBits(bits: FilterMetadata, keys: number, totalBytes: number): FilterGeometry {
  return setFilterGeometry({} as FilterGeometry, bits, keys, totalBytes);
}

/**
 * describeFilterBits' fields assigned to `out` in their order (kind, degenerate, bitsPerKey, numProbes,
 * ribbonBlocks, estimatedFpRate): a reader describing thousands of tables builds each description in
 * place rather than merging objects.
 */
export function setFilterGeometry<T extends FilterGeometry>(
  out: T,
  bits: FilterMetadata,
  keys: number,
  totalBytes: number,
): T {
  const kind: FilterKind =
    bits.kind === "always-true" || bits.kind === "always-false"
      ? "none"
      : (bits.kind as Exclude<FilterBitsKind, "always-true" | "always-false">);
  out.kind = kind;
  if (kind === "none") out.degenerate = bits.kind as "always-true" | "always-false";
  if (keys > 0) out.bitsPerKey = (Math.max(0, totalBytes - 5) * 8) / keys;
  if (bits.numProbes !== undefined) out.numProbes = bits.numProbes;
  if (bits.ribbonBlocks !== undefined) out.ribbonBlocks = bits.ribbonBlocks;
  if (keys > 0 && out.bitsPerKey) out.estimatedFpRate = estimateFpRate(bits, out.bitsPerKey, keys);
  return out;
}

/** Bits per key and FP rate of a block-based filter over `keys` keys (bits over all per-range filters). */
export function setBlockBasedBitsPerKey(info: FilterGeometry, f: BlockBasedFilter, keys: number): void {
  // each per-range filter ends in its k byte
  info.bitsPerKey = ((f.dataBytes - f.nonEmptyFilters) * 8) / keys;
  if (info.numProbes) info.estimatedFpRate = standardFpRate(info.bitsPerKey, info.numProbes);
}

// util/bloom_impl.h BloomMath
function standardFpRate(bitsPerKey: number, probes: number): number {
  return Math.pow(1 - Math.exp(-probes / bitsPerKey), probes);
}
function cacheLocalFpRate(bitsPerKey: number, probes: number, lineBits: number): number {
  if (bitsPerKey <= 0) return 1;
  const kpl = lineBits / bitsPerKey;
  const sd = Math.sqrt(kpl);
  return (standardFpRate(lineBits / (kpl + sd), probes) + standardFpRate(lineBits / (kpl - sd), probes)) / 2;
}
function fingerprintFpRate(keys: number, bits: number): number {
  const base = keys * Math.pow(0.5, bits);
  return base > 0.0001 ? 1 - Math.exp(-base) : base - base * base * 0.5;
}
function indep(a: number, b: number): number {
  return a + b - a * b;
}

/** FastLocalBloomImpl::ChooseNumProbes: probes RocksDB's Bloom filter uses at `millibits` per key. */
function chooseNumProbes(millibits: number): number {
  const steps = [2080, 3580, 5100, 6640, 8300, 10070, 11720, 14001, 16050, 18300, 22001, 25501];
  for (let i = 0; i < steps.length; i++) if (millibits <= steps[i]!) return i + 1;
  return millibits > 50000 ? 24 : Math.floor((millibits - 1) / 2000) - 1;
}

/**
 * The false-positive rate a filter policy configured with `bitsPerKey` aims at: RocksDB's (fast, cache-
 * local) Bloom filter at that many bits per key. Ribbon's bits_per_key is "Bloom-equivalent": it builds
 * the smallest Ribbon filter reaching this rate, about 30% fewer stored bits per key.
 */
export function bloomEquivalentFpRate(bitsPerKey: number): number {
  return cacheLocalFpRate(bitsPerKey, chooseNumProbes(Math.round(bitsPerKey * 1000)), 512);
}

function estimateFpRate(bits: FilterMetadata, bitsPerKey: number, keys: number): number | undefined {
  if (bits.kind === "fastbloom" && bits.numProbes) {
    return indep(cacheLocalFpRate(bitsPerKey, bits.numProbes, 512), fingerprintFpRate(keys, 64));
  }
  if (bits.kind === "bloom" && bits.numProbes) {
    const f = cacheLocalFpRate(bitsPerKey, bits.numProbes, 512) + 0.1 / (bitsPerKey * 0.75 + 22);
    return indep(f, fingerprintFpRate(keys, 32));
  }
  if (bits.kind === "ribbon" && bits.ribbonBlocks) {
    // InterleavedSolutionStorage::ExpectedFpRate with the filter's own geometry
    const numBlocks = bits.ribbonBlocks;
    const numSegments = Math.floor(bits.dataBytes / 16);
    let upper = Math.floor((numSegments + numBlocks - 1) / numBlocks);
    let upperStart = upper * numBlocks - numSegments;
    if (upper > 32) {
      upper = 32;
      upperStart = 0;
    }
    const numStarts = numBlocks * 128 - 127;
    const lower = (upperStart * 128) / numStarts;
    const fp = lower * Math.pow(0.5, upper - 1) + (1 - lower) * Math.pow(0.5, upper);
    return indep(fp, fingerprintFpRate(keys, 64));
  }
  return undefined;
}
