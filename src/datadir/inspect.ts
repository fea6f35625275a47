/**
 * inspectDatadir(): a directory → the typed picture of every store in it (model.ts), without an engine,
 * without a lock, without writing a byte. Every file is opened read-only; damaged input becomes
 * findings (file, offset, message) and the model carries whatever could be read.
 */
import { existsSync, statSync } from "node:fs";
import { isAbsolute, join, relative, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { fromFsError, LsmscopeError } from "../util/errors.js";
import { isPrintableName, toHex } from "../util/bytes.js";
import { discoverStores, whyNoStore, type DiscoveredStore } from "./discover.js";
import { readCurrent, replayManifest, type ManifestReplay } from "./manifest.js";
import { findOptionsFiles, optionsForCf, parseOptionsFile } from "./options_file.js";
import { inspectWals, readStoreWals } from "./inspect_wals.js";
import { readBlobFile } from "./blob_file.js";
import { pebbleBlobFileModels } from "./pebble_blob_files.js";
import { pebbleOptionsModel } from "./pebble_options.js";
import { readRemoteCatalog, type RemoteCatalog } from "./pebble_remote_catalog.js";
import { displayCfName, looksLikePebble, nethermindPlace, readBesuMetadata } from "./clients.js";
import type { NewFileEntry } from "./version_edit.js";
import { VALUE_TYPE_NAMES, type InternalKey } from "../base/internal_key.js";
import { placementOf, tableEntries } from "./placement.js";
import { sortLevelFiles } from "../base/level_order.js";
import { numberedFileName } from "../base/file_names.js";
import { GETH_CATEGORIES, gethKeyCategory } from "../eth/geth_schema.js";
import type {
  BlobFileModel,
  ClientInfo,
  ColumnFamilyModel,
  DatadirModel,
  Finding,
  InspectOptions,
  InstanceModel,
  InternalKeyInfo,
  LevelModel,
  SstFileModel,
  TableDetails,
} from "./model.js";
import { loadTableDetailsReader, type TableDetailsReader } from "./table_details.js";
import {
  formatMajorVersion,
  formatMajorVersionName,
  markedManifest,
  newestOptionsFile,
  parsePebbleOptions,
  readMarkers,
} from "./pebble_store.js";
import { gethEvidenceForPebble } from "./pebble_geth.js";
import { settleVanishedTables } from "./vanished.js";
import { plural } from "../util/words.js";

const fileName = numberedFileName;

function keyInfo(k: InternalKey): InternalKeyInfo {
  return {
    userKey: toHex(k.userKey),
    seqno: k.seqno,
    type: k.type,
    typeName: VALUE_TYPE_NAMES[k.type] ?? `unknown(${k.type})`,
  };
}

function sizeOf(dir: string, name: string): number | undefined {
  try {
    return statSync(join(dir, name)).size;
  } catch {
    return undefined;
  }
}

/** Build the model of every store found in `dir` (the directory itself or below it). */
export async function inspectDatadir(dir: string, opts: InspectOptions = {}): Promise<DatadirModel> {
  const t0 = performance.now();
  const root = isAbsolute(dir) ? dir : resolve(dir);
  let st;
  try {
    st = statSync(root);
  } catch (e) {
    throw fromFsError(e, dir) ?? e;
  }
  if (!st.isDirectory()) throw new LsmscopeError("not a directory", { file: root });

  const findings: Finding[] = [];
  const stores = discoverStores(root, opts.maxDepth ?? 4, findings);
  const besu = readBesuMetadata(root) ?? readBesuMetadata(join(root, ".."));
  const client: ClientInfo = { kind: "unknown", evidence: [] };
  if (besu) {
    client.kind = "besu";
    client.evidence.push(besu.metadataFile);
    client.besu = {
      metadataFile: besu.metadataFile,
      format: besu.format,
      version: besu.version,
      raw: besu.raw,
    };
    if (besu.error)
      findings.push({
        severity: "warn",
        code: "besu-metadata",
        file: besu.metadataFile,
        message: `unreadable Besu metadata: ${besu.error}`,
      });
  }

  const tableReader =
    opts.tableDetails === "cheap" ? await loadTableDetailsReader(findings, root) : undefined;

  const instances: InstanceModel[] = [];
  for (const s of stores) {
    const inst = inspectStore(root, s, besu !== undefined, opts, tableReader);
    instances.push(inst);
  }
  if (stores.length === 0) {
    const why = whyNoStore(findings);
    findings.push({
      severity: "error",
      code: "no-store",
      file: root,
      message: `no store found (no directory with CURRENT or a Pebble marker)${why ? `: ${why}` : ""}`,
    });
  }

  // datadir-level client verdict
  if (client.kind === "unknown") {
    const kinds = new Set(instances.map((i) => i.client));
    kinds.delete("generic");
    if (kinds.size > 1) {
      // e.g. a directory holding several datadirs: each instance carries its own client
      client.kind = "generic";
      client.evidence.push(`stores of several clients: ${[...kinds].sort().join(", ")}`);
    } else if (instances.some((i) => i.client === "nethermind")) {
      client.kind = "nethermind";
      const nets = new Set(instances.map((i) => i.clientDetail?.network).filter((x): x is string => !!x));
      client.nethermind = {
        network: nets.size === 1 ? [...nets][0] : undefined,
        databases: instances.filter((i) => i.client === "nethermind").map((i) => i.clientDetail!.database!),
      };
      client.evidence.push("nethermind_db/<network>/<database> layout");
    } else if (kinds.has("geth")) {
      client.kind = "geth";
      client.evidence.push(
        instances.some((i) => i.client === "geth" && i.engine === "pebble")
          ? "Pebble store with geth evidence"
          : "LevelDB store with geth key shapes",
      );
    } else if (instances.length > 0) client.kind = "generic";
  }
  for (const i of instances) findings.push(...i.findings);
  const complete = !findings.some((f) => f.severity === "error");
  return { root, client, instances, findings, complete, elapsedMs: Math.round(performance.now() - t0) };
}

// what a command says about a model it could not read whole or at all (outcome.ts), where commands import it
export { incompleteLine, incompleteReasons, noReadableStoreError, pebbleEngineRefusal } from "./outcome.js";

/** One store directory being read: where it is, what it holds, and the model being filled in. */
interface StoreRead {
  dir: string;
  names: string[];
  nameSet: Set<string>;
  inst: InstanceModel;
  /** inst.findings */
  F: Finding[];
  /** Pebble: objects kept on remote storage (its remote object catalog), by file number. */
  remote?: RemoteCatalog;
}

/** Live files the MANIFEST names, and which of the files on disk it references. */
interface LiveFiles {
  tables: { model: SstFileModel; entry: NewFileEntry }[];
  referencedTables: Set<string>;
  referencedBlobs: Set<string>;
}

/**
 * One store: recognise it, read OPTIONS and the MANIFEST's version, build its column families from the
 * live files, then the WALs, totals and (if asked) each table's details. Each step below adds to the
 * model and its findings; a store whose version cannot be read stops after the WALs are counted.
 */
function inspectStore(
  root: string,
  store: DiscoveredStore,
  besuRoot: boolean,
  opts: InspectOptions,
  tableReader: TableDetailsReader | undefined,
): InstanceModel {
  const s: StoreRead = {
    dir: store.path,
    names: store.names,
    nameSet: new Set(store.names),
    inst: emptyInstance(root, store.path),
    F: [],
  };
  s.F = s.inst.findings;
  const { inst } = s;

  const pebble = recognisePebble(s);
  if (!pebble) {
    recogniseClient(s, root, besuRoot);
    readOptions(s);
  }
  const replay = readVersion(s, pebble);
  if (!replay) return inst;
  if (!replay.complete) {
    versionUnreadable(s, replay, opts);
    return inst;
  }
  inst.readable = true;
  // a LevelDB store that no other client claims may be legacy geth: decided below from its keys
  const gethCandidate = inst.engine === "leveldb" && inst.client === "generic";

  const live: LiveFiles = { tables: [], referencedTables: new Set(), referencedBlobs: new Set() };
  for (const rcf of replay.columnFamilies) inst.columnFamilies.push(columnFamily(s, replay, rcf, live));
  if (pebble) attachPebbleBlobFiles(s, replay, live);
  noteUnreferencedFiles(s, live);
  if (gethCandidate) recogniseGeth(s, live);
  if (pebble) recognisePebbleGeth(s, live);
  readStoreWals(inst, s.dir, s.names, opts);
  sumTotals(inst);
  if (tableReader) readTableDetails(s, live, tableReader, opts);
  settleVanishedTables(inst, s.dir);
  for (const cf of inst.columnFamilies) {
    cf.placement = placementOf(cf.levels);
    cf.totals.entries = tableEntries(cf.levels);
  }
  return inst;
}

function emptyInstance(root: string, dir: string): InstanceModel {
  return {
    path: dir,
    relPath: relative(root, dir) || ".",
    engine: "unknown",
    client: "generic",
    readable: false,
    columnFamilies: [],
    wal: [],
    unreferencedTables: [],
    unreferencedBlobFiles: [],
    totals: { sstFiles: 0, sstBytes: 0, blobFiles: 0, blobFileBytes: 0, walBytes: 0 },
    findings: [],
  };
}

/**
 * A Pebble store (pebble_store.ts): its markers (the current MANIFEST, the format major version) and
 * Pebble's OPTIONS. Whose store it is waits for geth evidence (recognisePebbleGeth).
 */
function recognisePebble(s: StoreRead): boolean {
  const { dir, names, inst, F } = s;
  if (!looksLikePebble(dir, names)) return false;
  inst.engine = "pebble";
  const markers = readMarkers(names);
  const fmv = formatMajorVersion(markers);
  const manifest = markedManifest(markers);
  inst.pebble = {
    formatMajorVersion: fmv,
    formatMajorVersionName: fmv !== undefined ? formatMajorVersionName(fmv) : undefined,
    manifestMarker: manifest ? markers.get("manifest")!.file : undefined,
  };
  s.remote = readRemoteCatalog(dir, markers);
  if (s.remote?.problem)
    F.push({
      severity: "error",
      code: "remote-catalog-corrupt",
      file: join(dir, s.remote.file),
      offset: s.remote.problem.offset,
      message: `remote object catalog: ${s.remote.problem.message}`,
    });
  const opt = newestOptionsFile(dir, names);
  if (opt) {
    try {
      const o = parsePebbleOptions(opt.path, opt.file);
      inst.pebble.options = {
        file: o.file,
        path: o.path,
        pebbleVersion: o.pebbleVersion,
        options: o.options,
        levels: o.levels,
      };
      // the knob analysis, check and the layout flags read Pebble's options as RocksDB's (pebble_options.ts)
      inst.options = pebbleOptionsModel(o);
    } catch (e) {
      F.push({
        severity: "error",
        code: "options-unreadable",
        file: opt.path,
        message: `cannot read OPTIONS: ${(e as Error).message}`,
      });
    }
  }
  return true;
}

/** A Pebble store is geth's only with geth evidence (pebble_geth.ts); otherwise it stays generic. */
function recognisePebbleGeth({ dir, inst, F }: StoreRead, live: LiveFiles): void {
  const evidence = gethEvidenceForPebble(
    dir,
    live.tables.filter((t) => t.model.present).map((t) => ({ path: t.model.path, entry: t.entry })),
  );
  if (evidence.length > 0) {
    inst.client = "geth";
    inst.clientDetail = { role: "chaindata (Pebble)" };
  }
  F.push({
    severity: "info",
    code: "pebble-client",
    file: dir,
    message:
      evidence.length > 0
        ? `Pebble store, geth: ${evidence.join("; ")}`
        : "Pebble store without geth evidence (no chaindata beside ancient/, no geth metadata key): generic",
  });
}

/**
 * Pebble's blob files (value separation), with the column family (Pebble has one): each file's footer
 * and index read, the tables referencing it (pebble_blob_files.ts).
 */
function attachPebbleBlobFiles(
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
    tables: live.tables.map((t) => t.model),
    findings: F,
  });
  for (const b of files) live.referencedBlobs.add(b.fileName);
  cf.pebbleBlobFiles = files;
  cf.totals.blobFiles += files.length;
  cf.totals.blobFileBytes += files.reduce((sum, b) => sum + (b.diskSize ?? 0), 0);
}

/** Besu (DATABASE_METADATA.json beside or above) or Nethermind (its directory layout). */
function recogniseClient({ dir, inst }: StoreRead, root: string, besuRoot: boolean): void {
  const nm = nethermindPlace(dir);
  const besuMeta = readBesuMetadata(join(dir, "..")) ?? (besuRoot ? readBesuMetadata(root) : undefined);
  if (besuRoot || besuMeta) {
    inst.client = "besu";
    inst.clientDetail = { besuFormat: besuMeta?.format, besuVersion: besuMeta?.version };
  } else if (nm) {
    inst.client = "nethermind";
    inst.clientDetail = { network: nm.network, database: nm.database };
  }
}

/** The newest OPTIONS file. */
function readOptions({ dir, names, inst, F }: StoreRead): void {
  const opt = findOptionsFiles(dir, names);
  if (!opt.newest) return;
  try {
    const parsed = parseOptionsFile(join(dir, opt.newest), opt.newest, opt.others);
    inst.options = parsed.model;
    F.push(...parsed.findings);
  } catch (e) {
    F.push({
      severity: "error",
      code: "options-unreadable",
      file: join(dir, opt.newest),
      message: `cannot read OPTIONS: ${(e as Error).message}`,
    });
  }
}

/**
 * CURRENT → MANIFEST, replayed (or the newest MANIFEST present, flagged, when CURRENT does not lead to
 * one); decides the engine.
 */
function readVersion(
  { dir, names, nameSet, inst, F }: StoreRead,
  pebble: boolean,
): ManifestReplay | undefined {
  const rocksSignals = nameSet.has("IDENTITY") || names.some((n) => /^OPTIONS-\d+$/.test(n));
  let replay: ManifestReplay | undefined;
  // Pebble reads the MANIFEST its manifest marker names (CURRENT is kept for older readers)
  const marker = inst.pebble?.manifestMarker;
  const marked = marker ? markedManifest(readMarkers([marker])) : undefined;
  const cur = marked ? { manifestName: marked, manifestNumber: Number(marked.slice(9)) } : readCurrent(dir);
  const namedBy = marker ? `the manifest marker ${marker}` : "CURRENT";
  if ("manifestName" in cur) {
    inst.current = cur.manifestName;
    const mpath = join(dir, cur.manifestName);
    if (existsSync(mpath)) {
      replay = safeReplay(mpath, cur.manifestName, F, pebble);
    } else {
      F.push({
        severity: "error",
        code: "current-dangling",
        file: join(dir, marker ?? "CURRENT"),
        offset: 0,
        message: `${namedBy} names ${cur.manifestName}, which does not exist`,
      });
    }
  } else {
    F.push(cur);
  }
  if (!replay) {
    // best effort: the newest MANIFEST present, clearly flagged
    const manifests = names
      .map((n) => /^MANIFEST-(\d+)$/.exec(n))
      .filter((m): m is RegExpExecArray => m !== null)
      .sort((a, b) => Number(b[1]) - Number(a[1]));
    if (manifests.length > 0) {
      const m = manifests[0]![0];
      F.push({
        severity: "warn",
        code: "manifest-fallback",
        file: join(dir, m),
        message: `reading ${m} (the newest MANIFEST present) instead of what ${namedBy} names`,
      });
      replay = safeReplay(join(dir, m), m, F, pebble);
    }
  }
  if (!pebble) inst.engine = rocksSignals || (replay && !replay.levelDbStyle) ? "rocksdb" : "leveldb";
  if (replay) {
    inst.manifest = replay.summary;
    F.push(...replay.findings);
  }
  return replay;
}

/**
 * RocksDB refuses to open a MANIFEST that does not decode, and so do we: the levels, the live files, the
 * WALs' liveness, sizes and plans all depend on the version it records. The WALs are still counted, with
 * their liveness unknown.
 */
function versionUnreadable({ dir, names, inst, F }: StoreRead, replay: ManifestReplay, opts: InspectOptions) {
  F.push({
    severity: "error",
    code: "manifest-incomplete",
    file: replay.summary.path,
    message: `${replay.summary.file} does not decode to a whole version (see the finding before); levels, live files and WAL liveness are unknown`,
  });
  if (opts.readWal !== false) inspectWals(inst, dir, names, false);
  inst.totals.walBytes = inst.wal.reduce((sum, w) => sum + w.size, 0);
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
function columnFamily(
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
    live.tables.push({ model: m, entry: f });
  }
  // in lookup order: L0 newest first, other levels by key (src/base/level_order.ts)
  for (const lv of levels) sortLevelFiles(lv.level, lv.files);
  const blobFiles = cfBlobFiles(s, rcf, live);

  const cfName = printable ? Buffer.from(rcf.name).toString("latin1") : nameHex;
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
        disk = sizeOf(dir, cand);
        break;
      }
    }
  }
  const fname = name ?? fileName(f.virtualBacking ?? f.fileNumber, sstExt[0]!);
  live.referencedTables.add(fname);
  const m: SstFileModel = {
    fileNumber: f.fileNumber,
    fileName: fname,
    path: join(dir, fname),
    pathId: f.pathId,
    fileSize: f.fileSize,
    diskSize: disk,
    present: name !== undefined,
    level: f.level,
    smallestKey: toHex(f.smallest.userKey),
    largestKey: toHex(f.largest.userKey),
    smallest: keyInfo(f.smallest),
    largest: keyInfo(f.largest),
    smallestSeqno: f.smallestSeqno,
    largestSeqno: f.largestSeqno,
    epochNumber: f.epochNumber,
    oldestBlobFileNumber: f.oldestBlobFileNumber,
    oldestAncesterTime: f.oldestAncesterTime,
    fileCreationTime: f.fileCreationTime,
    fileChecksum: f.fileChecksum,
    fileChecksumFuncName: f.fileChecksumFuncName,
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
  } else if (disk !== f.fileSize && f.virtualBacking === undefined) {
    F.push({
      severity: "error",
      code: "sst-size-mismatch",
      file: m.path,
      message: `size on disk ${disk} differs from the MANIFEST's ${f.fileSize}`,
    });
  }
  return m;
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
        F.push(...r.findings);
        if (r.header && r.header.columnFamilyId !== rcf.id)
          F.push({
            severity: "warn",
            code: "blob-cf-mismatch",
            file: bm.path,
            offset: 8,
            message: `blob header names column family ${r.header.columnFamilyId}, MANIFEST puts it in ${rcf.id}`,
          });
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

/** Table and blob files on disk that the version does not reference. */
function noteUnreferencedFiles({ dir, names, inst, F }: StoreRead, live: LiveFiles): void {
  for (const n of names) {
    if (/^\d+\.(sst|ldb)$/.test(n) && !live.referencedTables.has(n)) inst.unreferencedTables.push(n);
    if (/^\d+\.blob$/.test(n) && !live.referencedBlobs.has(n)) inst.unreferencedBlobFiles.push(n);
  }
  if (inst.unreferencedTables.length)
    F.push({
      severity: "info",
      code: "sst-unreferenced",
      file: dir,
      message: `${inst.unreferencedTables.length} table file(s) on disk not in the current version (obsolete, or being written): ${inst.unreferencedTables.slice(0, 5).join(", ")}${inst.unreferencedTables.length > 5 ? ", …" : ""}`,
    });
}

/** geth recognition for LevelDB stores: key shapes at the file boundaries, or the path. */
function recogniseGeth({ dir, inst }: StoreRead, live: LiveFiles): void {
  const pathHint = /(^|[\\/])(geth|chaindata)([\\/]|$)/.test(dir);
  let gethKeys = 0;
  let keys = 0;
  for (const { entry } of live.tables)
    for (const k of [entry.smallest.userKey, entry.largest.userKey]) {
      keys++;
      if (gethKeyCategory(k) !== GETH_CATEGORIES.unaccounted) gethKeys++;
    }
  inst.client = pathHint || (keys > 0 && gethKeys / keys >= 0.9) ? "geth" : "generic";
  if (inst.client === "geth") inst.clientDetail = { role: "chaindata (LevelDB, legacy geth)" };
}

function sumTotals(inst: InstanceModel): void {
  for (const cf of inst.columnFamilies) {
    inst.totals.sstFiles += cf.totals.files;
    inst.totals.sstBytes += cf.totals.bytes;
    inst.totals.blobFiles += cf.totals.blobFiles;
    inst.totals.blobFileBytes += cf.totals.blobFileBytes;
  }
  inst.totals.walBytes = inst.wal.reduce((sum, w) => sum + w.size, 0);
}

/** Per-file table details through the SST reader, with progress. */
function readTableDetails(
  { inst, F }: StoreRead,
  live: LiveFiles,
  tableReader: TableDetailsReader,
  opts: InspectOptions,
): void {
  const present = live.tables.filter((f) => f.model.present);
  let done = 0;
  for (const { model } of present) {
    const d: TableDetails = tableReader(model.path);
    model.details = d;
    // a table the reader cannot open leaves the picture incomplete (its knobs, its entries)
    if (d.error)
      F.push({
        severity: "error",
        code: "sst-unreadable",
        file: model.path,
        message: `table reader: ${d.error}`,
      });
    done++;
    if (opts.onProgress && (done % 64 === 0 || done === present.length))
      opts.onProgress(done, present.length, inst.relPath);
  }
}

function safeReplay(path: string, name: string, F: Finding[], pebble = false): ManifestReplay | undefined {
  try {
    return replayManifest(path, name, { pebble });
  } catch (e) {
    F.push({ severity: "error", code: "manifest-unreadable", file: path, message: (e as Error).message });
    return undefined;
  }
}
