/**
 * maxOverlap (the most L0 key ranges one key falls in) against counting, for every range's start,
 * the ranges that hold it — the most ranges holding a key are reached at some range's start. Ranges
 * are closed, so ties between one range's end and another's start count both; keys are hex strings.
 */
import { describe, expect, it } from "vitest";
import { maxOverlap } from "../../src/analysis/layout.js";

type Range = { smallestKey: string; largestKey: string };

function counted(ranges: Range[]): number {
  let most = 0;
  for (const r of ranges) {
    const k = r.smallestKey;
    const holding = ranges.filter((o) => o.smallestKey <= k && k <= o.largestKey).length;
    most = Math.max(most, holding);
  }
  return most;
}

/** Deterministic ranges over few distinct keys, so that starts and ends often tie. */
function ranges(seed: number, n: number, keys: number): Range[] {
  let x = seed;
  const next = () => (x = (Math.imul(x, 1103515245) + 12345) >>> 0) % keys;
  const hex = (k: number) => k.toString(16).padStart(4, "0");
  return Array.from({ length: n }, () => {
    const a = next();
    const b = next();
    return { smallestKey: hex(Math.min(a, b)), largestKey: hex(Math.max(a, b)) };
  });
}

describe("maxOverlap", () => {
  it("is the most ranges holding one key, ties between an end and a start included", () => {
    expect(maxOverlap([])).toBe(0);
    expect(maxOverlap([{ smallestKey: "00", largestKey: "00" }])).toBe(1);
    // [00,10] and [10,20] share the key 10; [21,30] holds none of theirs
    const touching = [
      { smallestKey: "10", largestKey: "20" },
      { smallestKey: "00", largestKey: "10" },
      { smallestKey: "21", largestKey: "30" },
    ];
    expect(maxOverlap(touching)).toBe(2);
    for (let seed = 1; seed <= 200; seed++) {
      const rs = ranges(seed, 1 + (seed % 40), 4 + (seed % 30));
      expect(maxOverlap(rs), `seed ${seed}`).toBe(counted(rs));
    }
  });
});
