/**
 * The WAL step of inspectDatadir(): which WAL files a store has (in its directory or OPTIONS' wal_dir),
 * which of them RocksDB's recovery would replay, and what each holds for each column family.
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { numberedFileName } from "../base/file_names.js";
import type { InspectOptions, InstanceModel, WalCfStats, WalFileModel } from "./model.js";
import { scanWal } from "./wal.js";
import { headWritesOf } from "./head_keys.js";
import { keepWalWrites } from "./wal_kept.js";
import { plural } from "../util/words.js";

/** The WALs, in the store directory or OPTIONS' wal_dir. */
export function readStoreWals(inst: InstanceModel, dir: string, names: string[], opts: InspectOptions): void {
  const F = inst.findings;
  const walDir = inst.options?.db.walDir;
  let walPath = dir;
  if (walDir && walDir !== "" && resolve(dir, walDir) !== resolve(dir)) {
    if (existsSync(resolve(dir, walDir))) walPath = resolve(dir, walDir);
    F.push({
      severity: "info",
      code: "wal-dir",
      file: dir,
      message: `OPTIONS sets wal_dir=${walDir}; ${walPath === dir ? "not found, looking in the store directory" : "reading WALs there"}`,
    });
  }
  if (opts.readWal !== false) inspectWals(inst, walPath, walPath === dir ? names : undefined);
}

/** `livenessKnown` false: the MANIFEST does not decode, so no WAL is called live, inert or unflushed. */
export function inspectWals(
  inst: InstanceModel,
  walDir: string,
  names: string[] | undefined,
  livenessKnown = true,
): void {
  let list = names;
  if (!list) {
    try {
      list = readdirSync(walDir);
    } catch {
      list = [];
    }
  }
  const wals = list
    .map((n) => /^(\d+)\.log$/.exec(n))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ name: m[0], number: Number(m[1]) }))
    .sort((a, b) => a.number - b.number);
  const cfs = new Map(inst.columnFamilies.map((c) => [c.id, c]));
  const leveldb = inst.engine === "leveldb";
  const man = inst.manifest!;
  // RocksDB's recovery skips WALs below max(min_log_number_to_keep, the smallest CF log number)
  // (DBImpl::RecoverLogFiles); in the WALs it replays, a CF takes writes only from its log number on.
  const minCfLog = inst.columnFamilies.length ? Math.min(...inst.columnFamilies.map((c) => c.logNumber)) : 0;
  const minWal = Math.max(minCfLog, man.minLogNumberToKeep);
  // WALs the MANIFEST tracks (track_and_verify_wals_in_manifest) must be there, at least as synced
  for (const t of livenessKnown ? man.trackedWals : []) {
    const name = numberedFileName(t.logNumber, "log");
    const onDisk = wals.find((w) => w.number === t.logNumber);
    if (!onDisk)
      inst.findings.push({
        severity: "error",
        code: "wal-tracked-missing",
        file: join(walDir, name),
        message: `the MANIFEST tracks WAL ${t.logNumber}${t.syncedSize !== undefined ? ` (${t.syncedSize} bytes synced)` : ""} but it is not on disk`,
      });
    else if (t.syncedSize !== undefined) {
      const size = statSync(join(walDir, onDisk.name)).size;
      if (size < t.syncedSize)
        inst.findings.push({
          severity: "error",
          code: "wal-tracked-short",
          file: join(walDir, onDisk.name),
          message: `WAL is ${size} bytes, the MANIFEST recorded ${t.syncedSize} bytes synced`,
        });
    }
  }
  for (const w of wals) {
    const path = join(walDir, w.name);
    let scan;
    try {
      // the head's keys kept for identity's reads of the live writes (wal_kept.ts)
      scan = scanWal(path, w.number, { pebble: inst.engine === "pebble", keep: headWritesOf(inst) });
    } catch (e) {
      inst.findings.push({
        severity: "error",
        code: "wal-unreadable",
        file: path,
        message: (e as Error).message,
      });
      continue;
    }
    inst.findings.push(...scan.findings);
    const live =
      livenessKnown &&
      (leveldb
        ? w.number >= man.logNumber || (man.prevLogNumber !== 0 && w.number === man.prevLogNumber)
        : w.number >= minWal);
    let writes = 0;
    for (const s of scan.perCf.values()) writes += s.writes;
    const perColumnFamily: WalCfStats[] = [];
    let unflushed = 0;
    const unflushedCfs: string[] = [];
    for (const [id, s] of [...scan.perCf].sort((a, b) => a[0] - b[0])) {
      const cf = cfs.get(id);
      const isUnflushed = cf !== undefined && live && w.number >= cf.logNumber && s.writes > 0;
      perColumnFamily.push({
        columnFamilyId: id,
        name: cf?.displayName,
        ops: s.ops,
        writes: s.writes,
        keyBytes: s.keyBytes,
        valueBytes: s.valueBytes,
        unflushed: isUnflushed,
      });
      if (isUnflushed) {
        unflushed += s.writes;
        cf.totals.unflushedWrites += s.writes;
        unflushedCfs.push(cf.displayName);
      }
    }
    const model: WalFileModel = {
      file: w.name,
      path,
      logNumber: w.number,
      size: scan.size,
      records: scan.records,
      batchBytes: scan.bytes,
      firstSeq: scan.firstSeq,
      lastSeq: scan.lastSeq,
      ops: scan.ops,
      perColumnFamily,
      unflushedWrites: unflushed,
      live,
      livenessUnknown: livenessKnown ? undefined : true,
      summary: !livenessKnown
        ? `holds ${plural(writes, "write")}; whether they are flushed is unknown (the MANIFEST does not decode)`
        : unflushed > 0
          ? `holds ${unflushed} unflushed writes for CFs ${unflushedCfs.join(", ")}`
          : `inert: ${scan.size} bytes, nothing unflushed`,
      recyclable: scan.recyclable,
      tail: scan.tail
        ? {
            kind: scan.tail.kind,
            offset: scan.tail.offset,
            bytes: scan.tail.bytes,
            message: scan.tail.message,
          }
        : undefined,
      compressionType: scan.compressionType,
    };
    if (scan.kept) keepWalWrites(model, scan.kept);
    inst.wal.push(model);
  }
  if (inst.engine === "rocksdb") flagTornBeforeLast(inst);
}

/**
 * A torn tail is normal in the newest WAL (a crash mid-write), or where the next WAL goes on from the
 * last whole record's sequence (a recovery kept the WAL and wrote on). A live WAL cut short before
 * writes that the next WAL does not continue lost them: RocksDB's point-in-time recovery stops at the
 * tear and refuses the store ("SST file is ahead of WALs") or drops them. An error.
 */
function flagTornBeforeLast(inst: InstanceModel): void {
  for (const w of inst.wal) {
    if (!w.live || w.tail?.kind !== "torn-tail" || w.lastSeq === undefined) continue;
    const next = inst.wal.find((x) => x.live && x.logNumber > w.logNumber && x.records > 0);
    if (next?.firstSeq === undefined || next.firstSeq === w.lastSeq + 1) continue;
    inst.findings.push({
      severity: "error",
      code: "wal-torn-not-last",
      file: w.path,
      offset: w.tail.offset,
      message: `WAL cut short (${w.tail.message}): its last whole write is sequence ${w.lastSeq}, the next WAL ${next.file} starts at ${next.firstSeq}; recovery stops here and cannot replay the writes between`,
    });
  }
}
