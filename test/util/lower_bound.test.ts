/** lowerBound: the one binary search (src/util/lower_bound.ts), against a linear scan. */
import { describe, expect, it } from "vitest";
import { lowerBound } from "../../src/util/lower_bound.js";
import { mulberry32 } from "../../src/util/random.js";

/** The first i in [0, n) where `before(i)` is false, by looking at every index. */
const linear = (n: number, before: (i: number) => boolean): number => {
  for (let i = 0; i < n; i++) if (!before(i)) return i;
  return n;
};

describe("lowerBound", () => {
  it("gives the first index where the predicate stops holding, n when it never does", () => {
    const a = [1, 3, 3, 3, 7, 9];
    expect(lowerBound(a.length, (i) => a[i]! < 3)).toBe(1); // the first of equal entries
    expect(lowerBound(a.length, (i) => a[i]! <= 3)).toBe(4); // past them (an upper bound)
    expect(lowerBound(a.length, (i) => a[i]! < 0)).toBe(0);
    expect(lowerBound(a.length, (i) => a[i]! < 10)).toBe(a.length);
    expect(lowerBound(0, () => true)).toBe(0);
    expect(lowerBound(1, () => true)).toBe(1);
    expect(lowerBound(1, () => false)).toBe(0);
  });

  it("asks only about indexes in [0, n), O(log n) times", () => {
    for (const n of [1, 2, 3, 7, 8, 1000, 1 << 20]) {
      for (const cut of [0, 1, n >> 1, n - 1, n]) {
        const asked: number[] = [];
        const at = lowerBound(n, (i) => {
          asked.push(i);
          return i < cut;
        });
        expect(at).toBe(cut);
        for (const i of asked) expect(i >= 0 && i < n).toBe(true);
        expect(asked.length).toBeLessThanOrEqual(Math.ceil(Math.log2(n + 1)));
      }
    }
  });

  it("agrees with a linear scan on sorted arrays with repeats", () => {
    const rnd = mulberry32(7);
    for (let round = 0; round < 500; round++) {
      const n = Math.floor(rnd() * 40);
      const a = Array.from({ length: n }, () => Math.floor(rnd() * 10)).sort((x, y) => x - y);
      const t = Math.floor(rnd() * 12) - 1;
      expect(lowerBound(n, (i) => a[i]! < t)).toBe(linear(n, (i) => a[i]! < t));
      expect(lowerBound(n, (i) => a[i]! <= t)).toBe(linear(n, (i) => a[i]! <= t));
    }
  });
});
