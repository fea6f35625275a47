/**
 * The ratio estimator behind check's shadowed share (overlay.ts ratioInterval, overlay_blocks.ts
 * unitRatio) and sizes' sampled means (intervals.ts), once in util/interval.ts: its value and its
 * linearised standard error against the textbook formula worked out by hand, its edges, and the
 * overlay's interval taking Student's t (it took the normal 1.96 whatever the number of draws).
 */
import { describe, expect, it } from "vitest";
import { ratioEstimate, tQuantile } from "../../src/util/interval.js";
import { ratioInterval } from "../../src/check/overlay.js";

describe("ratioEstimate", () => {
  it("r = Σs / Σw and se = √(Σ(s − r·w)² / (n(n−1)·w̄²)), by hand", () => {
    // clusters of 2, 4 and 6 units holding 1, 1 and 3: r = 5/12; w̄ = 4
    // residuals 1 − 10/12 = 1/6, 1 − 20/12 = −2/3, 3 − 30/12 = 1/2: Σ² = 1/36 + 16/36 + 9/36 = 26/36
    const { r, se, n } = ratioEstimate([1, 1, 3], [2, 4, 6]);
    expect(n).toBe(3);
    expect(r).toBeCloseTo(5 / 12, 12);
    expect(se).toBeCloseTo(Math.sqrt(26 / 36 / (3 * 2 * 16)), 12);
  });

  it("no weight: r 0; fewer than two clusters: no standard error", () => {
    expect(ratioEstimate([], [])).toEqual({ r: 0, se: Infinity, n: 0 });
    expect(ratioEstimate([0, 0], [0, 0]).r).toBe(0);
    expect(ratioEstimate([3], [4])).toEqual({ r: 0.75, se: Infinity, n: 1 });
  });
});

describe("check's ratio interval", () => {
  it("is a Student-t interval on n − 1 degrees of freedom", () => {
    // ten blocks of 10 entries, two of the draws shadowing: r 0.2, se √(160 / 9,000)
    const draws = [1, 0, 0, 0, 0, 0, 0, 0, 0, 1].map((y) => ({ y, w: 10 }));
    const { r, se } = ratioEstimate(
      draws.map((d) => d.y * d.w),
      draws.map((d) => d.w),
    );
    expect(r).toBeCloseTo(0.2, 12);
    expect(se).toBeCloseTo(Math.sqrt(160 / 9000), 12);
    const got = ratioInterval(draws);
    expect(got.share).toBeCloseTo(0.2, 12);
    expect(tQuantile(9)).toBeCloseTo(2.2622, 4);
    expect(got.low).toBe(0);
    expect(got.high).toBeCloseTo(0.2 + tQuantile(9) * se, 12);
    // the normal quantile's interval, as before, ended lower: 0.461 against 0.502
    expect(got.high).toBeGreaterThan(0.2 + 1.96 * se + 0.03);
  });

  it("none or one draw: the whole of [0, 1]", () => {
    expect(ratioInterval([])).toEqual({ share: 0, low: 0, high: 1 });
    expect(ratioInterval([{ y: 1, w: 5 }])).toEqual({ share: 1, low: 0, high: 1 });
  });
});
