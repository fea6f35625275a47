/**
 * Level layout of a column family: files and bytes per level, how much sits above the bottom level, the
 * L0 file count against the compaction trigger, blob files and their garbage. Pure, over the datadir model.
 *
 * The one placement flag raised here (`small-files-above-bottom`) describes a state leveled compaction
 * leaves alone: data in the bottom level, a few files in L0 and nothing in the levels between, with fewer
 * L0 files than `level0_file_num_compaction_trigger`. Nothing merges those files down until more flushes
 * arrive, so every read checks them first and their keys shadow older copies below (what a benchmark
 * "pre-run" leaves behind). An LSM whose intermediate levels hold data is in its normal shape: the share
 * above the bottom is reported, not flagged. Without OPTIONS (LevelDB) the trigger is unknown and the
 * state is reported as info.
 */
import type { ColumnFamilyModel, InstanceModel, SstFileModel } from "../datadir/model.js";
import { placementSplit, tableEntries, type Placement } from "../datadir/placement.js";

export interface LevelLayout {
  level: number;
  files: number;
  /** Sum of MANIFEST file sizes. */
  bytes: number;
  /** bytes / CF bytes (0 when the CF is empty). */
  shareOfBytes: number;
  minFileBytes?: number;
  maxFileBytes?: number;
  meanFileBytes?: number;
  /**
   * The level's table entries, as the column family's `totals.entries` counts them (tableEntries,
   * src/datadir/placement.ts: properties, else the entries `--deep` counted); undefined when a table's
   * count is unknown (one unreadable table makes the level's unknown, never a partial sum), or the level
   * holds no table.
   */
  entries?: number;
  /** Files known to carry a filter / none / unknown (details not read). */
  filteredFiles: number;
  unfilteredFiles: number;
  unfilteredBytes: number;
  unknownFilterFiles: number;
  /** Oldest and newest file creation time (unix seconds) from the MANIFEST, when recorded. */
  oldestCreation?: number;
  newestCreation?: number;
}

/** Blob files (README glossary: blob file bytes, blob record bytes). */
export interface BlobLayout {
  files: number;
  /** The blob files' sizes on disk. */
  fileBytes: number;
  /** Blob record bytes the MANIFEST counts (total_blob_bytes), and the garbage among them. */
  recordBytes: number;
  blobs: number;
  garbageBlobs: number;
  garbageRecordBytes: number;
  /** garbageRecordBytes / recordBytes (0 when none). */
  garbageShare: number;
  /** Blob files the MANIFEST names but the directory lacks. */
  missing: number;
}

export interface LayoutFlag {
  /** Stable id. Its one-line text is the report layer's (src/report/layout_messages.ts). */
  id:
    | "small-files-above-bottom"
    | "above-bottom"
    | "l0-at-trigger"
    | "l0-pileup"
    | "files-missing"
    | "blob-garbage";
  severity: "info" | "warn" | "error";
  evidence: Record<string, unknown>;
}

export interface CfLayout {
  instance: string;
  cf: string;
  displayName: string;
  levels: LevelLayout[];
  files: number;
  bytes: number;
  /** Bottom level and what sits above it (src/datadir/placement.ts); undefined when the CF holds no table. */
  placement?: Placement;
  /** Entries above the bottom and in it, split as `placement`, counted as `entries` (undefined when unknown). */
  entriesAboveBottom?: number;
  entriesInBottom?: number;
  l0Files: number;
  l0Bytes: number;
  /** level0_file_num_compaction_trigger from OPTIONS. */
  l0Trigger?: number;
  /**
   * L0 table counts at which the engine slows and stops writes: level0_slowdown/stop_writes_trigger from
   * OPTIONS, else the engine's defaults (RocksDB 20 / 36, LevelDB's kL0_SlowdownWritesTrigger 8 /
   * kL0_StopWritesTrigger 12). A store past them was written with compaction held back.
   */
  l0SlowdownTrigger: number;
  l0StopTrigger: number;
  /**
   * Read amplification from the layout: the most tables one point lookup of an absent key consults, i.e.
   * the most L0 tables whose key ranges hold one key plus one table per non-empty level below L0.
   */
  maxFilesPerLookup: number;
  /** SSTs the MANIFEST names that are missing on disk. */
  missingFiles: number;
  blob: BlobLayout;
  /** Writes for this CF still only in live WALs. */
  unflushedWrites: number;
  flags: LayoutFlag[];
}

/**
 * `counted`: entries `--deep` counted in a table without "rocksdb.num.entries" (LevelDB), as the column
 * family's totals take them (src/report/deep.ts), so the level rows and the header agree.
 */
export function cfLayout(
  instance: InstanceModel,
  cf: ColumnFamilyModel,
  counted?: (f: SstFileModel) => number | undefined,
): CfLayout {
  const bytes = cf.levels.reduce((a, l) => a + l.bytes, 0);
  const files = cf.levels.reduce((a, l) => a + l.files.length, 0);
  let missing = 0;
  const levels: LevelLayout[] = cf.levels.map((l) => {
    let min: number | undefined;
    let max: number | undefined;
    let filtered = 0;
    let unfiltered = 0;
    let unfilteredBytes = 0;
    let unknown = 0;
    let oldest: number | undefined;
    let newest: number | undefined;
    for (const f of l.files) {
      if (!f.present) missing++;
      min = min === undefined ? f.fileSize : Math.min(min, f.fileSize);
      max = max === undefined ? f.fileSize : Math.max(max, f.fileSize);
      const d = f.details;
      if (!d || d.filter === undefined) unknown++;
      else if (d.filter.kind === "none") {
        unfiltered++;
        unfilteredBytes += f.fileSize;
      } else filtered++;
      const t = f.fileCreationTime;
      if (t !== undefined && t > 0) {
        oldest = oldest === undefined ? t : Math.min(oldest, t);
        newest = newest === undefined ? t : Math.max(newest, t);
      }
    }
    return {
      level: l.level,
      files: l.files.length,
      bytes: l.bytes,
      shareOfBytes: bytes > 0 ? l.bytes / bytes : 0,
      minFileBytes: min,
      maxFileBytes: max,
      meanFileBytes: l.files.length ? l.bytes / l.files.length : undefined,
      entries: l.files.length > 0 ? (tableEntries([l], counted) ?? undefined) : undefined,
      filteredFiles: filtered,
      unfilteredFiles: unfiltered,
      unfilteredBytes,
      unknownFilterFiles: unknown,
      oldestCreation: oldest,
      newestCreation: newest,
    };
  });
  const split = placementSplit(cf.levels);
  const l0 = levels.find((l) => l.level === 0);
  const leveldb = instance.engine === "leveldb";
  const out: CfLayout = {
    instance: instance.relPath,
    cf: cf.name,
    displayName: cf.displayName,
    levels,
    files,
    bytes,
    placement: split?.placement,
    entriesAboveBottom: (split && tableEntries(split.upper, counted)) ?? undefined,
    entriesInBottom: (split && tableEntries([split.bottom], counted)) ?? undefined,
    l0Files: l0?.files ?? 0,
    l0Bytes: l0?.bytes ?? 0,
    l0Trigger: cf.options?.level0FileNumCompactionTrigger,
    l0SlowdownTrigger: cf.options?.level0SlowdownWritesTrigger ?? (leveldb ? 8 : 20),
    l0StopTrigger: cf.options?.level0StopWritesTrigger ?? (leveldb ? 12 : 36),
    maxFilesPerLookup:
      maxOverlap(cf.levels.find((l) => l.level === 0)?.files ?? []) +
      cf.levels.filter((l) => l.level > 0 && l.files.length > 0).length,
    missingFiles: missing,
    blob: {
      files: cf.blobFiles.length,
      fileBytes: cf.totals.blobFileBytes,
      recordBytes: cf.totals.blobRecordBytes,
      blobs: cf.blobFiles.reduce((a, b) => a + b.totalBlobCount, 0),
      garbageBlobs: cf.blobFiles.reduce((a, b) => a + b.garbageBlobCount, 0),
      garbageRecordBytes: cf.totals.blobGarbageRecordBytes,
      garbageShare:
        cf.totals.blobRecordBytes > 0 ? cf.totals.blobGarbageRecordBytes / cf.totals.blobRecordBytes : 0,
      missing: cf.blobFiles.filter((b) => !b.present).length,
    },
    unflushedWrites: cf.totals.unflushedWrites,
    flags: [],
  };
  out.flags = layoutFlags(out);
  return out;
}

/**
 * The most key ranges [smallest, largest] (hex user keys: hex order = byte order) that hold one key:
 * the starts and the ends sorted apart (the default sort, natively, without a comparator called per
 * pair: 4,354 L0 tables took ~7 ms as one sort of [key, +1/-1] pairs, ~2 ms so), then merged.
 */
export function maxOverlap(files: readonly { smallestKey: string; largestKey: string }[]): number {
  const n = files.length;
  const starts: string[] = new Array<string>(n);
  const ends: string[] = new Array<string>(n);
  for (let i = 0; i < n; i++) {
    starts[i] = files[i]!.smallestKey;
    ends[i] = files[i]!.largestKey;
  }
  // the default order is UTF-16 code units', as `<` compares strings
  starts.sort();
  ends.sort();
  let depth = 0;
  let max = 0;
  let closed = 0;
  for (let i = 0; i < n; i++) {
    // ranges are closed: one that ends at this start still holds it
    while (closed < n && ends[closed]! < starts[i]!) {
      closed++;
      depth--;
    }
    if (++depth > max) max = depth;
  }
  return max;
}

/**
 * Severity of an L0 pile-up by the read amplification it imposes (the most tables one lookup consults,
 * from the layout or as `probe` measured it): an error at the write-stop trigger's count (past it the
 * engine refuses writes: compaction was held back), a warning at the slowdown trigger's, info below
 * (many L0 tables whose key ranges barely overlap cost a lookup little).
 */
export function pileupSeverity(
  maxFilesPerLookup: number,
  c: Pick<CfLayout, "l0SlowdownTrigger" | "l0StopTrigger">,
): LayoutFlag["severity"] {
  if (maxFilesPerLookup >= c.l0StopTrigger) return "error";
  return maxFilesPerLookup >= c.l0SlowdownTrigger ? "warn" : "info";
}

function layoutFlags(c: CfLayout): LayoutFlag[] {
  const flags: LayoutFlag[] = [];
  const p = c.placement;
  if (c.missingFiles > 0)
    flags.push({
      id: "files-missing",
      severity: "error",
      evidence: { missingFiles: c.missingFiles, files: c.files },
    });
  if (p && p.filesAboveBottom > 0) {
    const bottom = p.bottomLevel;
    const middle = c.levels.filter((l) => l.level > 0 && l.level < bottom && l.files > 0);
    const evidence: Record<string, unknown> = { ...p, l0Files: c.l0Files };
    if (c.entriesAboveBottom !== undefined) evidence.entriesAboveBottom = c.entriesAboveBottom;
    if (c.entriesInBottom !== undefined) evidence.entriesInBottom = c.entriesInBottom;
    if (c.l0Trigger !== undefined) evidence.l0Trigger = c.l0Trigger;
    if (middle.length === 0 && c.l0Files > 0 && c.l0Trigger !== undefined && c.l0Files < c.l0Trigger) {
      flags.push({
        id: "small-files-above-bottom",
        severity: "warn",
        evidence,
      });
    } else {
      flags.push({
        id: "above-bottom",
        severity: "info",
        evidence,
      });
    }
  }
  const l0Evidence = {
    l0Files: c.l0Files,
    maxFilesPerLookup: c.maxFilesPerLookup,
    l0Trigger: c.l0Trigger ?? null,
    l0SlowdownTrigger: c.l0SlowdownTrigger,
    l0StopTrigger: c.l0StopTrigger,
  };
  if (c.l0Files >= c.l0SlowdownTrigger)
    flags.push({
      id: "l0-pileup",
      severity: pileupSeverity(c.maxFilesPerLookup, c),
      evidence: l0Evidence,
    });
  else if (c.l0Trigger !== undefined && c.l0Files >= c.l0Trigger)
    flags.push({
      id: "l0-at-trigger",
      severity: "info",
      evidence: l0Evidence,
    });
  if (c.blob.files > 0 && c.blob.garbageRecordBytes > 0)
    flags.push({
      id: "blob-garbage",
      severity: "info",
      evidence: {
        blobGarbageRecordBytes: c.blob.garbageRecordBytes,
        blobRecordBytes: c.blob.recordBytes,
        blobFiles: c.blob.files,
      },
    });
  return flags;
}
