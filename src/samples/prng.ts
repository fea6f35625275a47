/**
 * A small seeded PRNG for the sample generator: xoshiro128** seeded through splitmix32 from a string.
 * Deterministic across platforms and Node versions (32-bit integer arithmetic only); never
 * Math.random.
 */
import { lowerBound } from "../util/lower_bound.js";

function splitmix32(state: { s: number }): number {
  state.s = (state.s + 0x9e3779b9) | 0;
  let z = state.s;
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
  return (z ^ (z >>> 16)) >>> 0;
}

/** FNV-1a over the UTF-8 bytes of a seed string. */
function hashSeed(seed: string): number {
  let h = 0x811c9dc5;
  for (const b of Buffer.from(seed, "utf8")) h = Math.imul(h ^ b, 0x01000193);
  return h >>> 0;
}

export class Prng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  /** Seed from a string; the same string always gives the same sequence. */
  constructor(seed: string) {
    const st = { s: hashSeed(seed) };
    this.a = splitmix32(st);
    this.b = splitmix32(st);
    this.c = splitmix32(st);
    this.d = splitmix32(st);
    if ((this.a | this.b | this.c | this.d) === 0) this.a = 1;
  }

  /** An independent stream derived from this one's seed and a label (stable when other streams change). */
  static derive(seed: string, label: string): Prng {
    return new Prng(`${seed}/${label}`);
  }

  /** Next uniformly distributed unsigned 32-bit integer. */
  u32(): number {
    const result = Math.imul(rotl(Math.imul(this.b, 5), 7), 9) >>> 0;
    const t = this.b << 9;
    this.c ^= this.a;
    this.d ^= this.b;
    this.b ^= this.c;
    this.a ^= this.d;
    this.c ^= t;
    this.d = rotl(this.d, 11);
    return result;
  }

  /** Uniform float in [0, 1) with 53 random bits. */
  float(): number {
    const hi = this.u32() >>> 5; // 27 bits
    const lo = this.u32() >>> 6; // 26 bits
    return (hi * 67108864 + lo) / 9007199254740992;
  }

  /** Uniform integer in [lo, hi] (inclusive). */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.float() * (hi - lo + 1));
  }

  /** True with probability p. */
  chance(p: number): boolean {
    return this.float() < p;
  }

  /** Integer log-uniformly distributed in [lo, hi] (lo ≥ 1): many small, a long tail. */
  logUniform(lo: number, hi: number): number {
    const v = Math.exp(Math.log(lo) + this.float() * (Math.log(hi + 1) - Math.log(lo)));
    return Math.min(hi, Math.max(lo, Math.floor(v)));
  }

  /** n random bytes. */
  bytes(n: number): Buffer {
    const out = Buffer.alloc(n);
    let i = 0;
    while (i < n) {
      let x = this.u32();
      for (let k = 0; k < 4 && i < n; k++, i++) {
        out[i] = x & 0xff;
        x >>>= 8;
      }
    }
    return out;
  }

  /** One element, uniformly. */
  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError("pick from an empty list");
    return items[Math.floor(this.float() * items.length)]!;
  }

  /** Fisher-Yates shuffle in place. */
  shuffle<T>(items: T[]): T[] {
    for (let i = items.length - 1; i > 0; i--) {
      const j = Math.floor(this.float() * (i + 1));
      [items[i], items[j]] = [items[j]!, items[i]!];
    }
    return items;
  }
}

function rotl(x: number, k: number): number {
  return ((x << k) | (x >>> (32 - k))) >>> 0;
}

/**
 * Sampler for ranks 0..n-1 with P(rank k) ∝ 1/(k+1)^s (Zipf): a few items very popular, a long tail.
 */
export class Zipf {
  private readonly cdf: Float64Array;

  constructor(n: number, s: number) {
    this.cdf = new Float64Array(n);
    let acc = 0;
    for (let k = 0; k < n; k++) {
      acc += 1 / Math.pow(k + 1, s);
      this.cdf[k] = acc;
    }
    for (let k = 0; k < n; k++) this.cdf[k]! /= acc;
  }

  sample(rng: Prng): number {
    const u = rng.float();
    const cdf = this.cdf;
    // the first rank whose cumulative share reaches u; the last rank when rounding left cdf[n-1] < u
    return lowerBound(cdf.length - 1, (k) => cdf[k]! < u);
  }
}
