/**
 * CURRENT → MANIFEST → the current version of every column family, replayed the way RocksDB's
 * recovery does (db/version_edit_handler.cc, db/version_builder.cc): edits apply in order to their
 * column family; an atomic group (kInAtomicGroup) applies only once complete; blob files are kept when
 * some live SST links to them or they still hold live blobs, and only from the oldest blob file that a
 * live SST references. See manifest_format.md.
 *
 *   CURRENT  : "MANIFEST-<number>\n" (the newline is required; RocksDB writes it via a temp file)
 *   MANIFEST : a log file (log_reader.ts) whose records are VersionEdits (version_edit.ts)
 */
import { statSync } from "node:fs";
import { FileTooLargeError, readRegularFileUpTo } from "../util/regular_file.js";
import { join } from "node:path";
import { scanLogFile } from "./log_reader.js";
import {
  decodeVersionEdit,
  EditDecodeError,
  type BlobFileAdditionEntry,
  type NewFileEntry,
  type PebbleBlobFile,
  type VersionEdit,
} from "./version_edit.js";
import { INTERNAL_KEY_TRAILER, type InternalKey } from "../base/internal_key.js";
import { decodePebbleVersionEdit } from "./pebble_version_edit.js";
import type { Finding, ManifestSummary } from "./model.js";
import { LIMITS } from "../util/limits.js";
import { EDIT_KEYS, packKeys } from "./key_arena.js";

export interface ReplayedBlobFile extends BlobFileAdditionEntry {
  garbageBlobCount: number;
  garbageBlobBytes: number;
}

export interface ReplayedColumnFamily {
  id: number;
  name: Uint8Array;
  comparator?: string;
  logNumber: number;
  /** Live files by file number. */
  files: Map<number, NewFileEntry>;
  blobFiles: Map<number, ReplayedBlobFile>;
  fullHistoryTsLow?: string;
}

export interface ManifestReplay {
  summary: ManifestSummary;
  columnFamilies: ReplayedColumnFamily[];
  findings: Finding[];
  /** False when the MANIFEST could not be read to its end (beyond a torn tail). */
  complete: boolean;
  /** Only LevelDB tags seen (no column families, no NewFile2+): a LevelDB MANIFEST, or an empty RocksDB one. */
  levelDbStyle: boolean;
  /** Pebble: live blob files (value separation) by blob file id. */
  pebbleBlobFiles: Map<number, PebbleBlobFile>;
}

export interface CurrentFile {
  manifestName: string;
  manifestNumber: number;
}

/** Read and validate CURRENT. Returns a finding instead when it is unusable. */
export function readCurrent(dir: string): CurrentFile | Finding {
  const path = join(dir, "CURRENT");
  let text: string;
  try {
    text = readRegularFileUpTo(path, LIMITS.maxTextFileBytes, "latin1");
  } catch (e) {
    if (e instanceof FileTooLargeError)
      return { severity: "error", code: "current-bad", file: path, message: `CURRENT is ${e.size} bytes` };
    return {
      severity: "error",
      code: "current-unreadable",
      file: path,
      message: `cannot read CURRENT: ${(e as Error).message}`,
    };
  }
  const m = /^(MANIFEST-(\d+))\n?$/.exec(text);
  if (!m)
    return {
      severity: "error",
      code: "current-bad",
      file: path,
      offset: 0,
      message: `CURRENT does not name a MANIFEST: ${JSON.stringify(text.slice(0, 60))}`,
    };
  return { manifestName: m[1]!, manifestNumber: Number(m[2]) };
}

/** RocksDB has no hard cap on num_levels; anything near this is a corrupt or hostile edit. */
const MAX_LEVEL = 1000;
/** An edit that marks no table for compaction (most): no array made per edit for it. */
const NONE_MARKED: readonly { level: number; fileNumber: number }[] = [];

/** Key bytes the decoders may hand out beyond twice the live keys' before those are packed. */
const PACK_AFTER_BYTES = 4 * 1024 * 1024;

class Replayer {
  readonly cfs = new Map<number, ReplayedColumnFamily>();
  readonly findings: Finding[] = [];
  readonly summary: ManifestSummary;
  private readonly trackedWals = new Map<number, { logNumber: number; syncedSize?: number }>();
  private dropped = 0;
  /** Bytes of the live keys at their last packing (packKeysWhenDue). */
  private packedBytes = 0;
  isLevelDb = true;
  /** Which of the entries recovery requires some edit carried (VersionEditHandler::CheckIterationResult). */
  readonly seen = { nextFileNumber: false, logNumber: false, lastSequence: false };
  readonly pebbleBlobFiles = new Map<number, PebbleBlobFile>();

  constructor(
    private readonly path: string,
    file: string,
    size: number,
  ) {
    this.summary = {
      file,
      path,
      size,
      records: 0,
      edits: 0,
      logNumber: 0,
      prevLogNumber: 0,
      nextFileNumber: 0,
      lastSequence: 0,
      maxColumnFamily: 0,
      minLogNumberToKeep: 0,
      trackedWals: [],
      droppedColumnFamilies: 0,
    };
    // the default column family exists from the start (ID 0)
    this.cfs.set(0, this.newCf(0, Buffer.from("default")));
  }

  private newCf(id: number, name: Uint8Array): ReplayedColumnFamily {
    return { id, name, logNumber: 0, files: new Map(), blobFiles: new Map() };
  }

  private finding(severity: Finding["severity"], code: string, offset: number, message: string): void {
    this.findings.push({ severity, code, file: this.path, offset, message });
  }

  apply(edit: VersionEdit, offset: number): void {
    this.summary.edits++;
    const s = this.summary;
    if (edit.nextFileNumber !== undefined) this.seen.nextFileNumber = true;
    if (edit.logNumber !== undefined) this.seen.logNumber = true;
    if (edit.lastSequence !== undefined) this.seen.lastSequence = true;
    if (edit.dbId !== undefined) s.dbId = edit.dbId;
    if (edit.prevLogNumber !== undefined) s.prevLogNumber = edit.prevLogNumber;
    if (edit.nextFileNumber !== undefined) s.nextFileNumber = edit.nextFileNumber;
    if (edit.lastSequence !== undefined) s.lastSequence = edit.lastSequence;
    if (edit.maxColumnFamily !== undefined)
      s.maxColumnFamily = Math.max(s.maxColumnFamily, edit.maxColumnFamily);
    if (edit.minLogNumberToKeep !== undefined)
      s.minLogNumberToKeep = Math.max(s.minLogNumberToKeep, edit.minLogNumberToKeep);
    // indexed loops over the edit's lists, most of them empty: thousands of edits are applied before
    // V8 optimises this, and each for-of made an iterator (and a result per element) there
    const walAdditions = edit.walAdditions;
    for (let i = 0; i < walAdditions.length; i++)
      this.trackedWals.set(walAdditions[i]!.logNumber, walAdditions[i]!);
    const deletedBlobs = edit.deletedBlobFiles;
    if (deletedBlobs)
      for (let i = 0; i < deletedBlobs.length; i++) this.pebbleBlobFiles.delete(deletedBlobs[i]!.blobFileId);
    const newBlobs = edit.newBlobFiles;
    if (newBlobs)
      for (let i = 0; i < newBlobs.length; i++)
        this.pebbleBlobFiles.set(newBlobs[i]!.blobFileId, newBlobs[i]!);
    const walDeletions = edit.walDeletions;
    for (let i = 0; i < walDeletions.length; i++)
      for (const n of [...this.trackedWals.keys()]) if (n < walDeletions[i]!) this.trackedWals.delete(n);

    if (edit.columnFamilyAdd !== undefined) {
      if (this.cfs.has(edit.columnFamily)) {
        this.finding("error", "manifest-cf", offset, `column family ${edit.columnFamily} added twice`);
        return;
      }
      this.isLevelDb = false;
      const cf = this.newCf(edit.columnFamily, edit.columnFamilyAdd);
      this.cfs.set(edit.columnFamily, cf);
      s.maxColumnFamily = Math.max(s.maxColumnFamily, edit.columnFamily);
      if (edit.comparator !== undefined) cf.comparator = edit.comparator;
      if (edit.logNumber !== undefined) cf.logNumber = edit.logNumber;
      return;
    }
    const cf = this.cfs.get(edit.columnFamily);
    if (!cf) {
      this.finding(
        "error",
        "manifest-cf",
        offset,
        `edit for column family ${edit.columnFamily} that does not exist (or was dropped)`,
      );
      return;
    }
    if (edit.columnFamilyDrop) {
      this.cfs.delete(edit.columnFamily);
      this.dropped++;
      return;
    }
    if (edit.comparator !== undefined) {
      if (cf.comparator !== undefined && cf.comparator !== edit.comparator)
        this.finding(
          "warn",
          "manifest-comparator",
          offset,
          `comparator changes from ${cf.comparator} to ${edit.comparator}`,
        );
      cf.comparator = edit.comparator;
    }
    if (edit.logNumber !== undefined) {
      cf.logNumber = edit.logNumber;
      if (edit.columnFamily === 0) s.logNumber = edit.logNumber;
    }
    if (edit.fullHistoryTsLow !== undefined) cf.fullHistoryTsLow = edit.fullHistoryTsLow;
    const deletedFiles = edit.deletedFiles;
    for (let i = 0; i < deletedFiles.length; i++) {
      const d = deletedFiles[i]!;
      const f = cf.files.get(d.fileNumber);
      if (!f || f.level !== d.level) {
        this.finding(
          "error",
          "manifest-delete-missing",
          offset,
          `edit deletes file ${d.fileNumber} from level ${d.level} of column family ${cf.id}, which is not there`,
        );
        continue;
      }
      cf.files.delete(d.fileNumber);
    }
    const newFiles = edit.newFiles;
    for (let i = 0; i < newFiles.length; i++) {
      const f = newFiles[i]!;
      if (f.level > MAX_LEVEL) {
        this.finding(
          "error",
          "manifest-level",
          offset,
          `file ${f.fileNumber} on level ${f.level} (> ${MAX_LEVEL}); ignored`,
        );
        continue;
      }
      if (f.tag !== 7) this.isLevelDb = false;
      if (cf.files.has(f.fileNumber) && !edit.deletedFiles.some((d) => d.fileNumber === f.fileNumber))
        this.finding("warn", "manifest-dup-file", offset, `file ${f.fileNumber} added twice`);
      cf.files.set(f.fileNumber, f);
    }
    const marked = edit.tablesMarkedForCompaction ?? NONE_MARKED;
    for (let i = 0; i < marked.length; i++) {
      const m = marked[i]!;
      const f = cf.files.get(m.fileNumber);
      if (f?.level === m.level) cf.files.set(m.fileNumber, { ...f, markedForCompaction: true });
      else
        this.finding(
          "warn",
          "manifest-mark-missing",
          offset,
          `edit marks table ${m.fileNumber} on level ${m.level} for compaction, which is not there`,
        );
    }
    this.packKeysWhenDue();
    const blobAdditions = edit.blobFileAdditions;
    for (let i = 0; i < blobAdditions.length; i++) {
      const b = blobAdditions[i]!;
      if (cf.blobFiles.has(b.blobFileNumber))
        this.finding("error", "manifest-blob", offset, `blob file ${b.blobFileNumber} added twice`);
      cf.blobFiles.set(b.blobFileNumber, { ...b, garbageBlobCount: 0, garbageBlobBytes: 0 });
    }
    const blobGarbage = edit.blobFileGarbage;
    for (let i = 0; i < blobGarbage.length; i++) {
      const g = blobGarbage[i]!;
      const b = cf.blobFiles.get(g.blobFileNumber);
      if (!b) {
        this.finding(
          "error",
          "manifest-blob",
          offset,
          `garbage recorded for unknown blob file ${g.blobFileNumber}`,
        );
        continue;
      }
      b.garbageBlobCount += g.garbageBlobCount;
      b.garbageBlobBytes += g.garbageBlobBytes;
      if (b.garbageBlobCount > b.totalBlobCount)
        this.finding(
          "warn",
          "manifest-blob",
          offset,
          `blob file ${g.blobFileNumber}: garbage count ${b.garbageBlobCount} exceeds total ${b.totalBlobCount}`,
        );
    }
  }

  /**
   * Live files' keys into one buffer each time the decoders have handed out twice their bytes (and a
   * few MiB) since the last packing, so the chunks of files compacted away can go (key_arena.ts).
   */
  private packKeysWhenDue(): void {
    if (EDIT_KEYS.handedOut < PACK_AFTER_BYTES + 2 * this.packedBytes) return;
    this.packLiveKeys();
  }

  /** Every live file's boundary keys copied into one buffer of their exact size. */
  private packLiveKeys(): void {
    const files = [...this.cfs.values()].flatMap((cf) => [...cf.files.values()]);
    const keys: InternalKey[] = [];
    for (const f of files) {
      keys.push(f.smallest, f.largest);
      if (f.rangeKeyBounds) keys.push(f.rangeKeyBounds.smallest, f.rangeKeyBounds.largest);
    }
    const packed = packKeys(keys);
    let i = 0;
    for (const f of files) {
      f.smallest = packed[i++]!;
      f.largest = packed[i++]!;
      if (f.rangeKeyBounds) f.rangeKeyBounds = { smallest: packed[i++]!, largest: packed[i++]! };
    }
    this.packedBytes = packed.reduce((sum, k) => sum + k.userKey.byteLength + INTERNAL_KEY_TRAILER, 0);
    EDIT_KEYS.handedOut = 0;
  }

  finish(): void {
    this.packKeysWhenDue();
    const s = this.summary;
    s.trackedWals = [...this.trackedWals.values()].sort((a, b) => a.logNumber - b.logNumber);
    s.droppedColumnFamilies = this.dropped;
    // LevelDB has one log number; RocksDB's DB-wide log number is the smallest over the CFs
    if (!this.isLevelDb && this.cfs.size > 0)
      s.logNumber = Math.min(...[...this.cfs.values()].map((c) => c.logNumber));
    s.comparator = this.cfs.get(0)?.comparator;
    for (const cf of this.cfs.values()) pruneBlobFiles(cf);
  }
}

/** Keep only the blob files RocksDB's VersionBuilder::SaveBlobFilesTo keeps. */
function pruneBlobFiles(cf: ReplayedColumnFamily): void {
  const linked = new Map<number, number>();
  let minOldest = 0;
  for (const f of cf.files.values()) {
    const o = f.oldestBlobFileNumber ?? 0;
    if (o === 0) continue;
    linked.set(o, (linked.get(o) ?? 0) + 1);
    if (minOldest === 0 || o < minOldest) minOldest = o;
  }
  for (const [num, b] of [...cf.blobFiles]) {
    const keep =
      minOldest !== 0 && num >= minOldest && (linked.has(num) || b.garbageBlobCount < b.totalBlobCount);
    if (!keep) cf.blobFiles.delete(num);
  }
}

/**
 * Replay a MANIFEST file into the current version per column family. Never throws on bad content.
 * `pebble`: the edits are Pebble's (pebble_version_edit.ts); Pebble has one keyspace, column family 0.
 */
export function replayManifest(path: string, file: string, opts: { pebble?: boolean } = {}): ManifestReplay {
  const decode = opts.pebble ? decodePebbleVersionEdit : decodeVersionEdit;
  const size = statSync(path).size;
  const r = new Replayer(path, file, size);
  let complete = true;
  // atomic group: edits buffered until the group's last edit
  let group:
    { edits: { edit: VersionEdit; offset: number }[]; remaining: number; offset: number } | undefined;
  let stopped = false;

  const scan = scanLogFile(path, (rec) => {
    if (stopped) return;
    r.summary.records++;
    let edit: VersionEdit;
    try {
      edit = decode(rec.data);
    } catch (e) {
      const at = e instanceof EditDecodeError ? e.at : 0;
      r.findings.push({
        severity: "error",
        code: "manifest-corrupt",
        file: path,
        offset: rec.offset,
        message: `VersionEdit record undecodable at byte ${at} of the record: ${(e as Error).message}; replay stopped here`,
      });
      complete = false;
      stopped = true; // RocksDB refuses the MANIFEST from here; the version so far is what we show
      return;
    }
    if (edit.atomicGroupRemaining !== undefined) {
      if (!group) group = { edits: [], remaining: edit.atomicGroupRemaining, offset: rec.offset };
      else if (edit.atomicGroupRemaining !== group.remaining - 1) {
        r.findings.push({
          severity: "error",
          code: "manifest-atomic-group",
          file: path,
          offset: rec.offset,
          message: `atomic group count jumps from ${group.remaining} to ${edit.atomicGroupRemaining}`,
        });
        group.remaining = edit.atomicGroupRemaining;
      } else group.remaining = edit.atomicGroupRemaining;
      group.edits.push({ edit, offset: rec.offset });
      if (group.remaining === 0) {
        for (const g of group.edits) r.apply(g.edit, g.offset);
        group = undefined;
      }
      return;
    }
    if (group) {
      r.findings.push({
        severity: "error",
        code: "manifest-atomic-group",
        file: path,
        offset: group.offset,
        message: `atomic group of ${group.edits.length} edits interrupted by an edit outside it; group ignored`,
      });
      group = undefined;
    }
    r.apply(edit, rec.offset);
  });

  if (group) {
    r.findings.push({
      severity: "warn",
      code: "manifest-atomic-group",
      file: path,
      offset: group.offset,
      message: `MANIFEST ends inside an atomic group (${group.edits.length} edits, ${group.remaining} missing); ignored as RocksDB does`,
    });
  }
  for (const issue of scan.issues) {
    if ((issue.kind === "torn-tail" && !issue.badChecksum) || issue.kind === "zero-tail") {
      if (issue.kind === "torn-tail") r.summary.tornTailAt = issue.offset;
      r.findings.push({
        severity: "info",
        code: issue.kind === "torn-tail" ? "manifest-torn-tail" : "manifest-zero-tail",
        file: path,
        offset: issue.offset,
        message: `${issue.message} (${issue.bytes} bytes ignored)`,
      });
    } else {
      complete = false;
      r.findings.push({
        severity: "error",
        code: "manifest-corrupt",
        file: path,
        offset: issue.offset,
        message: `${issue.message} (${issue.bytes} bytes skipped)`,
      });
    }
  }
  // RocksDB (and LevelDB) refuse a MANIFEST whose edits never set these: the version is not whole
  const missing = [
    !r.seen.nextFileNumber && "next file number",
    !r.seen.logNumber && "log number",
    !r.seen.lastSequence && "last sequence number",
  ].filter((x): x is string => typeof x === "string");
  if (r.summary.edits > 0 && missing.length > 0) {
    complete = false;
    r.findings.push({
      severity: "error",
      code: "manifest-corrupt",
      file: path,
      offset: r.summary.tornTailAt ?? r.summary.size,
      message: `no ${missing.join(", no ")} entry in the MANIFEST's edits (RocksDB refuses to recover from it)`,
    });
  }
  if (r.summary.edits === 0) {
    complete = false;
    r.findings.push({
      severity: "error",
      code: "manifest-empty",
      file: path,
      offset: 0,
      message: "MANIFEST holds no readable VersionEdit",
    });
  }
  r.finish();
  return {
    summary: r.summary,
    columnFamilies: [...r.cfs.values()].sort((a, b) => a.id - b.id),
    findings: r.findings,
    complete,
    levelDbStyle: r.isLevelDb,
    pebbleBlobFiles: r.pebbleBlobFiles,
  };
}
