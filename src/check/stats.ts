/**
 * Small statistics for sampled findings: a seeded PRNG (reruns give the same numbers), reservoir
 * sampling, and the Wilson score interval for a sampled share.
 */

import { mulberry32 } from "../util/random.js";

/** mulberry32: a tiny seeded PRNG, uniform in [0, 1). Not for cryptography. */
export const seededRandom = mulberry32;

/**
 * Wilson score interval for `successes` out of `n` at the given z (1.96 ≈ 95%). Returns the share
 * bounds in [0, 1]; n = 0 gives [0, 1].
 */
export function wilsonInterval(successes: number, n: number, z = 1.96): { low: number; high: number } {
  if (n <= 0) return { low: 0, high: 1 };
  const p = successes / n;
  const z2 = z * z;
  const denom = 1 + z2 / n;
  const centre = (p + z2 / (2 * n)) / denom;
  const half = (z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / denom;
  return { low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}

/**
 * Reservoir of at most `capacity` items drawn uniformly from a stream (Algorithm R). `offer` returns
 * the slot the item goes to, or -1 when it is not kept, so callers copy only what is kept.
 */
export class Reservoir<T> {
  readonly items: T[] = [];
  seen = 0;
  constructor(
    readonly capacity: number,
    private readonly random: () => number,
  ) {}
  slotFor(): number {
    this.seen++;
    if (this.items.length < this.capacity) return this.items.length;
    const j = Math.floor(this.random() * this.seen);
    return j < this.capacity ? j : -1;
  }
  put(slot: number, item: T): void {
    this.items[slot] = item;
  }
}
