/**
 * The placement overlay's block sample (stratified two-stage cluster sampling; the method is in
 * overlay.ts's header): the frame of data blocks above the bottom that may shadow anything, cut into
 * strata by table, distinct blocks drawn uniformly within each with a uniform subsample of entries in
 * each block, the size of the second stage from the first, and the estimate with its interval. The
 * drawn blocks are read in overlay_draw.ts.
 */
import type { SstFileModel } from "../datadir/model.js";
import { ratioEstimate, tQuantile, wilson } from "../util/interval.js";
import { partialShuffle } from "./stats.js";

/** One entry drawn above the bottom, to be looked up below. */
export interface Sampled {
  key: Buffer;
  seqno: number;
  level: number;
  file: SstFileModel;
  /** Block sampling: entries in the block the key was drawn from (its weight). */
  weight: number;
  /** One entry a block (blockSample): that block's stored size, which the draws' totals are ratios to. */
  storedBytes?: number;
}

/**
 * A file of the frame: its data blocks and point entries (table properties; a table without them,
 * LevelDB's, has its blocks counted from its index and its entries unknown).
 */
export interface FrameFile {
  f: SstFileModel;
  level: number;
  blocks: number;
  entries: number | undefined;
  /** Its data blocks' offsets and sizes, pairwise (read at the first draw in it). */
  handles?: number[];
}

/**
 * The entries drawn in one block: their user keys back to back (key k is bytes[start[k], start[k +
 * 1])), in key order, and their sequence numbers. The bytes are a stretch of a buffer the draws of
 * many blocks share (overlay_draw.ts: KeyArena), the offsets and sequence numbers plain arrays: a
 * block drawn for one entry (thousands of them in a second stage) made a buffer and two typed arrays,
 * which all lived until its lookups, and each young-generation collection copied them.
 */
export interface UnitKeys {
  n: number;
  bytes: Buffer;
  start: number[];
  seqno: number[];
  /** The largest of them. */
  maxSeqno: number;
}

const NO_KEYS: UnitKeys = {
  n: 0,
  bytes: Buffer.alloc(0),
  start: [0],
  seqno: [],
  maxSeqno: 0,
};

/** Key k of `keys` (a view, no copy). */
export const keyAt = (keys: UnitKeys, k: number): Buffer =>
  keys.bytes.subarray(keys.start[k]!, keys.start[k + 1]!);

/** A drawn data block: its entries, and the entries checked in it with what the lookups found. */
export interface BlockUnit {
  /** The level and file the block belongs to, and its stratum (StratifiedFrame). */
  level: number;
  file: SstFileModel;
  stratum: number;
  /** The entries drawn in it (let go once looked up). */
  keys: UnitKeys;
  /** Entries in the block. */
  entries: number;
  /** Its size as stored (its handle's). */
  storedBytes: number;
  /** Entries checked (resolved lookups). */
  checked: number;
  /** Checked entries that shadow an older version below. */
  shadowing: number;
  /** Bytes (internal key + value) of the older versions they shadow. */
  shadowedBytes: number;
  /** What its lookups below cost (secondStage's cost model; counts, so a seed gives the same design). */
  cost: UnitCost;
}

/**
 * What one drawn block's lookups below cost, counted as they ran: key-table visits, data blocks read
 * (merge passes and point lookups), and the data blocks point lookups alone would have read for the
 * same visits: one for each key a table held, and for each it did not hold the table's filter's
 * false-positive rate (every visit without a whole-key filter).
 */
export interface UnitCost {
  visits: number;
  reads: number;
  pointReads: number;
}

/** Let a unit's keys go (its figures stay). */
export function releaseKeys(u: BlockUnit): void {
  u.keys = NO_KEYS;
}

/** Fewest keys of one drawn block in one table that a merge pass looks up together (overlay_merge.ts). */
export const MIN_MERGE_KEYS = 4;

/** Fewest blocks the first stage draws: fewer leave the between-block variance too loosely known. */
export const MIN_FIRST_STAGE_BLOCKS = 20;
/**
 * Below this many first-stage blocks on each side (some entry shadowing / some not), the blocks'
 * variance says little (a share shadowed in a few blocks, or in none): the entries are then assumed as
 * alike within a block as possible, and the second stage draws one entry per block, as many blocks as
 * the fixed sample has entries.
 */
const MIN_INFORMATIVE_BLOCKS = 8;
/**
 * What visiting one table for one key costs beyond the data blocks it reads, in data block reads: a
 * filter probe and a binary search of the table's kept index (~1 µs) against a block's read, check
 * and parse (~10-25 µs for 4-32 KiB blocks from the page cache; session 47).
 */
const VISIT_COST = 0.1;

/** The frame's data blocks, numbered across its files, drawn without replacement. */
export class BlockFrame {
  readonly total: number;
  private readonly drawn = new Set<number>();

  constructor(readonly files: FrameFile[]) {
    this.total = files.reduce((a, x) => a + x.blocks, 0);
  }

  get remaining(): number {
    return this.total - this.drawn.size;
  }

  /** `n` blocks not drawn before, uniformly (global block numbers, sorted). */
  draw(n: number, random: () => number): number[] {
    n = Math.min(n, this.remaining);
    const out: number[] = [];
    if (n * 2 < this.remaining) {
      while (out.length < n) {
        const b = Math.floor(random() * this.total);
        if (this.drawn.has(b)) continue;
        this.drawn.add(b);
        out.push(b);
      }
    } else {
      // most of what is left: a partial Fisher–Yates over the blocks not drawn yet
      const left: number[] = [];
      for (let b = 0; b < this.total; b++) if (!this.drawn.has(b)) left.push(b);
      partialShuffle(left, n, random);
      for (let i = 0; i < n; i++) {
        this.drawn.add(left[i]!);
        out.push(left[i]!);
      }
    }
    return out.sort((a, b) => a - b);
  }
}

/**
 * Fewest first-stage blocks a stratum is given: two, the fewest its variance is measured from. The
 * finer the strata, the more of the changes across the key space they take out of the variance: on
 * the bench's LevelDB store runs of at least 4 left ρ ~0.15 and a second stage of ~540 blocks, runs
 * of 2 an effective 4,000 from the first stage alone (2,025 -> 972 reads below; 40 of 40 covered).
 */
const MIN_STRATUM_BLOCKS = 2;

/**
 * The frame cut into strata, each drawn on its own (proportional allocation): runs of neighbouring
 * tables (the frame's order: level by level, each level's tables in key order, L0's by age) of at
 * least MIN_STRATUM_BLOCKS of the first stage's blocks each, a table that large being a stratum of
 * its own, a level's last short run joined to the run before it. How much of a table shadows follows
 * where its keys sit against the levels below (a key range compacted down lately shadows less), which
 * changes little from a table to its neighbour: within such runs the blocks vary less, and the
 * estimate needs fewer of them for the same interval. One pool of every small table (sessions 37-46)
 * mixed them all: on a LevelDB store of 62 tables above, ~2 first-stage blocks each, the blocks of
 * that one stratum looked as unlike as whole tables are (ρ ~0.5), so the second stage drew ~3,800
 * blocks for one entry each.
 */
export class StratifiedFrame {
  readonly strata: BlockFrame[];
  /** Each stratum's share of the frame's entries. */
  readonly weights: number[];
  readonly total: number;
  /** Whether every file of the frame carries its entry count (else the totals are estimated). */
  readonly entriesKnown: boolean;

  constructor(files: FrameFile[], firstBlocks: number) {
    const total = files.reduce((a, x) => a + x.blocks, 0);
    const draws = (g: readonly FrameFile[]) => (firstBlocks * g.reduce((a, x) => a + x.blocks, 0)) / total;
    const runs: FrameFile[][] = [];
    let run: FrameFile[] = [];
    const close = () => {
      if (run.length === 0) return;
      const last = runs[runs.length - 1];
      // a short run joins the run before it, when that one is of its level
      if (draws(run) < MIN_STRATUM_BLOCKS && last && last[0]!.level === run[0]!.level) last.push(...run);
      else runs.push(run);
      run = [];
    };
    for (const x of files) {
      if (run.length > 0 && run[0]!.level !== x.level) close();
      run.push(x);
      if (draws(run) >= MIN_STRATUM_BLOCKS) {
        runs.push(run);
        run = [];
      }
    }
    close();
    // short runs left alone (a level of few blocks) join the largest run
    const own = runs.filter((g) => draws(g) >= MIN_STRATUM_BLOCKS);
    const short = runs.filter((g) => draws(g) < MIN_STRATUM_BLOCKS).flat();
    if (short.length > 0) {
      if (own.length > 0 && draws(short) < MIN_STRATUM_BLOCKS) {
        const largest = own.reduce((a, g) => (draws(g) > draws(a) ? g : a));
        largest.push(...short);
      } else own.push(short);
    }
    this.strata = own.map((g) => new BlockFrame(g));
    this.total = total;
    this.entriesKnown = files.every((x) => x.entries !== undefined);
    // without entry counts the strata weigh their blocks until drawn blocks tell (weighByDrawn)
    const size = (x: FrameFile) => (this.entriesKnown ? x.entries! : x.blocks);
    const all = files.reduce((a, x) => a + size(x), 0);
    this.weights = this.strata.map((st) => st.files.reduce((a, x) => a + size(x), 0) / all);
  }

  /**
   * Frames without entry counts: each stratum weighs its blocks × the mean entries of its drawn
   * blocks (its blocks alone while none is drawn), as the second stage's design needs.
   */
  weighByDrawn(units: readonly BlockUnit[]): void {
    const sums = this.strata.map(() => ({ entries: 0, n: 0 }));
    for (const u of units) {
      const s = sums[u.stratum];
      if (s) {
        s.entries += u.entries;
        s.n++;
      }
    }
    const sizes = this.strata.map((st, h) => st.total * (sums[h]!.n > 0 ? sums[h]!.entries / sums[h]!.n : 1));
    const all = sizes.reduce((a, x) => a + x, 0);
    if (all > 0) sizes.forEach((x, h) => (this.weights[h] = x / all));
  }

  get remaining(): number {
    return this.strata.reduce((a, st) => a + st.remaining, 0);
  }

  /**
   * `n` blocks shared among the strata in proportion to their blocks (largest remainder), at least
   * `least` each, never more than a stratum has left.
   */
  allocate(n: number, least = 0): number[] {
    const exact = this.strata.map((st) => (n * st.total) / this.total);
    const out = exact.map(Math.floor);
    let left = n - out.reduce((a, k) => a + k, 0);
    const order = exact.map((e, h) => h).sort((a, b) => exact[b]! - out[b]! - (exact[a]! - out[a]!));
    for (const h of order) {
      if (left <= 0) break;
      out[h]!++;
      left--;
    }
    return out.map((k, h) => Math.min(this.strata[h]!.remaining, Math.max(k, least)));
  }
}

/** The share's ratio estimate over the units and its standard error (between-block, "ultimate cluster"). */
export function unitRatio(units: readonly BlockUnit[]): { share: number; se: number } {
  const used = units.filter((u) => u.checked > 0);
  // each block's entries weigh its checked entries' shadowing share (util/interval.ts ratioEstimate)
  const { r, se } = ratioEstimate(
    used.map((u) => (u.entries * u.shadowing) / u.checked),
    used.map((u) => u.entries),
  );
  return { share: r, se };
}

/**
 * The stratified estimate: Σ weight × the stratum's ratio estimate, its standard error from the
 * strata's (Σ weight² × se²), and the degrees of freedom (blocks − strata). When some stratum holds
 * fewer than two checked blocks (tables that could not be read), the strata are pooled.
 */
export function stratifiedRatio(
  units: readonly BlockUnit[],
  weights: readonly number[],
): { share: number; se: number; df: number } {
  const used = units.filter((u) => u.checked > 0);
  const by = weights.map(() => [] as BlockUnit[]);
  for (const u of used) by[u.stratum]?.push(u);
  if (weights.length > 1 && by.every((g, h) => g.length >= 2 || weights[h] === 0)) {
    let share = 0;
    let variance = 0;
    by.forEach((g, h) => {
      if (g.length === 0) return;
      const r = unitRatio(g);
      share += weights[h]! * r.share;
      variance += weights[h]! ** 2 * r.se ** 2;
    });
    return { share, se: Math.sqrt(variance), df: used.length - by.filter((g) => g.length > 0).length };
  }
  const r = unitRatio(used);
  return { share: r.share, se: r.se, df: used.length - 1 };
}

/** Whether the units' variance is informative (enough blocks on each side; see MIN_INFORMATIVE_BLOCKS). */
function informative(units: readonly BlockUnit[]): boolean {
  const used = units.filter((u) => u.checked > 0);
  const some = used.filter((u) => u.shadowing > 0).length;
  const notAll = used.filter((u) => u.shadowing < u.checked).length;
  return Math.min(some, notAll) >= MIN_INFORMATIVE_BLOCKS;
}

/**
 * The second stage, from the first stage's blocks alone (decided once and never looked at again: no
 * stopping on the data): as many more blocks as bring the sample's effective size (entries checked
 * over the design effect, measured from the first stage's between-block variance) up to `sample`,
 * the precision a uniform sample of `sample` entries gives at the observed share, with `perBlock`
 * entries checked in each (Infinity: all) chosen by cheapestPerBlock from the intra-block correlation
 * ρ measured with it and the first stage's costs. `meanEntries`: the frame's entries per data block.
 */
export function secondStage(
  units: readonly BlockUnit[],
  weights: readonly number[],
  sample: number,
  meanEntries: number,
): { blocks: number; perBlock: number } {
  const used = units.filter((u) => u.checked > 0);
  const n = used.length;
  const checked = used.reduce((a, u) => a + u.checked, 0);
  if (n === 0) return { blocks: sample, perBlock: 1 };
  let effective: number;
  let rho: number;
  const { share, se } = stratifiedRatio(used, weights);
  if (!informative(used) || !(se > 0) || !Number.isFinite(se)) {
    // nothing to measure the variance by: each block counts as one entry (ρ = 1)
    effective = n;
    rho = 1;
  } else {
    effective = Math.min(checked, (share * (1 - share)) / (se * se));
    const kbar = checked / n;
    rho = kbar > 1 ? Math.min(1, Math.max(0, (checked / effective - 1) / (kbar - 1))) : 1;
  }
  const need = sample - effective;
  if (need <= 0) return { blocks: 0, perBlock: Infinity };
  const perBlock = cheapestPerBlock(used, rho, meanEntries);
  const k = Math.max(1, Math.min(perBlock, meanEntries));
  return { blocks: Math.ceil((need * (1 + (k - 1) * rho)) / k), perBlock };
}

/**
 * The entries to check in each second-stage block for the fewest reads at a given precision, from
 * what the first stage's blocks (every entry of each) cost. k entries of a block stand for k / (1 +
 * (k − 1)ρ) drawn one by one, and cost the block's read above plus their lookups below: k × the point
 * lookups' reads per entry for a few keys, at most what the first stage read below per block (merge
 * passes over the block's span, overlay_merge.ts). The textbook optimum sqrt(cost ratio × (1 − ρ) / ρ)
 * is this with fixed costs; here an entry's cost falls once a pass carries it. E.g. ρ 0.19, 0.34
 * blocks and 1.3 table visits an entry by point lookups, 15 reads below a block by passes (a LevelDB
 * store of 4 KiB blocks): 3 entries a block, where one fixed ratio of 200 for every store gave 29;
 * entries alike within their blocks (ρ near 1): one; blocks as alike as entries (ρ near 0): all of
 * them. Returns Infinity for every entry.
 */
function cheapestPerBlock(used: readonly BlockUnit[], rho: number, meanEntries: number): number {
  let checked = 0;
  let visits = 0;
  let reads = 0;
  let pointReads = 0;
  for (const u of used) {
    checked += u.checked;
    visits += u.cost.visits;
    reads += u.cost.reads;
    pointReads += u.cost.pointReads;
  }
  // per entry by point lookups; per block as the first stage ran (its passes visit a table once)
  const perEntry = (pointReads + VISIT_COST * visits) / checked;
  const perBlock = reads / used.length + (VISIT_COST * visits) / checked;
  const below = (k: number) => (k < MIN_MERGE_KEYS ? k * perEntry : Math.min(perBlock, k * perEntry));
  const cost = (k: number) => ((1 + (k - 1) * rho) / k) * (1 + below(k));
  const whole = Math.max(1, meanEntries);
  let best = whole;
  let bestCost = cost(whole);
  for (let k = 1; k < whole; k++) {
    const c = cost(k);
    if (c < bestCost) {
      best = k;
      bestCost = c;
    }
  }
  return best >= meanEntries ? Infinity : best;
}

/**
 * The shadowed share of the frame's entries with a 95% interval: the stratified ratio estimate
 * (stratifiedRatio) with the t interval of its between-block variance; never narrower than the
 * Wilson interval of the entries checked (as if they were drawn one by one), nor, when every block
 * showed the same share (no variance to measure), than the Wilson interval of the blocks.
 */
export function unitInterval(
  units: readonly BlockUnit[],
  weights: readonly number[],
): {
  share: number;
  low: number;
  high: number;
  checked: number;
  shadowing: number;
} {
  const used = units.filter((u) => u.checked > 0);
  const checked = used.reduce((a, u) => a + u.checked, 0);
  const shadowing = used.reduce((a, u) => a + u.shadowing, 0);
  const { share, se, df } = stratifiedRatio(used, weights);
  // df < 1 (one block, or none per stratum): tQuantile is Infinity, no t interval, only Wilson's below
  const half = tQuantile(df) * se;
  let low = Number.isFinite(half) ? Math.max(0, share - half) : 0;
  let high = Number.isFinite(half) ? Math.min(1, share + half) : 1;
  const [wLow, wHigh] = wilson(share, checked);
  low = Math.min(low, wLow);
  high = Math.max(high, wHigh);
  if (!(se > 0) || !informative(used)) {
    const [bLow, bHigh] = wilson(share, used.length);
    low = Math.min(low, bLow);
    high = Math.max(high, bHigh);
  }
  return { share, low, high, checked, shadowing };
}

/** An estimated total and its standard error. */
export interface TotalEstimate {
  value: number;
  se: number;
}

/**
 * A total over a stratum of `blocks` data blocks of `bytes` stored bytes in all, from `n` of them
 * drawn without replacement: the ratio estimator to the blocks' stored sizes, which every block's
 * index handle gives (util/interval.ts ratioEstimate): bytes × Σ y / Σ x, its error bytes × the
 * ratio's × √(1 − n / blocks). A table's last block is short and holds fewer entries, and with
 * entries of one size every full block holds the same number: a mean per block missed the short
 * ones in most draws (an estimate above the count with no width at all, session 46), where the size
 * carries them. The residual variance is never taken below 1/12, the rounding of a whole count:
 * sizes that predict every drawn block exactly still leave that much unknown of each block not
 * drawn. Every block drawn: exact.
 */
export function ratioTotal(
  y: readonly number[],
  x: readonly number[],
  blocks: number,
  bytes: number,
): TotalEstimate {
  const n = y.length;
  if (n >= blocks) return { value: y.reduce((a, v) => a + v, 0), se: 0 };
  const { r, se } = ratioEstimate(y, x);
  const xbar = x.reduce((a, v) => a + v, 0) / n;
  // ratioEstimate's error is √(s² / n) / x̄: at least the rounding's
  const least = n > 0 && xbar > 0 ? Math.sqrt(1 / 12 / n) / xbar : Infinity;
  return { value: bytes * r, se: bytes * Math.max(se, least) * Math.sqrt(1 - n / blocks) };
}

/** The stored bytes of a stratum's data blocks (its files' index handles, walked for the draws). */
export function storedBytesOf(st: BlockFrame): number {
  let bytes = 0;
  for (const x of st.files) {
    const h = x.handles ?? [];
    for (let i = 1; i < h.length; i += 2) bytes += h[i]!;
  }
  return bytes;
}

/**
 * For a frame without entry counts (LevelDB's tables): the frame's entries and its shadowed entries
 * estimated from the drawn blocks alone, in each stratum by their ratio to the blocks' stored sizes
 * (ratioTotal; a block's shadowed entries are its entries × the share of its checked entries that
 * shadow), summed over the strata with their variances, and the degrees of freedom (blocks −
 * strata). When some stratum holds fewer than two checked blocks the strata are pooled. The totals
 * carry the entries' own uncertainty, which a count from properties does not have. Data blocks are
 * never empty (a table builder cuts a block after an entry), so the drawn blocks are the units
 * checked; every file of such a frame has its handles (its blocks were counted from them).
 */
export function unitTotals(
  units: readonly BlockUnit[],
  frame: StratifiedFrame,
): { entries: TotalEstimate; shadowed: TotalEstimate; df: number } {
  const used = units.filter((u) => u.checked > 0);
  const entries = (u: BlockUnit) => u.entries;
  const shadowed = (u: BlockUnit) => (u.entries * u.shadowing) / u.checked;
  const by = frame.strata.map(() => [] as BlockUnit[]);
  for (const u of used) by[u.stratum]?.push(u);
  const groups: [BlockUnit[], number, number][] =
    frame.strata.length > 1 && by.every((g, h) => g.length >= 2 || g.length === frame.strata[h]!.total)
      ? by.map((g, h) => [g, frame.strata[h]!.total, storedBytesOf(frame.strata[h]!)])
      : [[used, frame.total, frame.strata.reduce((a, st) => a + storedBytesOf(st), 0)]];
  const sum = (pick: (u: BlockUnit) => number) => {
    let value = 0;
    let variance = 0;
    for (const [g, blocks, bytes] of groups) {
      const t = ratioTotal(
        g.map(pick),
        g.map((u) => u.storedBytes),
        blocks,
        bytes,
      );
      value += t.value;
      variance += t.se ** 2;
    }
    return { value, se: Math.sqrt(variance) };
  };
  const df = used.length - groups.filter(([g]) => g.length > 0).length;
  return { entries: sum(entries), shadowed: sum(shadowed), df };
}

/** An estimated count with the bounds of its 95% interval. */
export interface Bounded {
  value: number;
  low: number;
  high: number;
}

/**
 * The overlay's estimates from totals estimated over drawn blocks whose tables carry no entry counts
 * (unitTotals, or the one-entry-a-block draws' ratios): the entries above and their interval; the
 * shadowed entries with the t interval of their own total, never narrower than the share's interval
 * (`share`: the ratio estimate's, with its Wilson floors) times the estimated entries; neither below
 * what the draws found (`found`: entries in the drawn blocks, shadowing entries checked); and the
 * obsolete bytes at `meanBytes` a shadowed version.
 */
export function uncountedEstimates(
  totals: { entries: TotalEstimate; shadowed: TotalEstimate; df: number },
  share: { low: number; high: number },
  found: { entries: number; shadowing: number },
  meanBytes: number,
): { entries: Bounded; shadowed: Bounded; obsoleteBytes: Bounded } {
  const q = tQuantile(totals.df);
  // an error of 0 (every block drawn) is exact whatever the degrees of freedom
  const half = (t: TotalEstimate) => (t.se === 0 ? 0 : q * t.se);
  const bounds = (t: TotalEstimate, floor: number): Bounded => ({
    value: Math.round(t.value),
    low: Math.max(floor, Math.floor(t.value - half(t))),
    high: Math.ceil(t.value + half(t)),
  });
  const entries = bounds(totals.entries, found.entries);
  const own = bounds(totals.shadowed, found.shadowing);
  const shadowed = {
    value: own.value,
    low: Math.max(found.shadowing, Math.min(own.low, Math.floor(share.low * entries.value))),
    high: Math.max(own.high, Math.ceil(share.high * entries.value)),
  };
  const bytes = (n: number) => Math.round(n * meanBytes);
  return {
    entries,
    shadowed,
    obsoleteBytes: { value: bytes(shadowed.value), low: bytes(shadowed.low), high: bytes(shadowed.high) },
  };
}
