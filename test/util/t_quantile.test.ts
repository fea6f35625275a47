/**
 * Student's t quantile (src/util/interval.ts tQuantile), the one both `sizes` (totals and means) and
 * `check` (the placement overlay's block-sample interval) use: at 95% and small df the tabulated values
 * (the expansion it replaced gave 9.71 at df 1, and check's own copy 7.16, against 12.71), beyond them
 * the Cornish–Fisher expansion, and no interval (Infinity) without a degree of freedom.
 */
import { describe, expect, it } from "vitest";
import { meanOf, zFor } from "../../src/sizes/intervals.js";
import { tQuantile } from "../../src/util/interval.js";

/** Two-sided 95% Student t quantiles (the 0.975 quantile), from any statistics table. */
const TABLE: [df: number, t: number][] = [
  [1, 12.706],
  [2, 4.303],
  [5, 2.571],
  [30, 2.042],
];

describe("tQuantile", () => {
  it("gives the tabulated 95% quantile at small df, for z = 1.96 and for zFor(0.95)", () => {
    for (const [df, t] of TABLE) {
      expect(Math.abs(tQuantile(df) - t)).toBeLessThan(0.001);
      expect(Math.abs(tQuantile(df, zFor(0.95)) - t)).toBeLessThan(0.001);
    }
    expect(Math.abs(tQuantile(3) - 3.182)).toBeLessThan(0.001);
    expect(Math.abs(tQuantile(10) - 2.228)).toBeLessThan(0.001);
  });

  it("beyond 30 df the expansion, close to the truth; infinite df: z", () => {
    expect(Math.abs(tQuantile(31) - 2.0395)).toBeLessThan(0.001);
    expect(Math.abs(tQuantile(60) - 2.0003)).toBeLessThan(0.001);
    expect(tQuantile(Infinity)).toBe(1.96);
    // the quantile falls as df grows, across the table's end too
    for (let df = 1; df < 40; df++) expect(tQuantile(df + 1)).toBeLessThan(tQuantile(df));
  });

  it("no degree of freedom: Infinity (no interval)", () => {
    expect(tQuantile(0)).toBe(Infinity);
    expect(tQuantile(-1)).toBe(Infinity);
    expect(tQuantile(NaN)).toBe(Infinity);
  });

  it("other confidences keep the expansion (99% at 40 df: 2.704)", () => {
    expect(Math.abs(tQuantile(40, zFor(0.99)) - 2.704)).toBeLessThan(0.002);
    expect(tQuantile(5, zFor(0.99))).toBeGreaterThan(tQuantile(5));
  });

  it("a mean of two draws gets the 1-df interval (sizes' t intervals use it)", () => {
    // mean 1, s² = 2, se = 1: half-width t(1) = 12.706
    const { mean, interval } = meanOf([0, 2], zFor(0.95));
    expect(mean).toBe(1);
    expect(interval[0]).toBe(0);
    expect(Math.abs(interval[1] - 13.706)).toBeLessThan(0.001);
  });
});
