/**
 * Small statistics for sampled findings: a seeded PRNG (reruns give the same numbers), reservoir
 * sampling, Fisher–Yates shuffles (the Wilson interval and Student's t are src/util/interval.ts).
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

/**
 * Shuffles `arr` in place into a uniform order (Fisher–Yates from the back: for i = n−1 down to 1, one
 * draw j = ⌊random() · (i + 1)⌋ and a swap of i and j). Seeded runs depend on this exact sequence of
 * draws: changing it changes which entries a seed checks. Returns `arr`.
 */
export function shuffle<T>(arr: T[], random: () => number): T[] {
  for (let i = arr.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [arr[i], arr[j]] = [arr[j]!, arr[i]!];
  }
  return arr;
}

/**
 * A partial Fisher–Yates from the front: for i = 0 to k−1, one draw j = i + ⌊random() · (n − i)⌋ and a
 * swap of i and j, so `arr`'s first k items are a uniform sample of all n in a uniform order (the rest
 * stay behind in no particular order). k draws instead of a whole shuffle's n − 1; same sequence of
 * draws as ever, as seeded runs depend on it. Returns `arr`.
 */
export function partialShuffle<T>(arr: T[], k: number, random: () => number): T[] {
  const n = arr.length;
  for (let i = 0; i < k && i < n; i++) {
    const j = i + Math.floor(random() * (n - i));
    [arr[i], arr[j]] = [arr[j]!, arr[i]!];
  }
  return arr;
}

/**
 * The first k items partialShuffle would leave in an array of 0, 1, ..., n − 1, with the same draws,
 * without the array: the positions it swapped are kept in a map (k draws touch at most 2k of them).
 * For a few of many, as one entry of each of thousands of drawn blocks (check/overlay_blocks.ts).
 */
export function partialShuffleIndices(n: number, k: number, random: () => number): number[] {
  let moved: Map<number, number> | undefined;
  const out: number[] = [];
  for (let i = 0; i < k && i < n; i++) {
    const j = i + Math.floor(random() * (n - i));
    const atI = moved?.get(i) ?? i;
    const atJ = moved?.get(j) ?? j;
    // position i is never drawn again (later draws are past it): only j's new item is kept, and
    // only for a draw to come
    if (i + 1 < k) (moved ??= new Map()).set(j, atI);
    out.push(atJ);
  }
  return out;
}
