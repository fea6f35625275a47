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
import type { ColumnFamilyModel, InstanceModel } from "../datadir/model.js";

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
  /** Sum of "rocksdb.num.entries" over files with details (undefined when none were read). */
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

export interface BlobLayout {
  files: number;
  bytes: number;
  blobs: number;
  garbageBlobs: number;
  garbageBytes: number;
  /** garbageBytes / bytes (0 when no blob bytes). */
  garbageShare: number;
  /** Blob files the MANIFEST names but the directory lacks. */
  missing: number;
}

export interface LayoutFlag {
  /** Stable id: "small-files-above-bottom", "above-bottom", "l0-at-trigger", "files-missing", "blob-garbage". */
  id: string;
  severity: "info" | "warn" | "error";
  message: string;
  evidence: Record<string, number | string>;
}

export interface CfLayout {
  instance: string;
  cf: string;
  displayName: string;
  levels: LevelLayout[];
  files: number;
  bytes: number;
  /** Deepest non-empty level. */
  bottomLevel?: number;
  filesAboveBottom: number;
  bytesAboveBottom: number;
  /** bytesAboveBottom / bytes. */
  shareAboveBottom: number;
  /** Entries above the bottom and in it (from properties; undefined without details). */
  entriesAboveBottom?: number;
  entriesInBottom?: number;
  l0Files: number;
  l0Bytes: number;
  /** level0_file_num_compaction_trigger from OPTIONS. */
  l0Trigger?: number;
  /** SSTs the MANIFEST names that are missing on disk. */
  missingFiles: number;
  blob: BlobLayout;
  /** Writes for this CF still only in live WALs. */
  unflushedWrites: number;
  flags: LayoutFlag[];
}

const pct = (x: number): string => `${(x * 100).toFixed(x < 0.1 ? 1 : 0)}%`;

export function cfLayout(instance: InstanceModel, cf: ColumnFamilyModel): CfLayout {
  const bytes = cf.levels.reduce((a, l) => a + l.bytes, 0);
  const files = cf.levels.reduce((a, l) => a + l.files.length, 0);
  let bottom: number | undefined;
  for (const l of cf.levels)
    if (l.files.length > 0 && (bottom === undefined || l.level > bottom)) bottom = l.level;
  let missing = 0;
  const levels: LevelLayout[] = cf.levels.map((l) => {
    let min: number | undefined;
    let max: number | undefined;
    let entries: number | undefined;
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
      if (d && d.numEntries !== undefined) entries = (entries ?? 0) + d.numEntries;
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
      entries,
      filteredFiles: filtered,
      unfilteredFiles: unfiltered,
      unfilteredBytes,
      unknownFilterFiles: unknown,
      oldestCreation: oldest,
      newestCreation: newest,
    };
  });
  const above = levels.filter((l) => bottom !== undefined && l.level < bottom);
  const bottomL = levels.find((l) => l.level === bottom);
  const filesAbove = above.reduce((a, l) => a + l.files, 0);
  const bytesAbove = above.reduce((a, l) => a + l.bytes, 0);
  const entriesAbove = above.every((l) => l.files === 0 || l.entries !== undefined)
    ? above.reduce((a, l) => a + (l.entries ?? 0), 0)
    : undefined;
  const l0 = levels.find((l) => l.level === 0);
  const blobBytes = cf.blobFiles.reduce((a, b) => a + b.totalBlobBytes, 0);
  const garbageBytes = cf.blobFiles.reduce((a, b) => a + b.garbageBlobBytes, 0);
  const out: CfLayout = {
    instance: instance.relPath,
    cf: cf.name,
    displayName: cf.displayName,
    levels,
    files,
    bytes,
    bottomLevel: bottom,
    filesAboveBottom: filesAbove,
    bytesAboveBottom: bytesAbove,
    shareAboveBottom: bytes > 0 ? bytesAbove / bytes : 0,
    entriesAboveBottom: entriesAbove,
    entriesInBottom: bottomL?.entries,
    l0Files: l0?.files ?? 0,
    l0Bytes: l0?.bytes ?? 0,
    l0Trigger: cf.options?.level0FileNumCompactionTrigger,
    missingFiles: missing,
    blob: {
      files: cf.blobFiles.length,
      bytes: blobBytes,
      blobs: cf.blobFiles.reduce((a, b) => a + b.totalBlobCount, 0),
      garbageBlobs: cf.blobFiles.reduce((a, b) => a + b.garbageBlobCount, 0),
      garbageBytes,
      garbageShare: blobBytes > 0 ? garbageBytes / blobBytes : 0,
      missing: cf.blobFiles.filter((b) => !b.present).length,
    },
    unflushedWrites: cf.totals.unflushedWrites,
    flags: [],
  };
  out.flags = layoutFlags(out);
  return out;
}

function layoutFlags(c: CfLayout): LayoutFlag[] {
  const flags: LayoutFlag[] = [];
  const bottom = c.bottomLevel;
  if (c.missingFiles > 0)
    flags.push({
      id: "files-missing",
      severity: "error",
      message: `${c.missingFiles} of ${c.files} SSTs named by the MANIFEST are missing on disk`,
      evidence: { missingFiles: c.missingFiles, files: c.files },
    });
  if (bottom !== undefined && c.filesAboveBottom > 0) {
    const middle = c.levels.filter((l) => l.level > 0 && l.level < bottom && l.files > 0);
    const entries =
      c.entriesAboveBottom !== undefined && c.entriesInBottom !== undefined
        ? `, ${c.entriesAboveBottom} entries above vs ${c.entriesInBottom} in L${bottom}`
        : "";
    const evidence: Record<string, number> = {
      filesAboveBottom: c.filesAboveBottom,
      bytesAboveBottom: c.bytesAboveBottom,
      bytesInBottom: c.bytes - c.bytesAboveBottom,
      bottomLevel: bottom,
      l0Files: c.l0Files,
    };
    if (c.entriesAboveBottom !== undefined) evidence.entriesAboveBottom = c.entriesAboveBottom;
    if (c.entriesInBottom !== undefined) evidence.entriesInBottom = c.entriesInBottom;
    if (c.l0Trigger !== undefined) evidence.l0Trigger = c.l0Trigger;
    if (middle.length === 0 && c.l0Files > 0 && c.l0Trigger !== undefined && c.l0Files < c.l0Trigger) {
      flags.push({
        id: "small-files-above-bottom",
        severity: "warn",
        message:
          `${c.l0Files} small ${c.l0Files === 1 ? "file" : "files"} in L0 above L${bottom} ` +
          `(${pct(c.shareAboveBottom)} of the bytes${entries}), nothing between: below the L0 compaction ` +
          `trigger (${c.l0Trigger}) they stay there, every read checks them first and their keys shadow older copies below`,
        evidence,
      });
    } else {
      flags.push({
        id: "above-bottom",
        severity: "info",
        message: `${c.filesAboveBottom} ${c.filesAboveBottom === 1 ? "file" : "files"} (${pct(c.shareAboveBottom)} of the bytes${entries}) above the bottom level L${bottom}`,
        evidence,
      });
    }
  }
  if (c.l0Trigger !== undefined && c.l0Files >= c.l0Trigger)
    flags.push({
      id: "l0-at-trigger",
      severity: "info",
      message: `L0 holds ${c.l0Files} files, at or over its compaction trigger (${c.l0Trigger}): compaction was pending when the store closed`,
      evidence: { l0Files: c.l0Files, l0Trigger: c.l0Trigger },
    });
  if (c.blob.files > 0 && c.blob.garbageBytes > 0)
    flags.push({
      id: "blob-garbage",
      severity: "info",
      message: `blob garbage: ${c.blob.garbageBytes} of ${c.blob.bytes} blob bytes (${pct(c.blob.garbageShare)}) in ${c.blob.files} blob files`,
      evidence: { garbageBytes: c.blob.garbageBytes, blobBytes: c.blob.bytes, blobFiles: c.blob.files },
    });
  return flags;
}
