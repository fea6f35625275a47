/**
 * The Fisher–Yates helpers of src/check/stats.ts: the same random draws and the same resulting order as
 * the loops they replaced (written out here), so a seeded `check` checks the same entries as before.
 */
import { describe, expect, it } from "vitest";
import { partialShuffle, partialShuffleIndices, seededRandom, shuffle } from "../../src/check/stats.js";

/** A seeded random that counts its draws. */
function counted(seed: number): { random: () => number; draws: () => number } {
  const r = seededRandom(seed);
  let n = 0;
  return {
    random: () => {
      n++;
      return r();
    },
    draws: () => n,
  };
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

describe("shuffle", () => {
  it("matches the old backward loop (overlay_merge, overlay_below)", () => {
    for (const [seed, n] of [
      [1, 0],
      [1, 1],
      [7, 2],
      [7, 50],
      [12345, 1000],
    ] as const) {
      const ref = counted(seed);
      const order = range(n);
      for (let i = order.length - 1; i > 0; i--) {
        const j = Math.floor(ref.random() * (i + 1));
        [order[i], order[j]] = [order[j]!, order[i]!];
      }
      const got = counted(seed);
      const arr = range(n);
      expect(shuffle(arr, got.random)).toBe(arr);
      expect(arr).toEqual(order);
      expect(got.draws()).toBe(ref.draws());
      expect(got.draws()).toBe(Math.max(0, n - 1));
    }
  });
});

describe("partialShuffle", () => {
  it("matches the old forward partial loop (overlay_blocks: BlockFrame.draw, drawUnits)", () => {
    for (const [seed, m, k] of [
      [1, 10, 0],
      [1, 10, 1],
      [7, 10, 10],
      [7, 100, 7],
      [99, 1000, 300],
      [3, 20, 2.5],
    ] as const) {
      const ref = counted(seed);
      const all = range(m);
      for (let i = 0; i < k; i++) {
        const j = i + Math.floor(ref.random() * (m - i));
        [all[i], all[j]] = [all[j]!, all[i]!];
      }
      const got = counted(seed);
      const arr = range(m);
      expect(partialShuffle(arr, k, got.random)).toBe(arr);
      expect(arr).toEqual(all);
      expect(got.draws()).toBe(ref.draws());
      expect(arr.slice(0, k).sort((a, b) => a - b)).toEqual(all.slice(0, k).sort((a, b) => a - b));
    }
  });
});

describe("partialShuffleIndices", () => {
  it("gives the first k items partialShuffle leaves in 0..n-1, with the same draws", () => {
    for (const [seed, n, k] of [
      [1, 10, 0],
      [1, 10, 1],
      [2, 1, 1],
      [7, 10, 10],
      [7, 30, 3],
      [99, 1000, 300],
      [5, 5, 9],
    ] as const) {
      const ref = counted(seed);
      const arr = partialShuffle(range(n), k, ref.random);
      const got = counted(seed);
      expect(partialShuffleIndices(n, k, got.random)).toEqual(arr.slice(0, Math.min(k, n)));
      expect(got.draws()).toBe(ref.draws());
    }
  });
});
