/**
 * XXPH3_64bits (seed 0) without BigInt, for the filter hot path: 64-bit values as two uint32 halves and
 * 64x64-bit products from 16-bit limbs (exact in doubles). Same algorithm as hash.ts `hash64`, which
 * stays the reference (the tests check both against RocksDB's schema vectors); inputs longer than 240
 * bytes fall back to it.
 */
import { hash64, SECRET } from "./hash.js";
import { readFixed32 } from "../util/coding.js";

// primes as (hi, lo)
const P64_1_H = 0x9e3779b1, P64_1_L = 0x85ebca87; // prettier-ignore
const P64_2_H = 0xc2b2ae3d, P64_2_L = 0x27d4eb4f; // prettier-ignore
const P64_3_H = 0x165667b1, P64_3_L = 0x9e3779f9; // prettier-ignore
const P32_1 = 0x9e3779b1;

// result registers of the 64-bit helpers
let RH = 0;
let RL = 0;

/** Full 64x64 product; RH:RL = low 64 bits, returns nothing; FH:FL = high 64 bits. */
let FH = 0;
let FL = 0;
function mulFull(ah: number, al: number, bh: number, bl: number): void {
  const a0 = al & 0xffff, a1 = al >>> 16, a2 = ah & 0xffff, a3 = ah >>> 16; // prettier-ignore
  const b0 = bl & 0xffff, b1 = bl >>> 16, b2 = bh & 0xffff, b3 = bh >>> 16; // prettier-ignore
  let v = a0 * b0;
  const r0 = v & 0xffff;
  v = ((v / 65536) | 0) + a0 * b1 + a1 * b0;
  const r1 = v & 0xffff;
  v = ((v / 65536) | 0) + a0 * b2 + a1 * b1 + a2 * b0;
  const r2 = v & 0xffff;
  v = ((v / 65536) | 0) + a0 * b3 + a1 * b2 + a2 * b1 + a3 * b0;
  const r3 = v & 0xffff;
  v = ((v / 65536) | 0) + a1 * b3 + a2 * b2 + a3 * b1;
  const r4 = v & 0xffff;
  v = ((v / 65536) | 0) + a2 * b3 + a3 * b2;
  const r5 = v & 0xffff;
  v = ((v / 65536) | 0) + a3 * b3;
  const r6 = v & 0xffff;
  const r7 = ((v / 65536) | 0) & 0xffff;
  RL = (r0 | (r1 << 16)) >>> 0;
  RH = (r2 | (r3 << 16)) >>> 0;
  FL = (r4 | (r5 << 16)) >>> 0;
  FH = (r6 | (r7 << 16)) >>> 0;
}

/** Low 64 bits of the product into RH:RL. */
function mulLo(ah: number, al: number, bh: number, bl: number): void {
  const a0 = al & 0xffff, a1 = al >>> 16, a2 = ah & 0xffff, a3 = ah >>> 16; // prettier-ignore
  const b0 = bl & 0xffff, b1 = bl >>> 16, b2 = bh & 0xffff, b3 = bh >>> 16; // prettier-ignore
  let v = a0 * b0;
  const r0 = v & 0xffff;
  v = ((v / 65536) | 0) + a0 * b1 + a1 * b0;
  const r1 = v & 0xffff;
  v = ((v / 65536) | 0) + a0 * b2 + a1 * b1 + a2 * b0;
  const r2 = v & 0xffff;
  v = ((v / 65536) | 0) + a0 * b3 + a1 * b2 + a2 * b1 + a3 * b0;
  const r3 = v & 0xffff;
  RL = (r0 | (r1 << 16)) >>> 0;
  RH = (r2 | (r3 << 16)) >>> 0;
}

/** mul128_fold64: (low 64 ^ high 64) of the product, into RH:RL. */
function fold(ah: number, al: number, bh: number, bl: number): void {
  mulFull(ah, al, bh, bl);
  RL = (RL ^ FL) >>> 0;
  RH = (RH ^ FH) >>> 0;
}

/** avalanche(h): h ^= h >> 37; h *= PRIME64_3; h ^= h >> 32 — into RH:RL. */
function avalanche(h: number, l: number): void {
  mulLo(h, (l ^ (h >>> 5)) >>> 0, P64_3_H, P64_3_L);
  RL = (RL ^ RH) >>> 0;
}

// acc accumulator (hi, lo)
let AH = 0;
let AL = 0;
function accAdd(h: number, l: number): void {
  const lo = AL + l;
  AL = lo >>> 0;
  AH = (AH + h + (lo > 0xffffffff ? 1 : 0)) >>> 0;
}

/** acc += mix16B(input + p, secret + s) */
function mix16B(input: Uint8Array, p: number, s: number): void {
  fold(
    (readFixed32(input, p + 4) ^ readFixed32(SECRET, s + 4)) >>> 0,
    (readFixed32(input, p) ^ readFixed32(SECRET, s)) >>> 0,
    (readFixed32(input, p + 12) ^ readFixed32(SECRET, s + 12)) >>> 0,
    (readFixed32(input, p + 8) ^ readFixed32(SECRET, s + 8)) >>> 0,
  );
  accAdd(RH, RL);
}

/** XXPH3_64bits(input): out[0] = low 32 bits, out[1] = high 32 bits. */
export function hash64Parts(input: Uint8Array, out: Uint32Array): void {
  const len = input.length;
  if (len <= 16) {
    if (len > 8) {
      const loH = (readFixed32(input, 4) ^ readFixed32(SECRET, 4)) >>> 0;
      const loL = (readFixed32(input, 0) ^ readFixed32(SECRET, 0)) >>> 0;
      const hiH = (readFixed32(input, len - 4) ^ readFixed32(SECRET, 12)) >>> 0;
      const hiL = (readFixed32(input, len - 8) ^ readFixed32(SECRET, 8)) >>> 0;
      AH = 0;
      AL = len;
      accAdd(loH, loL);
      accAdd(hiH, hiL);
      fold(loH, loL, hiH, hiL);
      accAdd(RH, RL);
      avalanche(AH, AL);
    } else if (len >= 4) {
      const kh = (readFixed32(input, len - 4) ^ readFixed32(SECRET, 4)) >>> 0;
      const kl = (readFixed32(input, 0) ^ readFixed32(SECRET, 0)) >>> 0;
      // (keyed ^ (keyed >> 51)) * PRIME32_1 + len
      mulLo(kh, (kl ^ (kh >>> 19)) >>> 0, 0, P32_1);
      AH = RH;
      AL = RL;
      accAdd(0, len);
      // avalanche((mix ^ (mix >> 47)) * PRIME64_2)
      mulLo(AH, (AL ^ (AH >>> 15)) >>> 0, P64_2_H, P64_2_L);
      avalanche(RH, RL);
    } else if (len > 0) {
      const combined = (input[0]! | (input[len >> 1]! << 8) | (input[len - 1]! << 16) | (len << 24)) >>> 0;
      mulLo(0, (combined ^ readFixed32(SECRET, 0)) >>> 0, P64_1_H, P64_1_L);
      avalanche(RH, RL);
    } else {
      fold(readFixed32(SECRET, 4), readFixed32(SECRET, 0), P64_2_H, P64_2_L);
    }
    out[0] = RL;
    out[1] = RH;
    return;
  }
  if (len <= 240) {
    mulLo(0, len, P64_1_H, P64_1_L);
    AH = RH;
    AL = RL;
    if (len <= 128) {
      if (len > 32) {
        if (len > 64) {
          if (len > 96) {
            mix16B(input, 48, 96);
            mix16B(input, len - 64, 112);
          }
          mix16B(input, 32, 64);
          mix16B(input, len - 48, 80);
        }
        mix16B(input, 16, 32);
        mix16B(input, len - 32, 48);
      }
      mix16B(input, 0, 0);
      mix16B(input, len - 16, 16);
      avalanche(AH, AL);
    } else {
      const nbRounds = len >>> 4;
      for (let i = 0; i < 8; i++) mix16B(input, 16 * i, 16 * i);
      avalanche(AH, AL);
      AH = RH;
      AL = RL;
      for (let i = 8; i < nbRounds; i++) mix16B(input, 16 * i, 16 * (i - 8) + 3);
      mix16B(input, len - 16, 136 - 17);
      avalanche(AH, AL);
    }
    out[0] = RL;
    out[1] = RH;
    return;
  }
  const h = hash64(input);
  out[0] = Number(h & 0xffffffffn);
  out[1] = Number(h >> 32n);
}
