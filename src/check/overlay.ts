/**
 * Placement overlay, measured: how much of a column family sits above its bottom level, and how many of
 * the entries up there shadow an older version of the same key further down (obsolete entries that a
 * bottommost compaction would drop).
 *
 * Method (no engine, read-only, through the SST reader):
 *  1. bottom level = the deepest level holding files; "above" = every file in a shallower level.
 *  2. The sample, one of three ways:
 *     a. Scan (sampling "scan"): every point entry above is read and a uniform reservoir sample of
 *        `sample` entries kept; when there are no more entries than that, every entry is checked and
 *        the count is exact. Taken when the tables above hold no more entries than the sample, or no
 *        more data blocks than the first stage of (b) would draw, or up to `scanLimitBytes` when that
 *        is given. Tables without block and entry counts (LevelDB's: no properties) have their blocks
 *        counted from their indexes and their entries per block measured on MIN_FIRST_STAGE_BLOCKS
 *        blocks drawn first (overlay_frame.ts), which decide this choice only.
 *     b. Blocks, two stages (sampling "blocks"; clusterSample, overlay_blocks.ts): tables that no table
 *        below overlaps hold no shadowing entry and are counted (properties), not read; over the data
 *        blocks of the rest, stratified by runs of neighbouring tables (StratifiedFrame), a first
 *        stage of max(20, sample / entries per block) distinct blocks drawn uniformly within each
 *        stratum in proportion to its blocks, every entry of each checked; then a second stage sized
 *        from the first alone (once: no stopping on the data, as Stein's two-stage design): as many
 *        more blocks as bring the sample's effective size (entries checked over the design effect
 *        measured between blocks) up to `sample`, with as many entries of each (a uniform few, or
 *        all) as cost the fewest reads for that precision, from the intra-block correlation ρ and the
 *        reads below the first stage made per block and would make per entry (cheapestPerBlock; one
 *        per block when it could not tell ρ). Scanning 65 MB above to keep 4,000 entries read
 *        ~4,000 blocks; 20 whole blocks give ~4,800.
 *        Without entry counts every table above is in the frame and the entries above are estimated
 *        too (unitTotals: each stratum's stored bytes × the ratio of the entries, and of the shadowed
 *        entries, to the stored bytes of its drawn blocks); when no table above may shadow, the first
 *        stage alone.
 *     c. Blocks, one entry each (sampling "blocks"; blockSample): when checking the sample would
 *        exceed the lookup budget (5), as many blocks as the budget checks, drawn uniformly with
 *        replacement, one entry uniformly inside each, weighted by its block's entries.
 *  3. For each sampled entry (user key k, sequence s, level L) look k up below the entry the way a Get
 *     walks the LSM: other L0 files (L = 0 only), then in each deeper level the one file whose key range
 *     holds k. The entry shadows an older version when the first file in that order holding k holds it
 *     with a sequence number < s. Counting entries that have an older version below counts obsolete
 *     versions exactly once each (every non-oldest version of a key is one entry). (a) and (c) look
 *     each key up with the file's filter, index and data block (lookUpBelow); (b) visits each file
 *     below once per drawn block for its keys, by one pass over the data blocks their range spans
 *     when they are at least two per block, else by point lookups (overlay_merge.ts): same answers.
 *  4. shadowedEntriesEstimate = share × entries (above the bottom; for (b), of the tables that may
 *     shadow), with a 95% interval on the share: Wilson for the uniform scan sample; for block draws
 *     the ratio estimator Σ entries·share checked / Σ entries with its between-block variance (for
 *     (b) per stratum, weighted by the strata's entries; t quantile), never narrower than Wilson's over
 *     the entries checked (nor, for (b) when the blocks told nothing of the variance, than Wilson's
 *     over the blocks); obsolete bytes = mean (internal key + value) bytes of the shadowed versions
 *     found (for (b) each checked entry standing for its block's entries / checked) × the estimate.
 *     Without entry counts (LevelDB's tables, block draws) the shadowed entries are a total of their
 *     own (a ratio to the blocks' stored sizes) with its t interval, never narrower than the share's
 *     interval × the estimated entries, and entriesAboveBottomEstimate carries the entries' interval.
 *  5. Lookups are bounded (DEFAULT_OVERLAY_LOOKUP_BUDGET): when the sample would need more (an entry in
 *     a pile of thousands of overlapping L0 files has as many files below it), fewer entries are drawn
 *     (2c) and checked, the interval widens, and droppedForLookupBudget says how many.
 * Not counted: several versions of one key inside the same file (only snapshots keep those), range
 * deletions, and what the WAL holds (see wal-unflushed).
 */
import type { ColumnFamilyModel, InstanceModel, LevelModel, SstFileModel } from "../datadir/model.js";
import type { KeptFilters } from "../lsm/kept_filters.js";
import type { KeptTables } from "../lsm/kept_tables.js";
import { LOOKUP_IDLE_BYTES, TableCache } from "../lsm/table_cache.js";
import { openFileCacheCapacity } from "../util/open_files.js";
import { lookUpUnits } from "./overlay_merge.js";
import { drawUnits, forDrawnBlocks } from "./overlay_draw.js";
import { FilesBelow, lookUpBelow } from "./overlay_below.js";
import { frameFiles, pilotCounts, upperCounts, withHandles } from "./overlay_frame.js";
import { placementSplit, type Placement } from "../datadir/placement.js";
import { Reservoir, seededRandom } from "./stats.js";
import {
  BlockFrame,
  MIN_FIRST_STAGE_BLOCKS,
  ratioTotal,
  secondStage,
  storedBytesOf,
  StratifiedFrame,
  uncountedEstimates,
  unitInterval,
  unitTotals,
  type BlockUnit,
  type Bounded,
  type FrameFile,
  type Sampled,
} from "./overlay_blocks.js";
import { ratioEstimate, tQuantile, wilson } from "../util/interval.js";

export const DEFAULT_OVERLAY_SAMPLE = 4000;
/**
 * Table lookups (one sampled key in one file below it) the measurements of one datadir may make, shared
 * by its column families (sharedLookupBudget). A sampled entry costs one lookup per file below it that
 * may hold its key: a handful in a levelled store, but every older overlapping L0 file when thousands
 * of them pile up after a bulk load (4,000 entries × 5,000 files would be 20 M lookups, minutes).
 * Beyond the budget a uniform subsample of the drawn entries is checked (the interval widens
 * accordingly; droppedForLookupBudget says how many). What a lookup costs there is mostly its filter's
 * false positives (~1 in 100 at 10 bits a key: a table opened and a data block read each). 100,000
 * (session 38; 150,000 before): `check` of a db_bench store of three L0 pile-ups (2,394 tables)
 * 1.14x faster, 1.78x its `inspect` (2.16x at 150,000; target 2x); on the 4,884-table pile-up 32-34
 * entries checked instead of 46-53 (seeds 1-3), the 95% interval's half-width 26-30% of the estimate
 * instead of 22-27%, every one covering the 5.27 M shadowed versions `sizes --full` counts.
 */
export const DEFAULT_OVERLAY_LOOKUP_BUDGET = 100_000;
/** Block draws made whatever the lookup budget (fewer would leave the interval too wide to read). */
const MIN_BLOCK_DRAWS = 100;

/** An estimated count with the bounds of its interval. */
export type Estimate = Bounded;

/** The placement (src/datadir/placement.ts: bottom level, files and bytes above it) and what lookups found. */
export interface OverlayMeasurement extends Placement {
  /** Point entries in the files above the bottom level (scanned, or from the table properties). */
  entriesAboveBottom: number;
  /**
   * When the tables above carry no entry counts (LevelDB's) and blocks were drawn: entriesAboveBottom
   * estimated from the drawn blocks (its value), with a 95% interval.
   */
  entriesAboveBottomEstimate?: Estimate;
  /** Entries in the bottom level (from the table properties; absent when some file lacks them). */
  entriesInBottom?: number;
  /** Entries checked below, and how many of them had an older version there. */
  sampled: number;
  /** Sampled entries whose lookup could not finish (a file below was unreadable): left out of `sampled`. */
  unresolved: number;
  sampledShadowing: number;
  /**
   * Entries of the requested sample left unchecked because their lookups would have exceeded the
   * lookup budget (fewer blocks drawn, or a uniform subsample of the draw checked); 0 when the budget
   * was not reached.
   */
  droppedForLookupBudget: number;
  /**
   * True when the count is exact: every entry above the bottom was checked, or (block sampling) no
   * table above is overlapped by one below, so none can shadow (nothing is read then).
   */
  exhaustive: boolean;
  /**
   * How the sample was drawn: "scan" (every entry above the bottom read, uniform reservoir) or "blocks"
   * (data blocks drawn uniformly: in two stages, every entry of a block or a uniform few checked, over
   * the tables a table below overlaps; or, when the lookup budget binds, one entry per block weighted by
   * the block's entry count). entriesAboveBottom then comes from the table properties.
   */
  sampling: "scan" | "blocks";
  /**
   * Obsolete entries (older versions shadowed from above), with a 95% interval: exact when every entry
   * was checked (or none can shadow); else the Wilson interval on the sampled share ("wilson"), or for
   * block sampling the ratio estimator's interval, never narrower than Wilson's ("ratio").
   */
  shadowedEntriesEstimate: Estimate & { confidence: number; method: "exact" | "wilson" | "ratio" };
  /** Uncompressed bytes (internal key + value) of those obsolete versions, with the same interval. */
  obsoleteBytesEstimate: Estimate;
  /** What the lookups cost. */
  lookups: { tablesConsulted: number; filterRejections: number; dataBlocksRead: number };
  /** Files that could not be read (missing, corrupt), skipped. */
  skippedFiles: { file: string; reason: string }[];
}

export interface OverlayOptions {
  /** Entries to check below (default DEFAULT_OVERLAY_SAMPLE). */
  sample?: number;
  seed?: number;
  /**
   * Bytes above the bottom level up to which every entry is scanned (beyond: block sampling); default:
   * scan only when that reads no more blocks than block sampling would (scanIsCheaper).
   */
  scanLimitBytes?: number;
  /** Table lookups allowed (default DEFAULT_OVERLAY_LOOKUP_BUDGET). */
  lookupBudget?: number;
  /** Filters kept of the tables (read with the model): a table they rule out is not opened. */
  filters?: KeptFilters;
  /** Tables kept parsed (read with the model): a lookup takes them rather than opening them again. */
  tables?: KeptTables;
}

/**
 * What the overlay of one column family works from, from the MANIFEST alone: its placement split
 * (undefined: no files), its non-empty levels, the lookup index of every file (FilesBelow, made when
 * first asked), and what checking a sample costs (lookupPlan, for the sample size it was worked out
 * for). Worked out once per column family: `check` asks for the lookups to share the budget
 * (overlayLookupDemand), then measures (measureOverlay).
 */
interface OverlayShape {
  split: ReturnType<typeof placementSplit>;
  levels: LevelModel[];
  below?: FilesBelow;
  plan?: { sample: number; perEntry: number; toCheck: number };
}

const shapes = new WeakMap<ColumnFamilyModel, OverlayShape>();

function shapeOf(cf: ColumnFamilyModel): OverlayShape {
  let shape = shapes.get(cf);
  if (!shape) {
    shape = { split: placementSplit(cf.levels), levels: cf.levels.filter((l) => l.files.length > 0) };
    shapes.set(cf, shape);
  }
  return shape;
}

function filesBelow(shape: OverlayShape): FilesBelow {
  return (shape.below ??= new FilesBelow(shape.levels));
}

/**
 * What checking a sample of `sampleSize` entries above the bottom costs, from the MANIFEST and the
 * tables' properties alone: the lookups an entry makes below (FilesBelow.lookupsPerEntry, ~3-6 ms a
 * pile-up of ~900 tables), and the entries a scan would check (the sample, or every entry above when
 * fewer).
 */
function lookupPlan(
  shape: OverlayShape,
  upper: LevelModel[],
  sampleSize: number,
): { perEntry: number; toCheck: number } {
  if (shape.plan?.sample === sampleSize) return shape.plan;
  const upperEntries = upper.flatMap((l) => l.files).map((f) => f.details?.numEntries);
  const toCheck = upperEntries.every((n) => n !== undefined)
    ? Math.min(
        sampleSize,
        upperEntries.reduce((a, n) => a! + n!, 0)!,
      )
    : sampleSize;
  shape.plan = { sample: sampleSize, perEntry: filesBelow(shape).lookupsPerEntry(upper), toCheck };
  return shape.plan;
}

/**
 * The lookups measureOverlay would make in `cf` without a budget, estimated as it estimates them
 * (lookupPlan): 0 when nothing lies above the bottom.
 */
export function overlayLookupDemand(cf: ColumnFamilyModel, sample = DEFAULT_OVERLAY_SAMPLE): number {
  const shape = shapeOf(cf);
  if (!shape.split || shape.split.upper.length === 0) return 0;
  const { perEntry, toCheck } = lookupPlan(shape, shape.split.upper, sample);
  return perEntry * toCheck;
}

/**
 * Each column family's lookup budget when a store's column families share `budget`: `budget` itself
 * while their demands (overlayLookupDemand) fit in it together; else the level L at which the demands
 * cut at L add up to it, the same for each, so a column family that wants less keeps what it wants
 * and the pile-ups share the rest. A Besu store with three state column families piled up in L0 made
 * three times the lookups of a store with one, with a budget per column family: `check` of 2,419
 * tables (three pile-ups of 660-900 tables) took 3.05x its `inspect` (target 2x).
 */
export function sharedLookupBudget(budget: number, demands: readonly number[]): number {
  const sorted = [...demands].sort((a, b) => a - b);
  let left = budget;
  for (let i = 0; i < sorted.length; i++) {
    const level = left / (sorted.length - i);
    if (sorted[i]! > level) return Math.max(1, Math.floor(level));
    left -= sorted[i]!;
  }
  return budget;
}

/** Measure the overlay of one column family (reads the files; writes nothing). */
export function measureOverlay(
  _instance: InstanceModel,
  cf: ColumnFamilyModel,
  opts: OverlayOptions = {},
): OverlayMeasurement | undefined {
  const shape = shapeOf(cf);
  if (!shape.split) return undefined;
  const { bottom, upper, placement } = shape.split;
  const m: OverlayMeasurement = {
    ...placement,
    entriesAboveBottom: 0,
    sampled: 0,
    unresolved: 0,
    droppedForLookupBudget: 0,
    sampledShadowing: 0,
    exhaustive: true,
    sampling: "scan",
    shadowedEntriesEstimate: { value: 0, low: 0, high: 0, confidence: 0.95, method: "exact" },
    obsoleteBytesEstimate: { value: 0, low: 0, high: 0 },
    lookups: { tablesConsulted: 0, filterRejections: 0, dataBlocksRead: 0 },
    skippedFiles: [],
  };
  const bottomEntries = bottom.files.map((f) => f.details?.numEntries);
  if (bottomEntries.every((n) => n !== undefined))
    m.entriesInBottom = bottomEntries.reduce((s, n) => s! + n!, 0);
  if (upper.length === 0) return m;

  const sampleSize = opts.sample ?? DEFAULT_OVERLAY_SAMPLE;
  const random = seededRandom(opts.seed ?? 1);
  // as many idle tables as a reader cache may hold open, and their index and filter blocks bounded
  // as the lookup caches' are (a 64 MiB table's filter is ~1 MiB): the draws and lookups go back and
  // forth over the tables above and below, and at 64 a LevelDB store of 141 tables opened them 1,140
  // times
  const cache = new TableCache({ verifyChecksums: true }, openFileCacheCapacity(), {
    keptTables: opts.tables,
    maxIdleBytes: LOOKUP_IDLE_BYTES,
  });
  const skip = (f: SstFileModel, e: unknown) => {
    if (!m.skippedFiles.some((x) => x.file === f.fileName))
      m.skippedFiles.push({ file: f.fileName, reason: f.present ? (e as Error).message : "missing" });
  };
  // per entry checked: whether it shadows, its weight, the older version's bytes, its block's size
  const results: SampledResult[] = [];
  // blockSample's blocks' stored bytes when their tables carry no entry counts (the totals are then
  // ratios to them)
  let uncountedBytes: number | undefined;
  try {
    // 1-2: draw the sample. When checking it would exceed the lookup budget (thousands of overlapping
    // L0 files), scanning every entry above buys nothing: draw blocks, only as many as the budget checks
    const below = filesBelow(shape);
    const budget = opts.lookupBudget ?? DEFAULT_OVERLAY_LOOKUP_BUDGET;
    const { perEntry, toCheck } = lookupPlan(shape, upper, sampleSize);
    const affordable = perEntry > 0 ? Math.floor(budget / perEntry) : Infinity;
    let sample: Sampled[];
    // block sampling works from every table's data blocks and entries (properties); tables without
    // them (LevelDB's) have their blocks counted from their indexes and their entries per block
    // measured by a pilot, unless the scan limit settles the choice without them
    const limit = opts.scanLimitBytes;
    let counts = upperCounts(upper);
    let frame: FrameFile[] | undefined;
    if (
      counts === undefined &&
      toCheck <= affordable &&
      !(limit !== undefined && m.bytesAboveBottom <= limit)
    ) {
      frame = frameFiles(upper, cache, skip);
      counts = pilotCounts(frame, cache, random, skip);
    }
    if (
      toCheck <= affordable &&
      counts !== undefined &&
      !(limit !== undefined ? m.bytesAboveBottom <= limit : scanIsCheaper(counts, sampleSize))
    ) {
      const plan = {
        sample: sampleSize,
        affordable,
        budget,
        perBlock: counts.entries / Math.max(1, counts.blocks),
      };
      clusterSample(frame ?? frameFiles(upper, cache, skip), below, cache, plan, random, m, skip);
      return m;
    }
    if (toCheck <= affordable) {
      sample = scanSample(upper, cache, sampleSize, random, m, skip);
    } else {
      m.sampling = "blocks";
      const draws = Math.min(sampleSize, Math.max(MIN_BLOCK_DRAWS, affordable));
      m.droppedForLookupBudget = sampleSize - draws;
      ({ sample, uncountedBytes } = blockSample(upper, cache, draws, random, m, skip));
    }

    // 3: look each sampled key up below its own position
    const { resolved, dropped } = lookUpBelow(
      below,
      sample,
      { cache, filters: opts.filters },
      random,
      budget,
      m,
      skip,
    );
    m.droppedForLookupBudget += dropped;
    for (const r of resolved) {
      if (r.unresolved) {
        m.unresolved++;
        continue;
      }
      m.sampled++;
      if (r.olderBytes !== undefined) m.sampledShadowing++;
      results.push({
        y: r.olderBytes !== undefined ? 1 : 0,
        w: r.weight,
        bytes: r.olderBytes ?? 0,
        x: r.storedBytes ?? 0,
      });
    }
  } finally {
    cache.close();
  }

  // 4: scale the sampled share to every entry above the bottom
  scaleSample(m, results, uncountedBytes);
  return m;
}

/** An entry checked: 1 when it shadows, its weight, the older version's bytes, its block's stored size. */
interface SampledResult {
  y: number;
  w: number;
  bytes: number;
  x: number;
}

/**
 * Step 4 of the header: the sampled share scaled to every entry above the bottom (exact when every
 * entry was checked), its interval, and the obsolete bytes; `uncountedBytes` the stored bytes of the
 * blocks blockSample drew from when their tables carry no entry counts.
 */
function scaleSample(
  m: OverlayMeasurement,
  results: readonly SampledResult[],
  uncountedBytes: number | undefined,
): void {
  const n = m.sampled;
  const N = m.entriesAboveBottom;
  const shadowBytes = results.reduce((a, r) => a + r.bytes, 0);
  const meanBytes = m.sampledShadowing > 0 ? shadowBytes / m.sampledShadowing : 0;
  m.exhaustive = m.sampling === "scan" && n === N && m.unresolved === 0;
  if (m.exhaustive) {
    m.shadowedEntriesEstimate = {
      value: m.sampledShadowing,
      low: m.sampledShadowing,
      high: m.sampledShadowing,
      confidence: 1,
      method: "exact",
    };
    m.obsoleteBytesEstimate = { value: shadowBytes, low: shadowBytes, high: shadowBytes };
    return;
  }
  if (uncountedBytes !== undefined) {
    // one entry drawn in each of n blocks drawn with replacement out of the blocks above, whose
    // entries no table counts: both totals are ratios to the drawn blocks' stored sizes, as the two
    // stages' (unitTotals; with replacement: no finite population correction). A mean per block
    // gave an interval of no width wherever the draws missed the tables' short last blocks
    const x = results.map((r) => r.x);
    const total = (y: number[]) => ratioTotal(y, x, Infinity, uncountedBytes);
    const totals = {
      entries: total(results.map((r) => r.w)),
      shadowed: total(results.map((r) => r.w * r.y)),
      df: n - 1,
    };
    const found = { entries: 0, shadowing: m.sampledShadowing };
    setUncounted(m, uncountedEstimates(totals, ratioInterval(results), found, meanBytes));
    return;
  }
  let share: number;
  let low: number;
  let high: number;
  const [wLow, wHigh] = wilson(n > 0 ? m.sampledShadowing / n : 0, n);
  if (m.sampling === "scan") {
    share = n > 0 ? m.sampledShadowing / n : 0;
    low = wLow;
    high = wHigh;
  } else {
    const r = ratioInterval(results);
    share = r.share;
    low = Math.min(r.low, wLow);
    high = Math.max(r.high, wHigh);
  }
  const value = Math.round(share * N);
  m.shadowedEntriesEstimate = {
    value,
    low: Math.floor(low * N),
    high: Math.ceil(high * N),
    confidence: 0.95,
    method: m.sampling === "scan" ? "wilson" : "ratio",
  };
  m.obsoleteBytesEstimate = {
    value: Math.round(value * meanBytes),
    low: Math.round(Math.floor(low * N) * meanBytes),
    high: Math.round(Math.ceil(high * N) * meanBytes),
  };
}

/** `m`'s estimates, from tables above that carry no entry counts (uncountedEstimates). */
function setUncounted(m: OverlayMeasurement, e: ReturnType<typeof uncountedEstimates>): void {
  m.entriesAboveBottom = e.entries.value;
  m.entriesAboveBottomEstimate = e.entries;
  m.shadowedEntriesEstimate = { ...e.shadowed, confidence: 0.95, method: "ratio" };
  m.obsoleteBytesEstimate = e.obsoleteBytes;
}

/** Every point entry of the files above the bottom, reservoir-sampled (uniform, exact count). */
function scanSample(
  upper: LevelModel[],
  cache: TableCache,
  size: number,
  random: () => number,
  m: OverlayMeasurement,
  skip: (f: SstFileModel, e: unknown) => void,
): Sampled[] {
  const reservoir = new Reservoir<Sampled>(size, random);
  for (const lv of upper)
    for (const f of lv.files) {
      try {
        if (!f.present) throw new Error("missing");
        const t = cache.acquire(f.path);
        try {
          t.scan(
            (e) => {
              m.entriesAboveBottom++;
              const slot = reservoir.slotFor();
              if (slot >= 0)
                reservoir.put(slot, {
                  key: e.userKeyCopy(),
                  seqno: e.seqno,
                  level: lv.level,
                  file: f,
                  weight: 1,
                });
            },
            { rangeDeletions: false },
          );
        } finally {
          cache.release(t);
        }
      } catch (e) {
        skip(f, e);
      }
    }
  return reservoir.items;
}

/**
 * Whether scanning every entry above the bottom is the cheaper way (no `scanLimitBytes` given): when
 * there are no more entries than the sample (every one is checked and the count is exact), or no more
 * data blocks than the first stage of block sampling would draw.
 */
function scanIsCheaper(counts: { entries: number; blocks: number }, sample: number): boolean {
  const { entries, blocks } = counts;
  if (entries <= sample) return true;
  const perBlock = blocks > 0 ? entries / blocks : 1;
  return blocks <= Math.max(MIN_FIRST_STAGE_BLOCKS, Math.ceil(sample / perBlock));
}

/**
 * Two-stage block sampling (step 2 of the header): the tables no table below overlaps hold no
 * shadowing entry and are counted, not read; over the data blocks of the rest, a first stage of
 * distinct blocks drawn uniformly with a uniform subsample of entries in each, looked up below; a
 * second stage sized from the first (secondStage); the ratio estimate and its interval (unitInterval).
 * Fills `m` (sampling "blocks", method "ratio"; exact 0 when no table may shadow).
 */
function clusterSample(
  all: FrameFile[],
  below: FilesBelow,
  cache: TableCache,
  plan: { sample: number; affordable: number; budget: number; perBlock: number },
  random: () => number,
  m: OverlayMeasurement,
  skip: (f: SstFileModel, e: unknown) => void,
): void {
  m.sampling = "blocks";
  const counted = all.every((x) => x.entries !== undefined);
  for (const x of all) m.entriesAboveBottom += x.entries ?? 0;
  // without entry counts every table above is in the frame, so that the draws estimate its entries
  // too (a table nothing below overlaps adds entries and never a shadowing one)
  const upperFrame = all.filter((x) => x.blocks > 0 && (!counted || below.mayShadow(x.f, x.level)));
  // ... and when none of them may shadow, the first stage estimates their entries and nothing more
  const noneShadows = !upperFrame.some((x) => below.mayShadow(x.f, x.level));
  const frameBlocks = upperFrame.reduce((a, x) => a + x.blocks, 0);
  const frameEntries = counted ? upperFrame.reduce((a, x) => a + x.entries!, 0) : plan.perBlock * frameBlocks;
  if (frameBlocks === 0 || frameEntries === 0) {
    // no entry above can have an older version below: exactly none shadows
    m.exhaustive = m.skippedFiles.length === 0;
    m.shadowedEntriesEstimate.confidence = 1;
    return;
  }
  // first stage: every entry of each drawn block (the merge passes check a block's keys for about
  // the cost of one key each)
  const mean = frameEntries / frameBlocks;
  const first = Math.min(
    frameBlocks,
    Math.max(MIN_FIRST_STAGE_BLOCKS, Math.ceil(plan.sample / Math.max(1, mean))),
  );
  const frame = new StratifiedFrame(upperFrame, first);
  const units: BlockUnit[] = [];
  let allowed = plan.affordable; // entries the lookup budget checks
  const stage = (perStratum: number[], perBlock: number) => {
    const from = units.length;
    frame.strata.forEach((st, h) => {
      const at = units.length;
      drawUnits(st, st.draw(perStratum[h]!, random), perBlock, cache, random, units, skip);
      for (let i = at; i < units.length; i++) units[i]!.stratum = h;
    });
    for (let i = from; i < units.length; i++) allowed -= units[i]!.keys.n;
    m.droppedForLookupBudget += lookUpUnits(
      units,
      from,
      (u) => below.candidatesForUnit(u),
      cache,
      random,
      plan.budget,
      m,
      skip,
    );
  };
  // at least two blocks per stratum: its variance is measured within it
  stage(frame.allocate(first, 2), Infinity);
  if (!frame.entriesKnown) frame.weighByDrawn(units);
  const next = secondStage(units, frame.weights, plan.sample, mean);
  // never more blocks than the sample has entries, nor than the frame holds
  const blocks = noneShadows
    ? 0
    : Math.min(next.blocks, Math.max(0, plan.sample - units.length), frame.remaining);
  if (blocks > 0) {
    // the lookup budget bounds the entries checked
    const k = Math.max(1, Math.min(next.perBlock, mean));
    let perBlock = next.perBlock;
    let take = blocks;
    if (take * k > allowed) {
      perBlock = Math.max(1, Math.floor(allowed / take));
      take = Math.max(0, Math.min(take, Math.floor(allowed / perBlock)));
      m.droppedForLookupBudget += Math.round(blocks * k - take * perBlock);
    }
    if (take > 0) stage(frame.allocate(take), perBlock);
  }

  const est = unitInterval(units, frame.weights);
  m.sampled = est.checked;
  m.sampledShadowing = est.shadowing;
  m.exhaustive = false;
  // mean bytes of the obsolete versions, each checked entry standing for its block's entries / checked
  let bytes = 0;
  let count = 0;
  for (const u of units)
    if (u.checked > 0) {
      bytes += (u.entries / u.checked) * u.shadowedBytes;
      count += (u.entries / u.checked) * u.shadowing;
    }
  const meanBytes = count > 0 ? bytes / count : 0;
  if (!frame.entriesKnown) {
    const drawn = units.reduce((a, u) => a + u.entries, 0);
    const found = { entries: drawn, shadowing: est.shadowing };
    setUncounted(m, uncountedEstimates(unitTotals(units, frame), est, found, meanBytes));
    if (noneShadows) {
      // no entry above can have an older version below: exactly none shadows
      m.exhaustive = m.skippedFiles.length === 0;
      m.shadowedEntriesEstimate = { value: 0, low: 0, high: 0, confidence: 1, method: "exact" };
      m.obsoleteBytesEstimate = { value: 0, low: 0, high: 0 };
    }
    return;
  }
  const value = Math.round(est.share * frameEntries);
  const low = Math.floor(est.low * frameEntries);
  const high = Math.ceil(est.high * frameEntries);
  m.shadowedEntriesEstimate = { value, low, high, confidence: 0.95, method: "ratio" };
  m.obsoleteBytesEstimate = {
    value: Math.round(value * meanBytes),
    low: Math.round(low * meanBytes),
    high: Math.round(high * meanBytes),
  };
}

/**
 * Data blocks drawn uniformly (with replacement) over every data block above the bottom, one entry drawn
 * uniformly inside each; the entry's weight is its block's entry count. Files are chosen in proportion
 * to their data blocks (table properties) and each file's index is walked once for all its draws.
 * entriesAboveBottom = the files' entry counts (properties) minus range deletions; when some table
 * carries none (LevelDB's), `uncountedBytes` is the stored bytes of the blocks drawn from, each
 * draw's block's own is its `storedBytes`, and the totals are estimated from the draws (step 4).
 */
function blockSample(
  upper: LevelModel[],
  cache: TableCache,
  size: number,
  random: () => number,
  m: OverlayMeasurement,
  skip: (f: SstFileModel, e: unknown) => void,
): { sample: Sampled[]; uncountedBytes?: number } {
  const all = frameFiles(upper, cache, skip);
  for (const x of all) m.entriesAboveBottom += x.entries ?? 0;
  const files = all.filter((x) => x.blocks > 0);
  const total = files.reduce((a, x) => a + x.blocks, 0);
  const counted = all.every((x) => x.entries !== undefined);
  const uncountedBytes = counted ? undefined : storedBytesOf(new BlockFrame(withHandles(files, cache, skip)));
  if (total === 0) return { sample: [], uncountedBytes };
  // draw global block numbers, then group them by file
  const draws = Array.from({ length: size }, () => Math.floor(random() * total)).sort((a, b) => a - b);
  const out: Sampled[] = [];
  forDrawnBlocks(files, draws, cache, skip, (x, block, times) => {
    // a block drawn more than once is read once (each draw still picks its own entry)
    for (let k = 0; k < times; k++) {
      const c = block.cursor();
      let count = 0;
      let pick: { key: Buffer; seqno: number } | undefined;
      while (c.next()) {
        count++;
        if (random() * count < 1) pick = { key: c.userKeyCopy(), seqno: c.seqno };
      }
      if (pick)
        out.push({ ...pick, level: x.level, file: x.f, weight: count, storedBytes: block.handle.size });
    }
  });
  return { sample: out, uncountedBytes };
}

/**
 * Ratio estimator of the shadowed share for weighted draws (y_i in {0,1}, weight m_i = entries in the
 * drawn block; util/interval.ts ratioEstimate), with a 95% Student-t interval (n − 1 degrees of
 * freedom: a normal one under-covers from a few draws).
 */
export function ratioInterval(draws: readonly { y: number; w: number }[]): {
  share: number;
  low: number;
  high: number;
} {
  const { r, se, n } = ratioEstimate(
    draws.map((d) => d.w * d.y),
    draws.map((d) => d.w),
  );
  const half = tQuantile(n - 1) * se;
  return { share: r, low: Math.max(0, r - half), high: Math.min(1, r + half) };
}
