/**
 * A store's column families from its replayed version: per column family its options, levels of live
 * tables matched with the files on disk, and blob files (each read and checked against the MANIFEST);
 * Pebble's blob files read; the table and blob files on disk the version does not reference.
 */
import { statSync } from "node:fs";
import { join, sep } from "node:path";
import { isPrintableName, toHex } from "../util/bytes.js";
import type { ManifestReplay } from "./manifest.js";
import { optionsForCf } from "./options_file.js";
import { blobFileRefusals, readBlobFile } from "./blob_file.js";
import { pebbleBlobFileModels } from "./pebble_blob_files.js";
import { displayCfName } from "./clients.js";
import { cfNameText } from "./names.js";
import type { NewFileEntry } from "./version_edit.js";
import { VALUE_TYPE_NAMES, type InternalKey } from "../base/internal_key.js";
import { sortLevelFiles } from "../base/level_order.js";
import { isTableFileName, numberedFileName } from "../base/file_names.js";
import type {
  BlobFileModel,
  ColumnFamilyModel,
  DatadirModel,
  Finding,
  InstanceModel,
  InternalKeyInfo,
  LevelModel,
  SstFileModel,
} from "./model.js";
import { plural } from "../util/words.js";
import { sharedString } from "../util/shared_text.js";
import type { DeferredSizes, LiveFiles, StoreRead } from "./store_read.js";

const fileName = numberedFileName;

/** `userKeyHex`: the key's hex when the caller has it (one string for both fields of a table's model). */
function keyInfo(k: InternalKey, userKeyHex = toHex(k.userKey)): InternalKeyInfo {
  return {
    userKey: userKeyHex,
    seqno: k.seqno,
    type: k.type,
    typeName: VALUE_TYPE_NAMES[k.type] ?? `unknown(${k.type})`,
  };
}

/** A file's size by stat, undefined when it cannot be stat'ed (gone). */
export function sizeOf(path: string): number | undefined {
  try {
    return statSync(path).size;
  } catch {
    return undefined;
  }
}

/**
 * `join(dir, name)` for a file name in a store directory (normalised already, as discovery gives it):
 * without join's normalisation, which made ~1 KiB of garbage per table of a store of thousands.
 */
function pathIn(dir: string, name: string): string {
  return dir.endsWith(sep) ? dir + name : dir + sep + name;
}

type ReplayedCf = ManifestReplay["columnFamilies"][number];

/** Levels to show for a CF: its deepest file's, or num_levels from OPTIONS (7 by default), whichever is more. */
function levelCount(inst: InstanceModel, cf: ReplayedCf): number {
  let max = 0;
  for (const f of cf.files.values()) max = Math.max(max, f.level);
  const configured = optionsForCf(inst.options, toHex(cf.name))?.numLevels;
  // LevelDB has 7 levels, RocksDB 7 by default; an absurd num_levels in OPTIONS is not trusted
  const want = configured !== undefined && configured > 0 && configured <= 1000 ? configured : 7;
  return Math.max(max + 1, want);
}

/** One column family of the version: its options, levels of live tables, and blob files. */
export function columnFamily(
  s: StoreRead,
  replay: ManifestReplay,
  rcf: ReplayedCf,
  live: LiveFiles,
): ColumnFamilyModel {
  const { inst, F } = s;
  const nameHex = toHex(rcf.name);
  const printable = isPrintableName(rcf.name);
  const cfOptions = optionsForCf(inst.options, nameHex);
  if (inst.options && !cfOptions)
    F.push({
      severity: "warn",
      code: "options-cf-missing",
      file: inst.options.path,
      message: `OPTIONS file has no section for column family ${printable ? Buffer.from(rcf.name).toString("latin1") : "0x" + nameHex}`,
    });
  const levels: LevelModel[] = [];
  const n = levelCount(inst, rcf);
  for (let l = 0; l < n; l++) levels.push({ level: l, files: [], bytes: 0 });
  for (const f of rcf.files.values()) {
    const m = tableFile(s, f, live);
    while (levels.length <= f.level) levels.push({ level: levels.length, files: [], bytes: 0 });
    levels[f.level]!.files.push(m);
    levels[f.level]!.bytes += f.fileSize;
    live.tables.push(m);
  }
  // in lookup order: L0 newest first, other levels by key (src/base/level_order.ts)
  for (const lv of levels) sortLevelFiles(lv.level, lv.files);
  const blobFiles = cfBlobFiles(s, rcf, live);

  const cfName = cfNameText(rcf.name);
  return {
    id: rcf.id,
    name: cfName,
    nameHex,
    displayName: displayCfName(
      inst.client === "besu" ? "besu" : inst.client === "nethermind" ? "nethermind" : "generic",
      rcf.name,
      inst.clientDetail?.database,
      replay.columnFamilies.length === 1,
    ),
    comparator: rcf.comparator,
    logNumber: rcf.logNumber,
    options: cfOptions,
    levels,
    blobFiles,
    fullHistoryTsLow: rcf.fullHistoryTsLow,
    totals: {
      files: rcf.files.size,
      bytes: levels.reduce((sum, l) => sum + l.bytes, 0),
      blobFiles: blobFiles.length,
      entries: null,
      blobFileBytes: blobFiles.reduce((sum, b) => sum + (b.diskSize ?? 0), 0),
      blobRecordBytes: blobFiles.reduce((sum, b) => sum + b.recordBytes, 0),
      blobGarbageRecordBytes: blobFiles.reduce((sum, b) => sum + b.garbageRecordBytes, 0),
      unflushedWrites: 0,
    },
  };
}

/** A live table as the MANIFEST records it, matched with the file on disk (.sst or .ldb). */
function tableFile(
  { dir, nameSet, inst, F, remote }: StoreRead,
  f: NewFileEntry,
  live: LiveFiles,
): SstFileModel {
  const sstExt = inst.engine === "leveldb" ? ["ldb", "sst"] : ["sst", "ldb"];
  let name: string | undefined;
  let disk: number | undefined;
  if (f.pathId === 0) {
    for (const ext of sstExt) {
      // a Pebble virtual table reads part of its backing table's file
      const cand = fileName(f.virtualBacking ?? f.fileNumber, ext);
      if (nameSet.has(cand)) {
        name = cand;
        break;
      }
    }
  }
  const fname = name ?? fileName(f.virtualBacking ?? f.fileNumber, sstExt[0]!);
  const path = pathIn(dir, fname);
  if (name !== undefined && !live.sizeLater) disk = sizeOf(path);
  live.referencedTables.add(fname);
  const smallestKey = toHex(f.smallest.userKey);
  const largestKey = toHex(f.largest.userKey);
  const m: SstFileModel = {
    fileNumber: f.fileNumber,
    fileName: fname,
    path,
    pathId: f.pathId,
    fileSize: f.fileSize,
    diskSize: disk,
    present: name !== undefined,
    level: f.level,
    smallestKey,
    largestKey,
    smallest: keyInfo(f.smallest, smallestKey),
    largest: keyInfo(f.largest, largestKey),
    smallestSeqno: f.smallestSeqno,
    largestSeqno: f.largestSeqno,
    epochNumber: f.epochNumber,
    oldestBlobFileNumber: f.oldestBlobFileNumber,
    oldestAncesterTime: f.oldestAncesterTime,
    fileCreationTime: f.fileCreationTime,
    fileChecksum: f.fileChecksum,
    fileChecksumFuncName: sharedString(f.fileChecksumFuncName),
    markedForCompaction: f.markedForCompaction,
    temperature: f.temperature,
    tailSize: f.tailSize,
    compensatedRangeDeletionSize: f.compensatedRangeDeletionSize,
    uniqueId: f.uniqueId,
  };
  if (f.virtualBacking !== undefined) m.virtualBacking = f.virtualBacking;
  if (f.rangeKeyBounds)
    m.rangeKeyBounds = {
      smallestKey: toHex(f.rangeKeyBounds.smallest.userKey),
      largestKey: toHex(f.rangeKeyBounds.largest.userKey),
    };
  if (f.blobReferences)
    m.blobReferences = f.blobReferences.map((r) =>
      r.backingValueSize === undefined
        ? { blobFileId: r.blobFileId, valueBytes: r.valueSize }
        : { blobFileId: r.blobFileId, valueBytes: r.valueSize, backingValueBytes: r.backingValueSize },
    );
  if (f.pathId !== 0) {
    F.push({
      severity: "warn",
      code: "sst-other-path",
      file: m.path,
      message: `file ${f.fileNumber} lives on db_paths/cf_paths entry ${f.pathId}; not checked`,
    });
  } else if (!m.present && remote?.objects.has(f.virtualBacking ?? f.fileNumber)) {
    const o = remote.objects.get(f.virtualBacking ?? f.fileNumber)!;
    m.remote =
      o.customName === undefined ? { locator: o.locator } : { locator: o.locator, name: o.customName };
    F.push({
      severity: "error",
      code: "sst-remote",
      file: m.path,
      message:
        `table ${f.fileNumber} (level ${f.level}) lives on remote storage` +
        ` (${o.locator === "" ? "shared storage" : `locator ${o.locator}`}` +
        `${o.customName !== undefined ? `, object ${o.customName}` : ""}); lsmscope reads no remote storage`,
    });
  } else if (!m.present) {
    F.push({
      severity: "error",
      code: "sst-missing",
      file: m.path,
      message: `the MANIFEST lists table ${f.fileNumber} (level ${f.level}, ${f.fileSize} bytes) but it is not on disk`,
    });
  } else if (live.sizeLater) {
    live.sizeLater.models.push(m);
    live.sizeLater.at.push(F.length);
  } else {
    const mismatch = sizeMismatch(m);
    if (mismatch) F.push(mismatch);
  }
  return m;
}

/** The finding of a present table whose size on disk is not the MANIFEST's (virtual tables excepted). */
export function sizeMismatch(m: SstFileModel): Finding | undefined {
  if (m.diskSize === m.fileSize || m.virtualBacking !== undefined) return undefined;
  return {
    severity: "error",
    code: "sst-size-mismatch",
    file: m.path,
    message: `size on disk ${m.diskSize} differs from the MANIFEST's ${m.fileSize}`,
  };
}

/** Per instance, the tables whose sizes are left to the caller (InspectOptions.tableSizes "caller"). */
const sizesLeft = new WeakMap<InstanceModel, DeferredSizes>();

export function leaveTableSizes(inst: InstanceModel, later: DeferredSizes): void {
  sizesLeft.set(inst, later);
}

/**
 * The caller of inspectDatadir(..., { tableSizes: "caller" }) opened the tables (`opened`: the size of
 * each that opened): every instance's deferred sizes settled as settleTableSizes does, each size
 * check's finding put where the stat's would have been, in the instance's findings and in the
 * model's. Call it before appending findings of the caller's own to either.
 */
export function settleCallerTableSizes(model: DatadirModel, opened: ReadonlyMap<SstFileModel, number>): void {
  const place = modelFindingPlaces(model);
  const inserts: SizeCheck[] = [];
  model.instances.forEach((inst, i) => inserts.push(...place(i, settleInstanceTableSizes(inst, opened))));
  mergeFindingsAt(model.findings, inserts);
}

/**
 * settleCallerTableSizes for one instance (before any other: a caller that settles instance by
 * instance): its deferred sizes settled, each size check's finding merged into its findings; returns
 * them with their positions in its findings as they were.
 */
export function settleInstanceTableSizes(
  inst: InstanceModel,
  opened: ReadonlyMap<SstFileModel, number>,
): SizeCheck[] {
  const later = sizesLeft.get(inst);
  if (!later) return [];
  sizesLeft.delete(inst);
  const checks = sizeChecks(later, opened);
  mergeFindingsAt(inst.findings, checks);
  return checks;
}

/**
 * Where an instance's size checks (positions in its findings as they were) go in the model's findings
 * (the datadir's own, then each instance's in order: inspectDatadir); call before either changes.
 */
export function modelFindingPlaces(
  model: DatadirModel,
): (instance: number, checks: SizeCheck[]) => SizeCheck[] {
  const offsets: number[] = [];
  let offset = model.findings.length - model.instances.reduce((n, i) => n + i.findings.length, 0);
  for (const inst of model.instances) {
    offsets.push(offset);
    offset += inst.findings.length;
  }
  return (i, checks) => checks.map((c) => ({ at: offsets[i]! + c.at, finding: c.finding }));
}

/**
 * The sizes on disk of the tables whose stat was left to their open (LiveFiles.sizeLater): `opened`
 * has the size of each table that opened; the others are stat'ed now, as they would have been. Each
 * size check's finding goes where the stat's would have gone.
 */
export function settleTableSizes(
  F: Finding[],
  later: DeferredSizes,
  opened: ReadonlyMap<SstFileModel, number>,
): void {
  mergeFindingsAt(F, sizeChecks(later, opened));
}

/** A size check's finding and the position in the findings where the stat's would have gone. */
export interface SizeCheck {
  at: number;
  finding: Finding;
}

/** Each deferred table's size on disk set (`opened`, else a stat now), its size check's finding if any. */
function sizeChecks(later: DeferredSizes, opened: ReadonlyMap<SstFileModel, number>): SizeCheck[] {
  const out: SizeCheck[] = [];
  for (let i = 0; i < later.models.length; i++) {
    const model = later.models[i]!;
    const at = later.at[i]!;
    model.diskSize = opened.get(model) ?? sizeOf(model.path);
    // gone since the MANIFEST was read (a live node's compaction deleted it): the reader's finding
    // says so (vanished.ts), as when the stat came first and the open found the file gone
    if (model.diskSize === undefined) continue;
    const mismatch = sizeMismatch(model);
    if (mismatch) out.push({ at, finding: mismatch });
  }
  return out;
}

/** Insert each finding before the one at its position (positions ascending, in `F` as it is). */
export function mergeFindingsAt(F: Finding[], inserts: readonly SizeCheck[]): void {
  if (inserts.length === 0) return;
  const merged: Finding[] = [];
  let j = 0;
  for (let i = 0; i <= F.length; i++) {
    while (j < inserts.length && inserts[j]!.at === i) merged.push(inserts[j++]!.finding);
    if (i < F.length) merged.push(F[i]!);
  }
  F.length = 0;
  for (const f of merged) F.push(f);
}

/** A CF's blob files as the MANIFEST records them, each header and footer read and checked against it. */
function cfBlobFiles({ dir, nameSet, F }: StoreRead, rcf: ReplayedCf, live: LiveFiles): BlobFileModel[] {
  const blobFiles: BlobFileModel[] = [];
  const linked = new Map<number, number[]>();
  for (const f of rcf.files.values())
    if (f.oldestBlobFileNumber) {
      const arr = linked.get(f.oldestBlobFileNumber) ?? [];
      arr.push(f.fileNumber);
      linked.set(f.oldestBlobFileNumber, arr);
    }
  for (const b of [...rcf.blobFiles.values()].sort((x, y) => x.blobFileNumber - y.blobFileNumber)) {
    const bname = fileName(b.blobFileNumber, "blob");
    live.referencedBlobs.add(bname);
    const present = nameSet.has(bname);
    const bm: BlobFileModel = {
      fileNumber: b.blobFileNumber,
      fileName: bname,
      path: join(dir, bname),
      present,
      totalBlobCount: b.totalBlobCount,
      recordBytes: b.totalBlobBytes,
      checksumMethod: b.checksumMethod,
      checksumValue: b.checksumValue,
      garbageBlobCount: b.garbageBlobCount,
      garbageRecordBytes: b.garbageBlobBytes,
      linkedSsts: (linked.get(b.blobFileNumber) ?? []).sort((x, y) => x - y),
    };
    if (present) {
      try {
        const r = readBlobFile(bm.path);
        bm.diskSize = r.size;
        bm.header = r.header;
        bm.footer = r.footer;
        // what RocksDB's BlobFileReader refuses (the header, the column family, the footer)
        for (const { code, offset, message } of blobFileRefusals(r, rcf.id))
          F.push({ severity: "error", code, file: bm.path, offset, message });
        if (r.footer && r.footer.blobCount !== b.totalBlobCount)
          F.push({
            severity: "warn",
            code: "blob-count-mismatch",
            file: bm.path,
            message: `footer counts ${plural(r.footer.blobCount, "blob")}, MANIFEST ${b.totalBlobCount}`,
          });
      } catch (e) {
        F.push({
          severity: "error",
          code: "blob-unreadable",
          file: bm.path,
          message: (e as Error).message,
        });
      }
    } else {
      F.push({
        severity: "error",
        code: "blob-missing",
        file: bm.path,
        message: `the MANIFEST lists blob file ${b.blobFileNumber} but it is not on disk`,
      });
    }
    blobFiles.push(bm);
  }
  return blobFiles;
}

/**
 * Pebble's blob files (value separation), with the column family (Pebble has one): each file's footer
 * and index read, the tables referencing it (pebble_blob_files.ts).
 */
export function attachPebbleBlobFiles(
  { dir, nameSet, inst, F }: StoreRead,
  replay: ManifestReplay,
  live: LiveFiles,
): void {
  const cf = inst.columnFamilies[0];
  if (replay.pebbleBlobFiles.size === 0 || !cf) return;
  const files = pebbleBlobFileModels({
    dir,
    nameSet,
    blobFiles: replay.pebbleBlobFiles,
    tables: live.tables,
    findings: F,
  });
  for (const b of files) live.referencedBlobs.add(b.fileName);
  cf.pebbleBlobFiles = files;
  cf.totals.blobFiles += files.length;
  cf.totals.blobFileBytes += files.reduce((sum, b) => sum + (b.diskSize ?? 0), 0);
}

/** Table and blob files on disk that the version does not reference. */
export function noteUnreferencedFiles({ dir, names, inst, F }: StoreRead, live: LiveFiles): void {
  for (const n of names) {
    if (isTableFileName(n) && !live.referencedTables.has(n)) inst.unreferencedTables.push(n);
    if (/^\d+\.blob$/.test(n) && !live.referencedBlobs.has(n)) inst.unreferencedBlobFiles.push(n);
  }
  if (inst.unreferencedTables.length)
    F.push({
      severity: "info",
      code: "sst-unreferenced",
      file: dir,
      message: `${plural(inst.unreferencedTables.length, "table file")} on disk not in the current version (obsolete, or being written): ${inst.unreferencedTables.slice(0, 5).join(", ")}${inst.unreferencedTables.length > 5 ? ", …" : ""}`,
    });
}
