/**
 * The one interval type of sampled figures, and the Wilson score interval for a sampled share. `sizes`
 * prints intervals as [low, high]; `check` prints an estimate with its bounds ({value, low, high}), built
 * from the same interval.
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
