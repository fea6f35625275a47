/**
 * Placement overlay, measured: how much of a column family sits above its bottom level, and how many of
 * the entries up there shadow an older version of the same key further down (obsolete entries that a
 * bottommost compaction would drop).
 *
 * Method (no engine, read-only, through the SST reader):
 *  1. bottom level = the deepest level holding files; "above" = every file in a shallower level.
 *  2. Up to `scanLimitBytes` above the bottom: scan every point entry there (cheap next to the lookups:
 *     upper levels are the small part of an LSM) and keep a uniform reservoir sample of `sample` entries;
 *     when there are no more entries than that, every entry is checked and the count is exact.
 *     Beyond it: draw `sample` data blocks uniformly over the upper files (through their indexes) and one
 *     entry uniformly inside each, weighted by the block's entry count (blockSample below).
 *  3. For each sampled entry (user key k, sequence s, level L) look k up below the entry the way a Get
 *     walks the LSM: older L0 files (L = 0 only), then in each deeper level the one file whose key range
 *     holds k (its own filter first, then index and data block). The entry shadows an older version when
 *     some file below holds k with a sequence number < s. Counting entries that have an older version
 *     below counts obsolete versions exactly once each (every non-oldest version of a key is one entry).
 *  4. shadowedEntriesEstimate = share × entries above bottom, with a 95% interval on the share (Wilson for
 *     the uniform scan sample; for block draws the wider of the ratio estimator's interval and Wilson's);
 *     obsolete bytes = mean (internal key + value) bytes of the shadowed versions found × the estimate.
 *  5. Lookups are bounded (DEFAULT_OVERLAY_LOOKUP_BUDGET): when the sample would need more (an entry in
 *     a pile of thousands of overlapping L0 files has as many files below it), fewer entries are drawn
 *     (blocks, as in 2) and checked, the interval widens, and droppedForLookupBudget says how many.
 *     Lookups go file by file (each file opened once for every entry that needs it; see lookUpBelow).
 * Not counted: several versions of one key inside the same file (only snapshots keep those), range
 * deletions, and what the WAL holds (see wal-unflushed).
 */
import type { ColumnFamilyModel, InstanceModel, LevelModel, SstFileModel } from "../datadir/model.js";
import { TableCache } from "../lsm/table_cache.js";
import type { LastDataBlock } from "../format/table.js";
import { NUMERIC_FIELDS } from "../format/properties.js";
import { toHex } from "../util/bytes.js";
import { placementSplit, type Placement } from "../datadir/placement.js";
import { Version } from "../lsm/version.js";
import { Reservoir, seededRandom } from "./stats.js";
import { wilson } from "../util/interval.js";

export const DEFAULT_OVERLAY_SAMPLE = 4000;
/** Above this many bytes above the bottom level, sample data blocks instead of scanning every entry. */
export const DEFAULT_OVERLAY_SCAN_LIMIT = 1024 * 1024 * 1024;
/**
 * Table lookups (one sampled key in one file below it) one measurement may make. A sampled entry costs
 * one lookup per file below it that may hold its key: a handful in a levelled store, but every older
 * overlapping L0 file when thousands of them pile up after a bulk load (4,000 entries × 5,000 files
 * would be 20 M lookups, minutes). Beyond the budget a uniform subsample of the drawn entries is
 * checked (the interval widens accordingly; `lookupBudgetLimited` says so).
 */
export const DEFAULT_OVERLAY_LOOKUP_BUDGET = 150_000;
/** Block draws made whatever the lookup budget (fewer would leave the interval too wide to read). */
const MIN_BLOCK_DRAWS = 100;
/** Idle tables kept open between the scans and draws (bounded file descriptors). */
const IDLE_TABLES = 64;

/** An estimated count with the bounds of its interval. */
export interface Estimate {
  value: number;
  low: number;
  high: number;
}

/** The placement (src/datadir/placement.ts: bottom level, files and bytes above it) and what lookups found. */
export interface OverlayMeasurement extends Placement {
  /** Point entries in the files above the bottom level (scanned, exact). */
  entriesAboveBottom: number;
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
  /** True when every entry above the bottom was checked (the estimate is then exact). */
  exhaustive: boolean;
  /**
   * How the sample was drawn: "scan" (every entry above the bottom read, uniform reservoir) or "blocks"
   * (more than the scan limit above the bottom, or more lookups than the budget allows: data blocks drawn uniformly, one entry per block, weighted
   * by the block's entry count; entriesAboveBottom then comes from the table properties).
   */
  sampling: "scan" | "blocks";
  /**
   * Obsolete entries (older versions shadowed from above), with a 95% interval: exact when every entry
   * was checked; else the Wilson interval on the sampled share ("wilson"), or for block sampling the wider
   * of the ratio estimator's normal interval and the Wilson interval ("ratio").
   */
  shadowedEntriesEstimate: Estimate & { confidence: number; method: "exact" | "wilson" | "ratio" };
  /** Uncompressed bytes (internal key + value) of those obsolete versions, with the same interval. */
  obsoleteBytesEstimate: Estimate;
  /** What the lookups cost. */
  lookups: { tablesConsulted: number; filterRejections: number; dataBlocksRead: number };
  /** Files that could not be read (missing, corrupt), skipped. */
  skippedFiles: { file: string; reason: string }[];
}

interface Sampled {
  key: Buffer;
  seqno: number;
  level: number;
  file: SstFileModel;
  /** Block sampling: entries in the block the key was drawn from (its weight). */
  weight: number;
}

export interface OverlayOptions {
  /** Entries to check below (default DEFAULT_OVERLAY_SAMPLE). */
  sample?: number;
  seed?: number;
  /** Bytes above the bottom level up to which every entry is scanned (default DEFAULT_OVERLAY_SCAN_LIMIT). */
  scanLimitBytes?: number;
  /** Table lookups allowed (default DEFAULT_OVERLAY_LOOKUP_BUDGET). */
  lookupBudget?: number;
}

/** Measure the overlay of one column family (reads the files; writes nothing). */
export function measureOverlay(
  _instance: InstanceModel,
  cf: ColumnFamilyModel,
  opts: OverlayOptions = {},
): OverlayMeasurement | undefined {
  const split = placementSplit(cf.levels);
  if (!split) return undefined;
  const { bottom, upper, placement } = split;
  const levels = cf.levels.filter((l) => l.files.length > 0);
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
  const cache = new TableCache({ verifyChecksums: true }, IDLE_TABLES);
  const skip = (f: SstFileModel, e: unknown) => {
    if (!m.skippedFiles.some((x) => x.file === f.fileName))
      m.skippedFiles.push({ file: f.fileName, reason: f.present ? (e as Error).message : "missing" });
  };
  // per sampled entry: 1 when it shadows an older version, its weight, and the older version's bytes
  const results: { y: number; w: number; bytes: number }[] = [];
  try {
    // 1-2: draw the sample. When checking it would exceed the lookup budget (thousands of overlapping
    // L0 files), scanning every entry above buys nothing: draw blocks, only as many as the budget checks
    const below = new FilesBelow(levels);
    const budget = opts.lookupBudget ?? DEFAULT_OVERLAY_LOOKUP_BUDGET;
    const perEntry = below.lookupsPerEntry(upper);
    const affordable = perEntry > 0 ? Math.floor(budget / perEntry) : Infinity;
    // entries a scan would check: the sample, or every entry above when fewer (table properties)
    const upperEntries = upper.flatMap((l) => l.files).map((f) => f.details?.numEntries);
    const toCheck = upperEntries.every((n) => n !== undefined)
      ? Math.min(
          sampleSize,
          upperEntries.reduce((a, n) => a! + n!, 0)!,
        )
      : sampleSize;
    let sample: Sampled[];
    if (m.bytesAboveBottom <= (opts.scanLimitBytes ?? DEFAULT_OVERLAY_SCAN_LIMIT) && toCheck <= affordable) {
      sample = scanSample(upper, cache, sampleSize, random, m, skip);
    } else {
      m.sampling = "blocks";
      const draws = Math.min(sampleSize, Math.max(MIN_BLOCK_DRAWS, affordable));
      m.droppedForLookupBudget = sampleSize - draws;
      sample = blockSample(upper, cache, draws, random, m, skip);
    }

    // 3: look each sampled key up below its own position
    const { resolved, dropped } = lookUpBelow(below, sample, cache, random, budget, m, skip);
    m.droppedForLookupBudget += dropped;
    for (const r of resolved) {
      if (r.unresolved) {
        m.unresolved++;
        continue;
      }
      m.sampled++;
      if (r.olderBytes !== undefined) m.sampledShadowing++;
      results.push({ y: r.olderBytes !== undefined ? 1 : 0, w: r.weight, bytes: r.olderBytes ?? 0 });
    }
  } finally {
    cache.close();
  }

  // 4: scale the sampled share to every entry above the bottom
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
    return m;
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
  return m;
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
 * Data blocks drawn uniformly (with replacement) over every data block above the bottom, one entry drawn
 * uniformly inside each; the entry's weight is its block's entry count. Files are chosen in proportion
 * to their data blocks (table properties) and each file's index is walked once for all its draws.
 * entriesAboveBottom = the files' entry counts (properties) minus range deletions.
 */
function blockSample(
  upper: LevelModel[],
  cache: TableCache,
  size: number,
  random: () => number,
  m: OverlayMeasurement,
  skip: (f: SstFileModel, e: unknown) => void,
): Sampled[] {
  const files: { f: SstFileModel; level: number; blocks: number }[] = [];
  for (const lv of upper)
    for (const f of lv.files) {
      try {
        if (!f.present) throw new Error("missing");
        // the properties the model already read (inspect's table details), else the table's own
        const d = f.details;
        let blocks: number;
        let entries: number;
        if (d && !d.error && d.numDataBlocks !== undefined) {
          blocks = d.numDataBlocks;
          entries = (d.numEntries ?? 0) - Number(d.properties?.[NUMERIC_FIELDS.numRangeDeletions] ?? 0);
        } else {
          const t = cache.acquire(f.path);
          const p = t.props;
          cache.release(t);
          blocks = p.numDataBlocks ?? 0;
          entries = (p.numEntries ?? 0) - (p.numRangeDeletions ?? 0);
        }
        m.entriesAboveBottom += Math.max(0, entries);
        if (blocks > 0) files.push({ f, level: lv.level, blocks });
      } catch (e) {
        skip(f, e);
      }
    }
  const total = files.reduce((a, x) => a + x.blocks, 0);
  if (total === 0) return [];
  // draw global block numbers, then group them by file
  const draws = Array.from({ length: size }, () => Math.floor(random() * total)).sort((a, b) => a - b);
  const out: Sampled[] = [];
  let base = 0;
  let d = 0;
  for (const x of files) {
    const wanted: number[] = [];
    while (d < draws.length && draws[d]! < base + x.blocks) wanted.push(draws[d++]! - base);
    base += x.blocks;
    if (wanted.length === 0) continue;
    try {
      const t = cache.acquire(x.f.path);
      try {
        let i = 0;
        let w = 0;
        for (const ie of t.iterateIndex()) {
          // a block drawn more than once is read once (each draw still picks its own entry)
          const block = w < wanted.length && wanted[w] === i ? t.readDataBlock(ie.handle) : undefined;
          while (w < wanted.length && wanted[w] === i) {
            const c = block!.cursor();
            let count = 0;
            let pick: { key: Buffer; seqno: number } | undefined;
            while (c.next()) {
              count++;
              if (random() * count < 1) pick = { key: c.userKeyCopy(), seqno: c.seqno };
            }
            if (pick) out.push({ ...pick, level: x.level, file: x.f, weight: count });
            w++;
          }
          if (w >= wanted.length) break;
          i++;
        }
      } finally {
        cache.release(t);
      }
    } catch (e) {
      skip(x.f, e);
    }
  }
  return out;
}

/** The files below an entry that a Get walks: L0 newest first, then one file per deeper level. */
class FilesBelow {
  private readonly version: Version<SstFileModel>;

  constructor(levels: LevelModel[]) {
    this.version = Version.of(levels);
  }

  /**
   * Files that may hold an older version of user key `hex` written at `seqno` in `file` of `level`.
   * An L0 file whose smallest sequence number is above the entry's cannot, and is left out.
   */
  candidates(hex: string, level: number, seqno: number, file: SstFileModel): SstFileModel[] {
    return this.version
      .filesFor(hex, { level, file })
      .filter((f) => f.level !== 0 || !((f.smallestSeqno ?? 0) > seqno));
  }

  /**
   * Lookups one entry above the bottom costs, estimated from the MANIFEST alone: the mean over up to
   * 64 files above (spread over them) of the candidates of an entry at the file's smallest key and
   * largest sequence number.
   */
  lookupsPerEntry(upper: LevelModel[]): number {
    const files = upper.flatMap((l) => l.files.map((f) => ({ f, level: l.level })));
    if (files.length === 0) return 0;
    const step = Math.max(1, Math.floor(files.length / 64));
    let n = 0;
    let sum = 0;
    for (let i = 0; i < files.length; i += step) {
      const { f, level } = files[i]!;
      sum += this.candidates(f.smallestKey, level, f.largestSeqno ?? Number.MAX_SAFE_INTEGER, f).length;
      n++;
    }
    return sum / n;
  }

  /** Every file, in the order a Get walks them. */
  walkOrder(): SstFileModel[] {
    return [...this.version.l0, ...this.version.levels.flat()];
  }
}

/** What the lookups below found for one sampled entry. */
interface Resolution {
  weight: number;
  /** Bytes (internal key + value) of the nearest older version below, when there is one. */
  olderBytes?: number;
  /** No older version found and some file below could not be read. */
  unresolved: boolean;
}

/**
 * Look each sampled entry up in the files below it that may hold its key, file by file rather than
 * entry by entry: every file is opened once, for all the entries that need it, and files are visited
 * in the order a Get walks them (L0 newest first, then each deeper level), so each entry stops at its
 * nearest older version exactly as a walk per entry would. An L0 file whose smallest sequence number
 * is above the entry's cannot hold an older version and is not consulted. When the lookups would
 * exceed `budget`, a uniform subsample of the entries is checked (m.droppedForLookupBudget).
 */
function lookUpBelow(
  below: FilesBelow,
  sample: Sampled[],
  cache: TableCache,
  random: () => number,
  budget: number,
  m: OverlayMeasurement,
  skip: (f: SstFileModel, e: unknown) => void,
): { resolved: Resolution[]; dropped: number } {
  // a uniform order (Fisher–Yates), so that when the budget ends the checks, the prefix checked is a
  // uniform subsample of the draw
  const order = sample.slice();
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  const entries: { s: Sampled; files: SstFileModel[] }[] = [];
  let lookups = 0;
  for (const s of order) {
    const files = below.candidates(toHex(s.key), s.level, s.seqno, s.file);
    if (lookups + files.length > budget) break;
    lookups += files.length;
    entries.push({ s, files });
  }
  const out: Resolution[] = entries.map((e) => ({ weight: e.s.weight, unresolved: false }));
  const done = new Uint8Array(entries.length);
  // which entries need each file, files in walk order
  const byFile = new Map<SstFileModel, number[]>();
  for (const f of below.walkOrder()) byFile.set(f, []);
  entries.forEach((e, i) => {
    for (const f of e.files) byFile.get(f)!.push(i);
  });
  for (const [f, wanting] of byFile) {
    // in key order, so that keys falling in one data block read it once (LastDataBlock)
    const pending = wanting
      .filter((i) => done[i] === 0)
      .sort((a, b) => Buffer.compare(entries[a]!.s.key, entries[b]!.s.key));
    if (pending.length === 0) continue;
    const lastBlock: LastDataBlock = {};
    let t;
    try {
      if (!f.present) throw new Error("missing");
      t = cache.acquire(f.path);
    } catch (e) {
      skip(f, e);
      for (const i of pending) out[i]!.unresolved = true;
      continue;
    }
    try {
      for (const i of pending) {
        const s = entries[i]!.s;
        m.lookups.tablesConsulted++;
        let r;
        try {
          r = t.get(s.key, undefined, lastBlock);
        } catch (e) {
          skip(f, e);
          out[i]!.unresolved = true;
          continue;
        }
        if (r.filterRejected) m.lookups.filterRejections++;
        m.lookups.dataBlocksRead += r.stats.dataBlocksRead;
        if (r.found && r.seqno !== undefined && r.seqno < s.seqno) {
          out[i]!.olderBytes = s.key.length + 8 + (r.value?.length ?? 0);
          out[i]!.unresolved = false;
          done[i] = 1;
        }
      }
    } finally {
      cache.release(t);
    }
  }
  return { resolved: out, dropped: order.length - entries.length };
}

/**
 * Ratio estimator of the shadowed share for weighted draws (y_i in {0,1}, weight m_i = entries in the
 * drawn block): r = Σ m_i y_i / Σ m_i, with the usual linearised variance
 * Var(r) ≈ Σ (m_i (y_i − r))² / (n (n − 1) m̄²), and a 95% normal interval.
 */
export function ratioInterval(draws: { y: number; w: number }[]): {
  share: number;
  low: number;
  high: number;
} {
  const n = draws.length;
  if (n === 0) return { share: 0, low: 0, high: 1 };
  const sw = draws.reduce((a, d) => a + d.w, 0);
  const r = draws.reduce((a, d) => a + d.w * d.y, 0) / sw;
  if (n < 2) return { share: r, low: 0, high: 1 };
  const mbar = sw / n;
  const ss = draws.reduce((a, d) => a + (d.w * (d.y - r)) ** 2, 0);
  const se = Math.sqrt(ss / (n * (n - 1) * mbar * mbar));
  return { share: r, low: Math.max(0, r - 1.96 * se), high: Math.min(1, r + 1.96 * se) };
}
