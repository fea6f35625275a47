/**
 * Small statistics for sampled findings: a seeded PRNG (reruns give the same numbers), reservoir
 * sampling (the Wilson interval is src/util/interval.ts).
 */

import { mulberry32 } from "../util/random.js";

/** mulberry32: a tiny seeded PRNG, uniform in [0, 1). Not for cryptography. */
export const seededRandom = mulberry32;

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
