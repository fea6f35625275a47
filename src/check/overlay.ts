/**
 * Placement overlay, measured: how much of a column family sits above its bottom level, and how many of
 * the entries up there shadow an older version of the same key further down (obsolete entries that a
 * bottommost compaction would drop).
 *
 * Method (no engine, read-only, through the SST reader):
 *  1. bottom level = the deepest level holding files; "above" = every file in a shallower level.
 *  2. Scan every point entry of the files above (cheap next to the lookups: upper levels are the small
 *     part of an LSM) and keep a uniform reservoir sample of `sample` entries; when there are no more
 *     entries than that, every entry is checked and the count is exact.
 *  3. For each sampled entry (user key k, sequence s, level L) look k up below the entry the way a Get
 *     walks the LSM: older L0 files (L = 0 only), then in each deeper level the one file whose key range
 *     holds k (its own filter first, then index and data block). The entry shadows an older version when
 *     some file below holds k with a sequence number < s. Counting entries that have an older version
 *     below counts obsolete versions exactly once each (every non-oldest version of a key is one entry).
 *  4. shadowedEntriesEstimate = share × entries above bottom, with a 95% Wilson interval on the share;
 *     obsolete bytes = mean (internal key + value) bytes of the shadowed versions found × the estimate.
 * Not counted: several versions of one key inside the same file (only snapshots keep those), range
 * deletions, and what the WAL holds (see wal-unflushed).
 */
import type { ColumnFamilyModel, InstanceModel, SstFileModel } from "../datadir/model.js";
import { openTable, type SstTable } from "../format/table.js";
import { toHex } from "../util/bytes.js";
import { Reservoir, seededRandom, wilsonInterval } from "./stats.js";

export const DEFAULT_OVERLAY_SAMPLE = 4000;
/** Tables kept open at once during lookups (bounded file descriptors). */
const MAX_OPEN_TABLES = 256;

export interface Interval {
  value: number;
  low: number;
  high: number;
}

export interface OverlayMeasurement {
  bottomLevel: number;
  filesAboveBottom: number;
  bytesAboveBottom: number;
  filesInBottom: number;
  bytesInBottom: number;
  /** Files and bytes per non-empty level. */
  perLevel: { level: number; files: number; bytes: number }[];
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
  /** Obsolete entries (older versions shadowed from above), with a 95% interval. */
  shadowedEntriesEstimate: Interval & { confidence: number; method: "exact" | "wilson" };
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
const fileAge = (f: SstFileModel) => f.largestSeqno ?? f.fileNumber;

/** Measure the overlay of one column family (reads the files; writes nothing). */
export function measureOverlay(
  _instance: InstanceModel,
  cf: ColumnFamilyModel,
  opts: { sample?: number; seed?: number } = {},
): OverlayMeasurement | undefined {
  const levels = cf.levels.filter((l) => l.files.length > 0);
  if (levels.length === 0) return undefined;
  const bottomLevel = Math.max(...levels.map((l) => l.level));
  const bottom = levels.find((l) => l.level === bottomLevel)!;
  const upper = levels.filter((l) => l.level < bottomLevel);
  const m: OverlayMeasurement = {
    bottomLevel,
    filesAboveBottom: upper.reduce((s, l) => s + l.files.length, 0),
    bytesAboveBottom: upper.reduce((s, l) => s + l.bytes, 0),
    filesInBottom: bottom.files.length,
    bytesInBottom: bottom.bytes,
    perLevel: levels.map((l) => ({ level: l.level, files: l.files.length, bytes: l.bytes })),
    entriesAboveBottom: 0,
    sampled: 0,
    unresolved: 0,
    sampledShadowing: 0,
    exhaustive: true,
    shadowedEntriesEstimate: { value: 0, low: 0, high: 0, confidence: 0.95, method: "exact" },
    obsoleteBytesEstimate: { value: 0, low: 0, high: 0 },
    lookups: { tablesConsulted: 0, filterRejections: 0, dataBlocksRead: 0 },
    skippedFiles: [],
  };
  const bottomEntries = bottom.files.map((f) => f.details?.numEntries);
  if (bottomEntries.every((n) => n !== undefined))
    m.entriesInBottom = bottomEntries.reduce((s, n) => s! + n!, 0);
  if (upper.length === 0) return m;

  const cache = new TableCache();
  let shadowBytes = 0;
  try {
    // 1-2: scan the files above the bottom, reservoir-sample their point entries
    const reservoir = new Reservoir<Sampled>(
      opts.sample ?? DEFAULT_OVERLAY_SAMPLE,
      seededRandom(opts.seed ?? 1),
    );
    for (const lv of upper)
      for (const f of lv.files) {
        if (!f.present) {
          m.skippedFiles.push({ file: f.fileName, reason: "missing" });
          continue;
        }
        try {
          const t = cache.get(f.path);
          t.scan(
            (e) => {
              m.entriesAboveBottom++;
              const slot = reservoir.slotFor();
              if (slot >= 0)
                reservoir.put(slot, { key: e.userKeyCopy(), seqno: e.seqno, level: lv.level, file: f });
            },
            { rangeDeletions: false },
          );
        } catch (e) {
          m.skippedFiles.push({ file: f.fileName, reason: (e as Error).message });
        }
      }

    // 3: look each sampled key up below its own position
    const l0 = (levels.find((l) => l.level === 0)?.files ?? [])
      .slice()
      .sort((a, b) => fileAge(b) - fileAge(a));
    const deeper = levels
      .filter((l) => l.level > 0)
      .map((l) => ({ level: l.level, files: sortedByKey(l.files) }));
    for (const s of reservoir.items) {
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
          if (!m.skippedFiles.some((x) => x.file === f.fileName))
            m.skippedFiles.push({ file: f.fileName, reason: (e as Error).message });
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
      if (older) {
        m.sampledShadowing++;
        shadowBytes += older.bytes;
      }
    }
  } finally {
    cache.closeAll();
  }

  // 4: scale the sampled share to every entry above the bottom
  const n = m.sampled;
  const N = m.entriesAboveBottom;
  m.exhaustive = n === N && m.unresolved === 0;
  const meanBytes = m.sampledShadowing > 0 ? shadowBytes / m.sampledShadowing : 0;
  if (m.exhaustive) {
    m.shadowedEntriesEstimate = {
      value: m.sampledShadowing,
      low: m.sampledShadowing,
      high: m.sampledShadowing,
      confidence: 1,
      method: "exact",
    };
    m.obsoleteBytesEstimate = { value: shadowBytes, low: shadowBytes, high: shadowBytes };
  } else {
    const w = wilsonInterval(m.sampledShadowing, n);
    const value = n > 0 ? Math.round((m.sampledShadowing / n) * N) : 0;
    m.shadowedEntriesEstimate = {
      value,
      low: Math.floor(w.low * N),
      high: Math.ceil(w.high * N),
      confidence: 0.95,
      method: "wilson",
    };
    m.obsoleteBytesEstimate = {
      value: Math.round(value * meanBytes),
      low: Math.round(Math.floor(w.low * N) * meanBytes),
      high: Math.round(Math.ceil(w.high * N) * meanBytes),
    };
  }
  return m;
}
