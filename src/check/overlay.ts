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
 * Not counted: several versions of one key inside the same file (only snapshots keep those), range
 * deletions, and what the WAL holds (see wal-unflushed).
 */
import type { ColumnFamilyModel, InstanceModel, LevelModel, SstFileModel } from "../datadir/model.js";
import { openTable, type SstTable } from "../format/table.js";
import { toHex } from "../util/bytes.js";
import { placementSplit, tableAge, type Placement } from "../lsm/placement.js";
import { Reservoir, seededRandom, wilsonInterval } from "./stats.js";

export const DEFAULT_OVERLAY_SAMPLE = 4000;
/** Above this many bytes above the bottom level, sample data blocks instead of scanning every entry. */
export const DEFAULT_OVERLAY_SCAN_LIMIT = 1024 * 1024 * 1024;
/** Tables kept open at once during lookups (bounded file descriptors). */
const MAX_OPEN_TABLES = 256;

export interface Interval {
  value: number;
  low: number;
  high: number;
}

/** The placement (src/lsm/placement.ts: bottom level, files and bytes above it) and what lookups found. */
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
  /** True when every entry above the bottom was checked (the estimate is then exact). */
  exhaustive: boolean;
  /**
   * How the sample was drawn: "scan" (every entry above the bottom read, uniform reservoir) or "blocks"
   * (more than the scan limit above the bottom: data blocks drawn uniformly, one entry per block, weighted
   * by the block's entry count; entriesAboveBottom then comes from the table properties).
   */
  sampling: "scan" | "blocks";
  /**
   * Obsolete entries (older versions shadowed from above), with a 95% interval: exact when every entry
   * was checked; else the Wilson interval on the sampled share ("wilson"), or for block sampling the wider
   * of the ratio estimator's normal interval and the Wilson interval ("ratio").
   */
  shadowedEntriesEstimate: Interval & { confidence: number; method: "exact" | "wilson" | "ratio" };
  /** Uncompressed bytes (internal key + value) of those obsolete versions, with the same interval. */
  obsoleteBytesEstimate: Interval;
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
}

/** A small LRU of open tables. */
class TableCache {
  private open = new Map<string, SstTable>();
  get(path: string): SstTable {
    let t = this.open.get(path);
    if (t) {
      this.open.delete(path);
      this.open.set(path, t);
      return t;
    }
    t = openTable(path);
    this.open.set(path, t);
    if (this.open.size > MAX_OPEN_TABLES) {
      const [oldestPath, oldest] = this.open.entries().next().value as [string, SstTable];
      oldest.close();
      this.open.delete(oldestPath);
    }
    return t;
  }
  closeAll(): void {
    for (const t of this.open.values()) t.close();
    this.open.clear();
  }
}

/** Files of a level >= 1 sorted by smallest key, to find the one that may hold a key. */
function sortedByKey(files: SstFileModel[]): SstFileModel[] {
  return [...files].sort((a, b) =>
    a.smallestKey < b.smallestKey ? -1 : a.smallestKey > b.smallestKey ? 1 : 0,
  );
}

/** The file of a sorted, non-overlapping level whose [smallest, largest] holds `hex` (hex order = byte order). */
function fileFor(sorted: SstFileModel[], hex: string): SstFileModel | undefined {
  let lo = 0;
  let hi = sorted.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]!.smallestKey <= hex) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  if (found < 0) return undefined;
  const f = sorted[found]!;
  return hex <= f.largestKey ? f : undefined;
}

const inRange = (f: SstFileModel, hex: string) => f.smallestKey <= hex && hex <= f.largestKey;

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
  const cache = new TableCache();
  const skip = (f: SstFileModel, e: unknown) => {
    if (!m.skippedFiles.some((x) => x.file === f.fileName))
      m.skippedFiles.push({ file: f.fileName, reason: f.present ? (e as Error).message : "missing" });
  };
  // per sampled entry: 1 when it shadows an older version, its weight, and the older version's bytes
  const results: { y: number; w: number; bytes: number }[] = [];
  try {
    // 1-2: draw the sample
    let sample: Sampled[];
    if (m.bytesAboveBottom <= (opts.scanLimitBytes ?? DEFAULT_OVERLAY_SCAN_LIMIT)) {
      sample = scanSample(upper, cache, sampleSize, random, m, skip);
    } else {
      m.sampling = "blocks";
      sample = blockSample(upper, cache, sampleSize, random, m, skip);
    }

    // 3: look each sampled key up below its own position
    const l0 = (levels.find((l) => l.level === 0)?.files ?? [])
      .slice()
      .sort((a, b) => tableAge(b) - tableAge(a));
    const deeper = levels
      .filter((l) => l.level > 0)
      .map((l) => ({ level: l.level, files: sortedByKey(l.files) }));
    for (const s of sample) {
      const hex = toHex(s.key);
      const candidates: SstFileModel[] = [];
      if (s.level === 0) for (const f of l0) if (f !== s.file && inRange(f, hex)) candidates.push(f);
      for (const d of deeper) {
        if (d.level <= s.level) continue;
        const f = fileFor(d.files, hex);
        if (f) candidates.push(f);
      }
      let older: { bytes: number } | undefined;
      let unreadable = false;
      for (const f of candidates) {
        let r;
        try {
          if (!f.present) throw new Error("missing");
          const t = cache.get(f.path);
          m.lookups.tablesConsulted++;
          r = t.get(s.key);
        } catch (e) {
          unreadable = true;
          skip(f, e);
          continue;
        }
        if (r.filterRejected) m.lookups.filterRejections++;
        m.lookups.dataBlocksRead += r.stats.dataBlocksRead;
        if (r.found && r.seqno !== undefined && r.seqno < s.seqno) {
          older = { bytes: s.key.length + 8 + (r.value?.length ?? 0) };
          break;
        }
      }
      if (!older && unreadable) {
        m.unresolved++;
        continue;
      }
      m.sampled++;
      if (older) m.sampledShadowing++;
      results.push({ y: older ? 1 : 0, w: s.weight, bytes: older?.bytes ?? 0 });
    }
  } finally {
    cache.closeAll();
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
  const w = wilsonInterval(m.sampledShadowing, n);
  if (m.sampling === "scan") {
    share = n > 0 ? m.sampledShadowing / n : 0;
    low = w.low;
    high = w.high;
  } else {
    const r = ratioInterval(results);
    share = r.share;
    low = Math.min(r.low, w.low);
    high = Math.max(r.high, w.high);
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
        cache.get(f.path).scan(
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
        const p = cache.get(f.path).props;
        const blocks = p.numDataBlocks ?? 0;
        const entries = (p.numEntries ?? 0) - (p.numRangeDeletions ?? 0);
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
      const t = cache.get(x.f.path);
      let i = 0;
      let w = 0;
      for (const ie of t.iterateIndex()) {
        while (w < wanted.length && wanted[w] === i) {
          const c = t.readDataBlock(ie.handle).cursor();
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
    } catch (e) {
      skip(x.f, e);
    }
  }
  return out;
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
