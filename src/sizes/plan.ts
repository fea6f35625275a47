/**
 * What to scan: the column families selected from the datadir model, each with its sorted runs
 * (L0 files alone, deeper levels concatenated), its live WAL files, its range deletions, and where
 * the Ethereum views live (accounts / code column family and key prefix) for the recognised client.
 */
import { existsSync } from "node:fs";
import { levelRuns, type RunFile } from "../lsm/merge.js";
import { loadMemLayer, memEntriesIn } from "../datadir/memtable.js";
import { openTable, type SstTable } from "../format/table.js";
import { BLOCK_TRAILER_SIZE } from "../format/handle.js";
import { sampleIndexHandles } from "../format/index_reader.js";
import { isFileGone, noteGone } from "../lsm/gone.js";
import { toHex } from "../util/bytes.js";
import { TailEstimate } from "../util/tail_estimate.js";
import { LsmscopeError } from "../util/errors.js";
import type { ColumnFamilyModel, DatadirModel, InstanceModel } from "../datadir/model.js";
import type { EthViewLocation, SizesOptions } from "./types.js";
import type { RoleSpec, ScanTask } from "./scan.js";
import { cfLabel } from "../datadir/names.js";

/** The column family's blob files on disk, by file number (what blob indexes point into). */
export function blobFilesOf(cf: ColumnFamilyModel): Record<string, string> {
  const out: Record<string, string> = {};
  for (const b of cf.blobFiles) if (b.present) out[String(b.fileNumber)] = b.path;
  return out;
}

/**
 * How much of each table's end planning reads at once (footer, metaindex, properties: one read instead
 * of three or four per table; an L0 pile-up has thousands), learned from the tables opened before.
 */
const planTail = new TailEstimate();

/**
 * A table, or undefined (noted) when it was deleted since the version was read (lsm/gone.ts).
 * `expectedSize` (its MANIFEST size, RunFile.size): the tail read confirms it instead of an fstat.
 */
function openPresent(path: string, expectedSize?: number): SstTable | undefined {
  try {
    return openTable(path, { prefetchTail: planTail.bytes, expectedSize });
  } catch (e) {
    if (!isFileGone(e)) throw e;
    noteGone(path);
    return undefined;
  }
}

export interface CfPlan {
  key: string;
  instance: InstanceModel;
  cf: ColumnFamilyModel;
  runs: RunFile[][];
  walPaths: string[];
  rangeDels: { startHex: string; endHex: string; seqno: number }[];
  /** Stored data-block bytes (rocksdb.data.size; LevelDB: file size). */
  dataBytes: number;
  dataBlocks: number;
  files: number;
  /** Stored records that are not deletions (num.entries − num.deletions), when every table has properties. */
  valueRecords?: number;
  /** Every table carries rocksdb.data.size (dataBytes is then exact). */
  dataBytesExact: boolean;
}

export interface EthPlan {
  client: string;
  accounts?: { plan: CfPlan; role: RoleSpec; location: string };
  code?: { plan: CfPlan; role: RoleSpec; location: string };
  notes: string[];
}

export function cfKey(inst: InstanceModel, cf: ColumnFamilyModel): string {
  return `${inst.relPath}\0${cf.nameHex}`;
}

function cfMatches(sel: string, inst: InstanceModel, cf: ColumnFamilyModel): boolean {
  const s = sel.toLowerCase();
  const names = [cf.name, cf.displayName, cf.nameHex, `0x${cf.nameHex}`];
  const own = names.map((n) => n.toLowerCase());
  if (own.includes(s)) return true;
  // "cf06" (Besu display prefix) and "instance/name"
  if (cf.displayName.toLowerCase().split(" ")[0] === s) return true;
  const slash = s.lastIndexOf("/");
  if (slash > 0) {
    const i = s.slice(0, slash);
    const n = s.slice(slash + 1);
    const rel = inst.relPath.toLowerCase();
    const db = inst.clientDetail?.database?.toLowerCase();
    if ((rel === i || rel.endsWith("/" + i) || db === i) && own.includes(n)) return true;
  }
  return false;
}

/** Column-family plans built once each per run (a plan opens the CF's tables), keyed by cfKey(). */
export class CfPlanCache {
  readonly plans = new Map<string, CfPlan>();
  constructor(private readonly includeWal: boolean) {}

  get(inst: InstanceModel, cf: ColumnFamilyModel): CfPlan {
    const k = cfKey(inst, cf);
    let p = this.plans.get(k);
    if (!p) {
      p = planCf(inst, cf, this.includeWal);
      this.plans.set(k, p);
    }
    return p;
  }
}

export function planCf(inst: InstanceModel, cf: ColumnFamilyModel, includeWal: boolean): CfPlan {
  const present = cf.levels.map((lvl) => ({ level: lvl.level, files: lvl.files.filter((f) => f.present) }));
  const files = present.reduce((n, lvl) => n + lvl.files.length, 0);
  const runs = levelRuns(present);
  const rangeDels: CfPlan["rangeDels"] = [];
  let dataBytes = 0;
  let dataBlocks = 0;
  let valueRecords: number | undefined = 0;
  let dataBytesExact = true;
  for (const run of runs) {
    for (const { path, size } of run) {
      const t = openPresent(path, size);
      if (!t) continue;
      try {
        const p = t.props;
        dataBytes += p.dataSize ?? t.fileSize;
        if (p.dataSize === undefined) dataBytesExact = false;
        if (p.numEntries !== undefined && valueRecords !== undefined)
          valueRecords += p.numEntries - (p.numDeletions ?? 0) - (p.numRangeDeletions ?? 0);
        else valueRecords = undefined;
        if (p.numDataBlocks !== undefined) dataBlocks += p.numDataBlocks;
        if (p.numRangeDeletions !== undefined && p.numRangeDeletions > 0) {
          for (const r of t.rangeDeletions())
            rangeDels.push({ startHex: toHex(r.start), endHex: toHex(r.end), seqno: r.seqno });
        }
      } finally {
        planTail.note(t.tailReach);
        t.close();
      }
    }
  }
  const walPaths = includeWal
    ? inst.wal.filter((w) => w.logNumber >= cf.logNumber && w.size > 0).map((w) => w.path)
    : [];
  return {
    key: cfKey(inst, cf),
    instance: inst,
    cf,
    runs,
    walPaths,
    rangeDels,
    dataBytes,
    dataBlocks,
    files,
    valueRecords,
    dataBytesExact,
  };
}

/** Selected column families (readable RocksDB/LevelDB instances only). */
export function selectCfs(
  model: DatadirModel,
  opts: SizesOptions,
): { inst: InstanceModel; cf: ColumnFamilyModel }[] {
  const sel = opts.cf === undefined ? [] : Array.isArray(opts.cf) ? opts.cf : [opts.cf];
  const out: { inst: InstanceModel; cf: ColumnFamilyModel }[] = [];
  for (const inst of model.instances) {
    if (!inst.readable || inst.engine === "unknown") continue;
    for (const cf of inst.columnFamilies) {
      if (sel.length === 0 || sel.some((s) => cfMatches(s, inst, cf))) out.push({ inst, cf });
    }
  }
  if (sel.length > 0 && out.length === 0) {
    const all = model.instances.flatMap((i) => i.columnFamilies.map((c) => c.displayName));
    throw new LsmscopeError(`no column family matches ${sel.join(", ")} (have: ${all.join(", ")})`, {
      exitCode: 2,
    });
  }
  return out;
}

function findCf(
  model: DatadirModel,
  loc: EthViewLocation,
): { inst: InstanceModel; cf: ColumnFamilyModel } | undefined {
  for (const inst of model.instances) {
    if (inst.relPath !== loc.instance && !(loc.instance === "." && inst.relPath === "")) continue;
    for (const cf of inst.columnFamilies) {
      if (cf.name === loc.cf || `0x${cf.nameHex}` === loc.cf.toLowerCase() || cf.displayName === loc.cf)
        return { inst, cf };
    }
  }
  return undefined;
}

/** Where accounts and code live for the recognised client (shared/reference/clients.md). */
export function locateEth(
  model: DatadirModel,
  eth: SizesOptions["eth"],
): { client: string; accounts?: EthViewLocation; code?: EthViewLocation; notes: string[] } {
  const notes: string[] = [];
  if (eth === "off") return { client: model.client.kind, notes };
  if (eth && typeof eth === "object")
    return { client: "explicit", accounts: eth.accounts, code: eth.code, notes };
  let accounts: EthViewLocation | undefined;
  let code: EthViewLocation | undefined;
  for (const inst of model.instances) {
    if (inst.client === "besu") {
      for (const cf of inst.columnFamilies) {
        if (cf.nameHex === "06") accounts = { instance: inst.relPath, cf: "0x06", keyLength: 32 };
        if (cf.nameHex === "07") code = { instance: inst.relPath, cf: "0x07", keyLength: 32 };
      }
    } else if (inst.client === "nethermind") {
      const db = inst.clientDetail?.database;
      for (const cf of inst.columnFamilies) {
        if (db === "flat" && cf.name === "Account")
          accounts = { instance: inst.relPath, cf: cf.name, keyLength: 20 };
        if (db === "code" && cf.name === "default")
          code = { instance: inst.relPath, cf: cf.name, keyLength: 32 };
      }
    } else if (inst.client === "geth" && (inst.engine === "leveldb" || inst.engine === "pebble")) {
      accounts = { instance: inst.relPath, cf: "default", prefixHex: "61", keyLength: 33 };
      code = { instance: inst.relPath, cf: "default", prefixHex: "63", keyLength: 33 };
    }
  }
  if (!accounts && !code)
    notes.push(`client ${model.client.kind}: no account or code column family recognised`);
  return { client: model.client.kind, accounts, code, notes };
}

export function resolveLocation(
  model: DatadirModel,
  loc: EthViewLocation | undefined,
):
  | {
      inst: InstanceModel;
      cf: ColumnFamilyModel;
      role: Omit<RoleSpec, "role">;
      location: string;
      where: { instance: string; cf: string; prefixHex?: string };
    }
  | undefined {
  if (!loc) return undefined;
  const f = findCf(model, loc);
  if (!f) return undefined;
  const role: Omit<RoleSpec, "role"> = {};
  if (loc.prefixHex) role.prefixHex = loc.prefixHex;
  if (loc.keyLength !== undefined) role.keyLength = loc.keyLength;
  const where = cfLabel(f.inst, f.cf.displayName);
  const location = loc.prefixHex ? `${where} prefix 0x${loc.prefixHex}` : where;
  const w: { instance: string; cf: string; prefixHex?: string } = {
    instance: f.inst.relPath,
    cf: f.cf.displayName,
  };
  if (loc.prefixHex) w.prefixHex = loc.prefixHex;
  return { ...f, role, location, where: w };
}

/** Tables whose index separators splitPoints() reads, at most (about: every k-th of them). */
const SPLIT_SAMPLE_FILES = 256;

/**
 * Index entries splitPoints() takes from each table it reads, about. They are read at restart points
 * (IndexReader.sample) where the index allows, not by walking it: on a 131 MB store of 4 tables the
 * walk of 36,446 entries, in code V8 had not optimised yet, held this thread 18-40 ms before it
 * could start its own range.
 */
const SPLIT_SAMPLES_PER_FILE = 256;

/**
 * Split a column family into about `parts` user-key ranges of similar data size, from index
 * separators (every k-th, so memory stays small). Returns the cut points (hex), ascending. The first
 * range gets `headStart` more bytes than the others (at most half a range's share), for a thread that
 * starts on it while the others are still getting ready.
 */
export function splitPoints(plan: CfPlan, parts: number, headStart = 0): string[] {
  if (parts <= 1) return [];
  const samples: { key: string; w: number }[] = [];
  // over many tables, every k-th of them (in run order) stands for the k: the cuts need only be
  // near the middle, and on an L0 pile-up opening all 4,354 tables again kept the workers waiting
  // ~0.1 s for this thread
  const fileStride = Math.max(1, Math.ceil(plan.files / SPLIT_SAMPLE_FILES));
  let file = 0;
  for (const run of plan.runs) {
    for (const { path, size } of run) {
      if (file++ % fileStride !== 0) continue;
      const t = openPresent(path, size);
      if (!t) continue;
      try {
        const internal = !t.indexKeyIsUserKey;
        // each sample weighs the data bytes from the previous one's block end to its own (data blocks
        // lie in key order from the file's start)
        let prevEnd = 0;
        const sampled = sampleIndexHandles(
          t.index,
          SPLIT_SAMPLES_PER_FILE,
          (offset, size, sep, sepLen) => {
            const end = offset + size + BLOCK_TRAILER_SIZE;
            const ul = internal ? sepLen - 8 : sepLen;
            samples.push({ key: sep.toString("hex", 0, ul), w: Math.max(0, end - prevEnd) * fileStride });
            prevEnd = end;
          },
          false,
        );
        if (!sampled) {
          const nb = t.props.numDataBlocks;
          const stride =
            nb !== undefined && nb > SPLIT_SAMPLES_PER_FILE ? Math.ceil(nb / SPLIT_SAMPLES_PER_FILE) : 1;
          let i = 0;
          // only every stride-th separator is copied: the walk itself allocates nothing per entry
          t.forEachIndexHandle((_offset, size, _partition, sep, sepLen) => {
            if (i++ % stride !== 0) return;
            const ul = internal ? sepLen - 8 : sepLen;
            samples.push({ key: sep.toString("hex", 0, ul), w: size * stride * fileStride });
          });
        }
      } finally {
        t.close();
      }
    }
  }
  samples.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const total = samples.reduce((s, x) => s + x.w, 0);
  const head = Math.min(Math.max(0, headStart), total / parts / 2);
  const cuts: string[] = [];
  let acc = 0;
  let k = 1;
  for (const s of samples) {
    acc += s.w;
    if (acc >= head + ((total - head) * k) / parts && k < parts) {
      if (cuts.length === 0 || cuts[cuts.length - 1]! < s.key) cuts.push(s.key);
      k++;
    }
  }
  return cuts;
}

/**
 * When the workers are not ready yet as the first column family is cut into ranges (short planning),
 * the first range (the one this thread claims at once) is this much larger than the others: a worker
 * then starts its range 40-70 ms after this thread starts its own (its isolate, the worker bundle and
 * its WASM XXH3 are still loading), and with equal halves of the 131 MB store of 2 M writes this
 * thread waited 15-55 ms for it at the end. Over an L0 pile-up planning takes long enough for the
 * worker to be ready, and both threads start together: equal ranges.
 */
export const FIRST_RANGE_HEAD_START = 16 * 1024 * 1024;

/**
 * A column family's scan tasks: its key range (or `range`) cut into about `parts` ranges, the first
 * `headStart` bytes larger, each with its slice of the WAL layer.
 */
export function tasksFor(
  plan: CfPlan,
  parts: number,
  base: Omit<ScanTask, "id" | "runs" | "mem" | "rangeDels" | "loHex" | "hiHex">,
  nextId: () => number,
  splitMin: number,
  range?: { loHex?: string; hiHex?: string },
  headStart = 0,
): ScanTask[] {
  // the WAL layer is decoded once per column family and sliced per range
  // a WAL deleted since the version was read was flushed into a table by then: noted, skipped
  const wals = plan.walPaths.filter((p) => existsSync(p) || (noteGone(p), false));
  const mem =
    wals.length > 0
      ? loadMemLayer(
          wals.map((path) => ({ path })),
          plan.cf.id,
          { pebble: plan.instance.engine === "pebble" },
        )
      : { entries: [], rangeDels: [] };
  const rangeDels = [
    ...plan.rangeDels,
    ...mem.rangeDels.map((r) => ({ startHex: toHex(r.start), endHex: toHex(r.end), seqno: r.seqno })),
  ];
  const slice = (loHex?: string, hiHex?: string) =>
    memEntriesIn(
      mem.entries,
      loHex === undefined ? undefined : Buffer.from(loHex, "hex"),
      hiHex === undefined ? undefined : Buffer.from(hiHex, "hex"),
    );
  const common = { runs: plan.runs, rangeDels, ...base };
  if (range) return [{ id: nextId(), ...common, ...range, mem: slice(range.loHex, range.hiHex) }];
  const cuts = plan.dataBytes >= splitMin ? splitPoints(plan, parts, headStart) : [];
  const bounds = [undefined, ...cuts, undefined];
  const out: ScanTask[] = [];
  for (let i = 0; i + 1 < bounds.length; i++) {
    const t: ScanTask = { id: nextId(), ...common, mem: slice(bounds[i], bounds[i + 1]) };
    if (bounds[i] !== undefined) t.loHex = bounds[i];
    if (bounds[i + 1] !== undefined) t.hiHex = bounds[i + 1];
    out.push(t);
  }
  return out;
}
