/**
 * Size distributions in fixed memory, mergeable across workers.
 *
 * Sizes below 64 KiB are counted exactly (one counter per byte size), so percentiles there are exact;
 * larger sizes go to 1/256-octave bins, so a percentile above
 * 64 KiB is a bin bound, less than 0.4% off, and flagged `approximate`. Mean, min and max are exact.
 * Percentiles are nearest-rank (the same definition as eth/code.ts percentileNearestRank).
 */
import type { HistogramBucket, SizeSummary } from "./types.js";

const EXACT = 65536;
const SUB = 256;

export interface SizeDistData {
  count: number;
  sum: number;
  min: number;
  max: number;
  exact: Float64Array | null;
  /** [bin id, count] pairs for sizes ≥ EXACT. */
  large: [number, number][];
}

/** Bins cover (2^e · (1 + k/256), 2^e · (1 + (k+1)/256)] inside the octave (2^e, 2^(e+1)]. */
function binOf(size: number): number {
  let e = Math.ceil(Math.log2(size)) - 1;
  if (2 ** e >= size) e--;
  if (2 ** (e + 1) < size) e++;
  const k = Math.min(SUB - 1, Math.max(0, Math.ceil((size / 2 ** e - 1) * SUB) - 1));
  return e * SUB + k;
}

/** Largest size in a bin. */
function binHigh(bin: number): number {
  const e = Math.floor(bin / SUB);
  const k = bin % SUB;
  return Math.floor(2 ** e * (1 + (k + 1) / SUB));
}

/** log2 bucket (le) of every size in a bin. */
function binBucket(bin: number): number {
  return 2 ** (Math.floor(bin / SUB) + 1);
}

/** log2 bucket upper bound for a size: 0 → 0, else the smallest power of two ≥ size. */
export function log2Bucket(size: number): number {
  if (size <= 0) return 0;
  let le = 1;
  while (le < size) le *= 2;
  return le;
}

/**
 * A histogram's buckets from its first non-empty one to its last (interior empty buckets kept, as the
 * renderings draw them); empty when every bucket is.
 */
export function nonEmptySpan(h: readonly HistogramBucket[]): HistogramBucket[] {
  const first = h.findIndex((b) => b.count > 0);
  if (first < 0) return [];
  let last = h.length - 1;
  while (last > first && h[last]!.count === 0) last--;
  return h.slice(first, last + 1);
}

export class SizeDist {
  count = 0;
  sum = 0;
  min = Number.POSITIVE_INFINITY;
  max = 0;
  private exact: Float64Array | null = null;
  private large = new Map<number, number>();

  add(size: number, n = 1): void {
    this.count += n;
    this.sum += size * n;
    if (size < this.min) this.min = size;
    if (size > this.max) this.max = size;
    if (size < EXACT) {
      if (this.exact === null) this.exact = new Float64Array(EXACT);
      this.exact[size]! += n;
    } else {
      const b = binOf(size);
      this.large.set(b, (this.large.get(b) ?? 0) + n);
    }
  }

  merge(o: SizeDist | SizeDistData): void {
    const d = o instanceof SizeDist ? o.data() : o;
    if (d.count === 0) return;
    this.count += d.count;
    this.sum += d.sum;
    if (d.min < this.min) this.min = d.min;
    if (d.max > this.max) this.max = d.max;
    if (d.exact) {
      if (this.exact === null) this.exact = new Float64Array(EXACT);
      const a = this.exact;
      const b = d.exact;
      // no size above the maximum was counted: the rest of the 64 Ki counters are zero
      const n = Math.min(EXACT, d.max + 1);
      for (let i = 0; i < n; i++) if (b[i] !== 0) a[i]! += b[i]!;
    }
    for (const [bin, c] of d.large) this.large.set(bin, (this.large.get(bin) ?? 0) + c);
  }

  /** Serializable form (for postMessage; `exact` can be transferred). */
  data(): SizeDistData {
    return {
      count: this.count,
      sum: this.sum,
      min: this.min,
      max: this.max,
      exact: this.exact,
      large: [...this.large],
    };
  }

  static from(d: SizeDistData): SizeDist {
    const s = new SizeDist();
    s.merge(d);
    return s;
  }

  get approximate(): boolean {
    return this.large.size > 0;
  }

  /** Nearest-rank percentile, p in 0..100. */
  percentile(p: number): number {
    if (this.count === 0) return 0;
    const rank = Math.max(1, Math.ceil((p / 100) * this.count));
    let seen = 0;
    if (this.exact) {
      const a = this.exact;
      const n = Math.min(EXACT, this.max + 1);
      for (let i = 0; i < n; i++) {
        seen += a[i]!;
        if (seen >= rank) return i;
      }
    }
    const bins = [...this.large].sort((x, y) => x[0] - y[0]);
    for (const [bin, c] of bins) {
      seen += c;
      if (seen >= rank) return Math.min(this.max, Math.max(this.min, binHigh(bin)));
    }
    return this.max;
  }

  /** Non-cumulative log2 buckets from 0 up to the bucket of the maximum. */
  histogram(): HistogramBucket[] {
    if (this.count === 0) return [];
    const counts = new Map<number, number>();
    const bump = (le: number, c: number) => counts.set(le, (counts.get(le) ?? 0) + c);
    if (this.exact) {
      const a = this.exact;
      let le = 0;
      const n = Math.min(EXACT, this.max + 1);
      for (let i = 0; i < n; i++) {
        if (i > le) le = le === 0 ? 1 : le * 2;
        if (a[i] !== 0) bump(le, a[i]!);
      }
    }
    for (const [bin, c] of this.large) bump(binBucket(bin), c);
    const out: HistogramBucket[] = [];
    const top = log2Bucket(this.max);
    for (let le = 0; le <= top; le = le === 0 ? 1 : le * 2) out.push({ le, count: counts.get(le) ?? 0 });
    return out;
  }

  summary(): SizeSummary {
    const s: SizeSummary = {
      count: this.count,
      totalBytes: this.sum,
      min: this.count ? this.min : 0,
      max: this.max,
      mean: this.count ? this.sum / this.count : 0,
      p50: this.percentile(50),
      p90: this.percentile(90),
      p99: this.percentile(99),
      histogram: this.histogram(),
    };
    if (this.approximate) s.approximate = true;
    return s;
  }
}

/**
 * Sizes counted one at a time for a SizeDist, folded into it at the end (fold()): below 64 KiB only
 * a counter per byte size is bumped, where SizeDist.add also keeps its count, sum and bounds at every
 * size (the full scan adds a key and a value size per live record). The folded SizeDist is the same as
 * if every size had been added to it: its sums are of integers, exact in any order.
 */
export class SizeTally {
  private readonly counts = new Float64Array(EXACT);

  constructor(private readonly into: SizeDist) {}

  add(size: number): void {
    if (size < EXACT) this.counts[size]! += 1;
    else this.into.add(size);
  }

  /** Add the counted sizes to the SizeDist, and start counting afresh. */
  fold(): void {
    const c = this.counts;
    for (let i = 0; i < EXACT; i++) {
      if (c[i] !== 0) {
        this.into.add(i, c[i]);
        c[i] = 0;
      }
    }
  }
}

/**
 * Per-block compression ratio (physical / logical) in 1% bins up to 4.0 (blocks can exceed 1 when a
 * codec expands incompressible data or a block is stored raw with its trailer).
 */
export class RatioDist {
  bins = new Float64Array(401);
  count = 0;
  min = Number.POSITIVE_INFINITY;
  max = 0;

  add(ratio: number): void {
    if (!Number.isFinite(ratio)) return;
    this.count++;
    if (ratio < this.min) this.min = ratio;
    if (ratio > this.max) this.max = ratio;
    this.bins[Math.min(400, Math.max(0, Math.round(ratio * 100)))]! += 1;
  }

  merge(o: { bins: Float64Array; count: number; min: number; max: number }): void {
    for (let i = 0; i < 401; i++) this.bins[i]! += o.bins[i]!;
    this.count += o.count;
    if (o.count) {
      this.min = Math.min(this.min, o.min);
      this.max = Math.max(this.max, o.max);
    }
  }

  summary(): { p50: number; min: number; max: number; histogram: { le: number; count: number }[] } {
    if (this.count === 0) return { p50: 0, min: 0, max: 0, histogram: [] };
    const rank = Math.ceil(this.count / 2);
    let seen = 0;
    let p50 = 0;
    for (let i = 0; i < 401; i++) {
      seen += this.bins[i]!;
      if (seen >= rank) {
        p50 = i / 100;
        break;
      }
    }
    // tenths for the histogram
    const hist: { le: number; count: number }[] = [];
    const top = Math.min(40, Math.ceil(this.max * 10));
    for (let t = 1; t <= Math.max(1, top); t++) {
      let c = 0;
      for (let i = (t - 1) * 10 + (t === 1 ? 0 : 1); i <= t * 10 && i < 401; i++) c += this.bins[i]!;
      hist.push({ le: t / 10, count: c });
    }
    return { p50, min: this.min, max: this.max, histogram: hist };
  }
}
