/**
 * What to scan: the column families selected from the datadir model, each with its sorted runs
 * (L0 files alone, deeper levels concatenated), its live WAL files, its range deletions, and where
 * the Ethereum views live (accounts / code column family and key prefix) for the recognised client.
 */
import { levelRuns, mergeReadAhead, type RunFile } from "../lsm/merge.js";
import { cutsOf, splitSamples } from "../lsm/key_cuts.js";
import { leanTableOf, type OpenedAhead } from "../lsm/lean_table.js";
import { memEntriesIn, type MemLayer } from "../datadir/memtable.js";
import { openTable, type SstTable } from "../format/table.js";
import { isFileGone, noteGone } from "../lsm/gone.js";
import { hexRangeDels, type HexRangeDeletion } from "../lsm/newest.js";
import { TailEstimate } from "../util/tail_estimate.js";
import { TablesInTurn } from "../format/tables_in_turn.js";
import { LsmscopeError } from "../util/errors.js";
import { someOf } from "../util/words.js";
import { prefixSuccessor } from "../util/prefix.js";
import type { ColumnFamilyModel, DatadirModel, InstanceModel, SstFileModel } from "../datadir/model.js";
import { NUMERIC_FIELDS } from "../format/properties.js";
import type { EthViewLocation, SizesOptions } from "./types.js";
import type { RoleSpec, ScanTask } from "./scan.js";
import { cfLabel } from "../datadir/names.js";
import { cfSelected } from "../datadir/cf_select.js";

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
function openPresent(path: string, expectedSize?: number, inTurn?: TablesInTurn): SstTable | undefined {
  try {
    return inTurn
      ? inTurn.open(path, { expectedSize })
      : openTable(path, { prefetchTail: planTail.bytes, expectedSize });
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
  rangeDels: HexRangeDeletion[];
  /** Stored data-block bytes (rocksdb.data.size; LevelDB: file size). */
  dataBytes: number;
  dataBlocks: number;
  files: number;
  /** Stored records that are not deletions (num.entries − num.deletions), when every table has properties. */
  valueRecords?: number;
  /** Stored records (num.entries), when every table has properties. */
  entries?: number;
  /** Every table carries rocksdb.data.size (dataBytes is then exact). */
  dataBytesExact: boolean;
  /** Tables kept open for the planning thread's scan (KeepOpened). */
  keptOpen: number;
  /**
   * What planning read of each table, by path: sample mode takes each table's block count from them
   * (rocksdb.num.data.blocks), planWithin sums them over a part of the tables.
   */
  tableFigures: Map<string, TableFigures>;
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

/**
 * Where a plan keeps the tables it opened, for the scan of its runs (lean_table.ts): given how many
 * sorted runs the column family has and how many tables the plan would keep, the planning thread's
 * store, or undefined to close them (sizes/pool.ts decides).
 */
export type KeepOpened = (runs: number, tables: number) => OpenedAhead | undefined;

/** Column-family plans built once each per run (a plan opens the CF's tables), keyed by cfKey(). */
export class CfPlanCache {
  readonly plans = new Map<string, CfPlan>();
  constructor(
    private readonly includeWal: boolean,
    private readonly keepOpened?: KeepOpened,
    /** Called on the planning thread after each table a plan opens (sizes/pool.ts, heedWorkerStarts). */
    private readonly tableOpened?: () => void,
    /** Take each table's figures from the model where it read them (planCf's `fromModel`). */
    private readonly fromModel = false,
  ) {}

  get(inst: InstanceModel, cf: ColumnFamilyModel): CfPlan {
    const k = cfKey(inst, cf);
    let p = this.plans.get(k);
    if (!p) {
      p = planCf(inst, cf, this.includeWal, this.keepOpened, this.tableOpened, this.fromModel);
      this.plans.set(k, p);
    }
    return p;
  }
}

/** What planning takes of a table's properties. */
interface PlannedTable {
  dataSize?: number;
  numEntries?: number;
  numDeletions?: number;
  numRangeDeletions?: number;
  numDataBlocks?: number;
}

/** What planning read of a table, with its file size (a table without rocksdb.data.size counts that). */
export type TableFigures = PlannedTable & { fileSize: number };

/** A plan's figures summed over its tables (planCf over every table, planWithin over some). */
class PlanFigures {
  dataBytes = 0;
  dataBlocks = 0;
  valueRecords: number | undefined = 0;
  entries: number | undefined = 0;
  dataBytesExact = true;

  add(t: TableFigures): void {
    this.dataBytes += t.dataSize ?? t.fileSize;
    if (t.dataSize === undefined) this.dataBytesExact = false;
    if (t.numEntries !== undefined && this.valueRecords !== undefined)
      this.valueRecords += t.numEntries - (t.numDeletions ?? 0) - (t.numRangeDeletions ?? 0);
    else this.valueRecords = undefined;
    this.entries =
      t.numEntries !== undefined && this.entries !== undefined ? this.entries + t.numEntries : undefined;
    if (t.numDataBlocks !== undefined) this.dataBlocks += t.numDataBlocks;
  }

  /** The figures a CfPlan carries. */
  get plan(): Pick<CfPlan, "dataBytes" | "dataBlocks" | "valueRecords" | "entries" | "dataBytesExact"> {
    const { dataBytes, dataBlocks, valueRecords, entries, dataBytesExact } = this;
    return { dataBytes, dataBlocks, valueRecords, entries, dataBytesExact };
  }
}

/**
 * A table's figures as the model read them (TableDetails.properties, inspect's cheap details), when it
 * read every one and the table holds no range deletion (those are read from the table itself).
 */
function plannedFromModel(f: SstFileModel): PlannedTable | undefined {
  const props = f.details?.error === undefined ? f.details?.properties : undefined;
  if (!props) return undefined;
  const num = (name: string) => {
    const v = props[name];
    return typeof v === "number" ? v : undefined;
  };
  const p: PlannedTable = {
    dataSize: num(NUMERIC_FIELDS.dataSize),
    numEntries: num(NUMERIC_FIELDS.numEntries),
    numDeletions: num(NUMERIC_FIELDS.numDeletions),
    numRangeDeletions: num(NUMERIC_FIELDS.numRangeDeletions),
    numDataBlocks: num(NUMERIC_FIELDS.numDataBlocks),
  };
  return Object.values(p).every((v) => v !== undefined) && p.numRangeDeletions === 0 ? p : undefined;
}

/**
 * Plan one column family: every table's properties (and range deletions) read one after another.
 * `fromModel` (sample mode, which opens only the tables it draws blocks from or looks keys up in):
 * a table the model has read the properties of is not opened again (check's code-population samples
 * both arms' account and code column families after reading their models).
 */
export function planCf(
  inst: InstanceModel,
  cf: ColumnFamilyModel,
  includeWal: boolean,
  keepOpened?: KeepOpened,
  tableOpened?: () => void,
  fromModel = false,
): CfPlan {
  const present = cf.levels.map((lvl) => ({ level: lvl.level, files: lvl.files.filter((f) => f.present) }));
  const modelOf = new Map(present.flatMap((lvl) => lvl.files.map((f) => [f.path, f] as const)));
  const files = present.reduce((n, lvl) => n + lvl.files.length, 0);
  const runs = levelRuns(present);
  // a table that is a run of its own (an L0 file) is kept for the scan; a level's files are opened
  // one after another by their run, never all at once
  const keepable = (run: RunFile[]) => run.length === 1;
  const kept = keepOpened?.(runs.length, runs.filter(keepable).length);
  const readAhead = mergeReadAhead(runs.length);
  const rangeDels: CfPlan["rangeDels"] = [];
  let keptOpen = 0;
  const figures = new PlanFigures();
  const tableFigures = new Map<string, TableFigures>();
  const add = (path: string, p: PlannedTable, fileSize: number) => {
    // the figures only: an opened table's properties object is not kept
    const t: TableFigures = {
      dataSize: p.dataSize,
      numEntries: p.numEntries,
      numDeletions: p.numDeletions,
      numRangeDeletions: p.numRangeDeletions,
      numDataBlocks: p.numDataBlocks,
      fileSize,
    };
    tableFigures.set(path, t);
    figures.add(t);
  };
  const modelRead = new Map<string, PlannedTable>();
  for (const run of runs)
    for (const { path } of run) {
      const p = fromModel ? plannedFromModel(modelOf.get(path)!) : undefined;
      if (p) modelRead.set(path, p);
    }
  // every other table is opened here, one after another on this thread, while the workers wait for
  // their tasks: their tails read ahead on other threads by the read-ahead helper (util/tail_batches.ts),
  // as inspect reads them, so that this thread only parses them, and a cold store's are read many at
  // a time. A table kept for the scan opens its file at its first data block (format/table_file.ts).
  const inTurn = new TablesInTurn(
    runs.flatMap((run) => run.map((f) => f.path)).filter((path) => !modelRead.has(path)),
    planTail,
  );
  for (const run of runs) {
    const keep = kept && keepable(run) ? kept : undefined;
    for (const { path, size } of run) {
      const known = modelRead.get(path);
      if (known) {
        add(path, known, size ?? 0);
        continue;
      }
      const t = openPresent(path, size, inTurn);
      tableOpened?.();
      if (!t) continue;
      let read = false;
      try {
        const p = t.props;
        add(path, p, t.fileSize);
        if (p.numRangeDeletions !== undefined && p.numRangeDeletions > 0) {
          for (const r of hexRangeDels(t.rangeDeletions())) rangeDels.push(r);
        }
        read = true;
      } finally {
        inTurn.done(t);
        if (keepOrClose(t, read ? keep : undefined, readAhead)) keptOpen++;
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
    ...figures.plan,
    files,
    keptOpen,
    tableFigures,
  };
}

/**
 * The plan of the tables of `plan` whose key ranges meet one of `prefixes` (hex user-key prefixes):
 * the frame sample mode draws from for roles that share a keyspace with other records (geth's accounts
 * and code in its one keyspace), its figures summed over those tables; range deletions and the WAL
 * stay the whole column family's (they decide what is live wherever it was drawn).
 */
export function planWithin(plan: CfPlan, prefixes: readonly string[]): CfPlan {
  // [prefix, the prefix's successor): hex order is byte order
  const ranges = prefixes.map((p) => ({
    from: p,
    to: prefixSuccessor(Buffer.from(p, "hex"))?.toString("hex"),
  }));
  const meets = (f: RunFile) =>
    f.smallestHex === undefined ||
    f.largestHex === undefined ||
    ranges.some((r) => f.largestHex! >= r.from && (r.to === undefined || f.smallestHex! < r.to));
  const runs = plan.runs.map((run) => run.filter(meets)).filter((run) => run.length > 0);
  const figures = new PlanFigures();
  let files = 0;
  for (const run of runs)
    for (const { path } of run) {
      files++;
      const t = plan.tableFigures.get(path);
      if (t) figures.add(t); // else gone since it was listed: not read
    }
  return { ...plan, runs, ...figures.plan, files, keptOpen: 0 };
}

/** Keep what a lean run reads of `t` in `keep` when given (true), else close it. */
function keepOrClose(t: SstTable, keep: OpenedAhead | undefined, readAhead: number): boolean {
  if (keep) {
    try {
      keep.keep(leanTableOf(t, readAhead));
      return true;
    } catch {
      // its index unreadable: the run that reads the table opens it itself and reports that
    }
  }
  t.close();
  return false;
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
      if (sel.length === 0 || sel.some((s) => cfSelected(cf, s, inst))) out.push({ inst, cf });
    }
  }
  if (sel.length > 0 && out.length === 0) {
    const all = new Set(model.instances.flatMap((i) => i.columnFamilies.map((c) => c.displayName)));
    throw new LsmscopeError(`no column family matches ${sel.join(", ")} (have: ${someOf([...all])})`, {
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

/**
 * How tasksFor() cuts a column family: see SizesOptions.splitMinBytes, newestByHashMinRuns and
 * keyRangeCutMinRunBytes.
 */
export interface TaskSplit {
  /** Column families this big (stored data bytes) are cut into several ranges. */
  minBytes: number;
  /** Sorted runs from which the newest versions are told by a key set rather than a merge. */
  hashMinRuns: number;
  /** Mean data bytes per run from which a merged column family is cut (KEY_RANGE_CUT_MIN_RUN_BYTES). */
  minRunBytes: number;
}

/**
 * Runs (each L0 file is one) from which `sizes --full` tells the newest versions by each sub-range's
 * keys instead of merging (lsm/newest_by_hash.ts), in a column family without Ethereum roles. On
 * db_bench L0 pile-ups (36-byte entries), one thread, in-process: 4,354 runs 2.1 s against the
 * merge's 8.0 s; 1,716 runs 0.86-1.10 s against 1.37-1.49 s; 582 runs and 145 runs the same time as
 * the merge (0.43-0.53 s, 0.18-0.22 s) for ~20 MiB more memory.
 */
export const NEWEST_BY_HASH_MIN_RUNS = 1024;

/**
 * Mean data bytes a sorted run must hold for a merged column family (fewer runs than
 * NEWEST_BY_HASH_MIN_RUNS) to be cut into key ranges between threads: each thread merges every run
 * over its range, so what a run costs (its table opened, its index read, its read-ahead filled) is paid
 * twice, and only the entries are shared. `sizes --full --workers 2`, uncut against cut (db_bench L0
 * pile-ups, paired rounds): 896 runs of 50 KB 0.93 of the time, 256 of 316 KB 0.90, 97 of 1.2 MB 1.06;
 * the Besu pile-up (three column families of ~900 runs of ~105 KB: whole column families then go to
 * the two threads) 0.88 (15 rounds). Runs of levels are far larger: cut as before.
 */
export const KEY_RANGE_CUT_MIN_RUN_BYTES = 1024 * 1024;

/**
 * What a sub-range of hashNewest holds at once, at most about: its entries' keys, sizes and sequence
 * numbers (~44 bytes an entry of a 16-byte key), ~200,000 entries and ~9 MiB on the L0 pile-up. More
 * at once meant more memory, less meant more turns through every run: 4 MiB sub-ranges took the
 * pile-up 2.8-2.9 s on two threads, 8 MiB 2.1-2.3, 16 MiB 2.0-2.1 s at 30 MiB more peak RSS (with
 * uneven cuts, before cutsOf spread the samples). By entries where the tables count them (compressed
 * blocks hold more entries per byte).
 */
const SUB_RANGE_BYTES = 8 * 1024 * 1024;
const SUB_RANGE_ENTRIES = 256 * 1024;

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
 * The first range's extra bytes per table the planning thread kept open for its scan (KeepOpened):
 * a worker opens those tables as its runs reach them. On the L0 pile-up of 4,354 tables (257 MiB of
 * data, two threads, in-process): without it this thread finished its range 0.25-0.3 s before the
 * worker; with 8 KiB a table within 0.07 s of it (1.85-1.98 s in all); with 16 KiB 0.2 s after it.
 */
export const KEPT_TABLE_HEAD_START = 8 * 1024;

/**
 * A column family's scan tasks: its key range (or `range`) cut into about `parts` ranges, the first
 * `headStart` bytes larger, each with its slice of `mem`, its WAL layer (wal_layers.ts).
 */
export function tasksFor(
  plan: CfPlan,
  mem: MemLayer,
  parts: number,
  base: Omit<ScanTask, "id" | "runs" | "mem" | "rangeDels" | "loHex" | "hiHex" | "newestByHash">,
  nextId: () => number,
  split: TaskSplit,
  range?: { loHex?: string; hiHex?: string },
  headStart = 0,
): ScanTask[] {
  // the WAL layer is sliced per range
  const rangeDels = [...plan.rangeDels, ...hexRangeDels(mem.rangeDels)];
  const slice = (loHex?: string, hiHex?: string) =>
    memEntriesIn(
      mem.entries,
      loHex === undefined ? undefined : Buffer.from(loHex, "hex"),
      hiHex === undefined ? undefined : Buffer.from(hiHex, "hex"),
    );
  const common = { runs: plan.runs, rangeDels, ...base };
  if (range) return [{ id: nextId(), ...common, ...range, mem: slice(range.loHex, range.hiHex) }];
  // hashNewest tells entries without their values, and not in key order
  const hashable =
    plan.runs.length >= split.hashMinRuns &&
    Object.keys(base.blobFiles).length === 0 &&
    base.roles.length === 0 &&
    !base.gethCategories;
  const subRanges = hashable
    ? Math.max(
        Math.ceil(plan.dataBytes / SUB_RANGE_BYTES),
        Math.ceil((plan.entries ?? 0) / SUB_RANGE_ENTRIES),
      )
    : 1;
  // cut between threads where the merge's work per entry outweighs its work per run: each thread
  // merges every run over its range (KEY_RANGE_CUT_MIN_RUN_BYTES)
  const cut =
    plan.dataBytes >= split.minBytes &&
    (plan.runs.length >= split.hashMinRuns || plan.dataBytes >= split.minRunBytes * plan.runs.length);
  const samples =
    (parts > 1 && cut) || subRanges > 1
      ? splitSamples(plan.runs, (path, size) => openPresent(path, size))
      : [];
  const cuts = cut ? cutsOf(samples, parts, headStart) : [];
  const fine = cutsOf(samples, subRanges, 0);
  // a sub-range's entries are held at once: where the samples cannot cut the range finely enough
  // (keys alike in their separators), the merge's memory does not grow with them
  const byHash = hashable && 2 * (fine.length + 1) >= subRanges;
  const bounds = [undefined, ...cuts, undefined];
  const out: ScanTask[] = [];
  for (let i = 0; i + 1 < bounds.length; i++) {
    const lo = bounds[i];
    const hi = bounds[i + 1];
    const t: ScanTask = { id: nextId(), ...common, mem: slice(lo, hi) };
    if (lo !== undefined) t.loHex = lo;
    if (hi !== undefined) t.hiHex = hi;
    // hex of equal length compares as the bytes do; a shorter key that is a prefix sorts first either way
    if (byHash)
      t.newestByHash = {
        cutsHex: fine.filter((c) => (lo === undefined || lo < c) && (hi === undefined || c < hi)),
      };
    out.push(t);
  }
  return out;
}
