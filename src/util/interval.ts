/**
 * The one interval type of sampled figures, the Wilson score interval for a sampled share, the ratio
 * estimator of a share or mean from sampled clusters, and Student's t quantile for the t intervals of
 * sampled totals, means and shares. `sizes` prints intervals
 * as [low, high]; `check` prints an estimate with its bounds ({value, low, high}), built from the same
 * interval.
 */

/** A confidence interval [low, high]. */
export type Interval = [low: number, high: number];

/**
 * Wilson score interval for a share `p` observed over `n` draws at the given z (1.96 ≈ 95%): bounds in
 * [0, 1]; n = 0 gives [0, 1]. `n` may be an effective sample size (not a whole number).
 */
export function wilson(p: number, n: number, z = 1.96): Interval {
  if (n <= 0) return [0, 1];
  const z2 = z * z;
  const denom = 1 + z2 / n;
  const center = (p + z2 / (2 * n)) / denom;
  const half = (z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / denom;
  return [Math.max(0, center - half), Math.min(1, center + half)];
}

/** The normal quantile of a two-sided 95% interval (the 0.975 quantile). */
const Z95 = 1.959963984540054;

/**
 * Student's t at 95% (two-sided: the 0.975 quantile) for 1 to 30 degrees of freedom. Tabulated because
 * the Cornish–Fisher expansion is poor below ~30 degrees of freedom (df 1: 9.71 against 12.71, df 2:
 * 4.17 against 4.30): an interval from a handful of blocks would be narrower than it honestly is.
 */
const T95 = [
  12.7062047, 4.3026527, 3.1824463, 2.7764451, 2.5705818, 2.4469119, 2.3646243, 2.3060041, 2.2621572,
  2.2281389, 2.2009852, 2.1788128, 2.1603687, 2.1447867, 2.1314495, 2.1199053, 2.1098156, 2.100922, 2.0930241,
  2.0859634, 2.0796138, 2.0738731, 2.0686576, 2.0638986, 2.0595386, 2.0555294, 2.0518305, 2.0484071,
  2.0452296, 2.0422725,
];

/**
 * Student's t quantile of a two-sided interval for `df` degrees of freedom, at the confidence whose
 * two-sided normal quantile is `z` (1.96 ≈ 95%, as wilson). At 95% (z within 1e-4 of 1.959964, so 1.96
 * too) and df ≤ 30: the table above (a fractional df takes its floor: the wider interval); else the
 * Cornish–Fisher expansion around z (within ~1e-4 of the truth above 30 df; at other confidences it is
 * all there is, and under-states t at small df). df < 1 (or NaN): Infinity, meaning no interval (no
 * variance to go on); df infinite: z.
 */
export function tQuantile(df: number, z = 1.96): number {
  if (!(df >= 1)) return Infinity;
  if (!Number.isFinite(df) || df > 1e6) return z;
  if (df < T95.length + 1 && Math.abs(z - Z95) < 1e-4) return T95[Math.floor(df) - 1]!;
  const z3 = z ** 3;
  const z5 = z ** 5;
  const z7 = z ** 7;
  return (
    z +
    (z3 + z) / (4 * df) +
    (5 * z5 + 16 * z3 + 3 * z) / (96 * df * df) +
    (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / (384 * df * df * df)
  );
}

/**
 * The ratio estimator of a share or mean from n sampled clusters (data blocks): cluster i holds
 * `weights[i]` units (entries, records) whose values sum to `sums[i]`; r = Σ sums / Σ weights, with the
 * usual linearised standard error √(Σ (sums_i − r·weights_i)² / (n (n − 1) w̄²)), w̄ = Σ weights / n.
 * With no weight r is 0; below two clusters the error is Infinity (no variance to go on).
 */
export function ratioEstimate(
  sums: readonly number[],
  weights: readonly number[],
): { r: number; se: number; n: number } {
  const n = sums.length;
  let sw = 0;
  let sy = 0;
  for (let i = 0; i < n; i++) {
    sw += weights[i]!;
    sy += sums[i]!;
  }
  const r = sw > 0 ? sy / sw : 0;
  if (n < 2) return { r, se: Infinity, n };
  const wbar = sw / n;
  let ss = 0;
  for (let i = 0; i < n; i++) ss += (sums[i]! - r * weights[i]!) ** 2;
  return { r, se: Math.sqrt(ss / (n - 1) / (n * wbar * wbar)), n };
}
