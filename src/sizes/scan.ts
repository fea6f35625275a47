/**
 * One scan task: the newest-version merge of one column family over one user-key range, with every
 * live record accounted (key/value sizes, value types, blob indexes, blocks) and, when the range holds
 * accounts or code, the Ethereum accounting. Runs the same in a worker thread or in-process; the
 * result is plain data (worker-transferable) and results of several ranges merge by addition.
 */
import { isTombstone, ValueType, valueTypeName } from "../base/internal_key.js";
import { fromHex } from "../util/bytes.js";
import { SizeDist, SizeTally, RatioDist, type SizeDistData } from "./dist.js";
import { BlobValueSizer } from "../format/blob.js";
import { BlobTally, blobIndexedValueSize, type BlobTallyData } from "./blob_tally.js";
import { memCount, type MemEntries } from "../datadir/memtable.js";
import {
  Fate,
  MemRun,
  TableRun,
  mergeNewest,
  mergeReadAhead,
  type BlockEvent,
  type BlockSink,
  type NewestVisitor,
  type RangeTombstone,
  type Run,
  type RunFile,
} from "../lsm/merge.js";
import { hashNewest, UseMerge, type NewestRecordVisitor } from "../lsm/newest_by_hash.js";
import type { TableSource } from "../lsm/table_cache.js";
import type { HexRangeDeletion } from "../lsm/newest.js";
import { AccountAcc, CodeAcc, type AccountAccData, type CodeAccData } from "./eth_acc.js";
import { BLOCK_TRAILER_SIZE } from "../format/handle.js";
import { gethKeyCategory } from "../eth/geth_schema.js";
import { takeGone, toleratingGone } from "../lsm/gone.js";
import { StorageAcc, type StorageAccData } from "./contracts/acc.js";
import type { StorageLayout } from "./contracts/layout.js";

export type Role = "accounts" | "code" | "storage";

export interface RoleSpec {
  role: Role;
  prefixHex?: string;
  keyLength?: number;
  /** The storage role: how slot keys name their contract (contracts/layout.ts). */
  storage?: StorageLayout;
}

export interface ScanTask {
  id: number;
  /** Sorted runs: each L0 file alone, then each level's files in key order. */
  runs: RunFile[][];
  /**
   * Unflushed WAL writes in this range, sorted (loaded once per column family by the caller; in shared
   * memory, so a worker reads the same columns).
   */
  mem: MemEntries;
  /** Range in hex; undefined = unbounded. */
  loHex?: string;
  hiHex?: string;
  /** Range deletions of the column family: SSTs and WAL (hex keys). */
  rangeDels: HexRangeDeletion[];
  /** Account the column family's sizes (false for a code-prefix pre-pass). */
  collectStats: boolean;
  /** Break live records down by geth key category (a single-keyspace LevelDB chaindata). */
  gethCategories?: boolean;
  roles: RoleSpec[];
  /** Delegation designator hashes (hash53) for classifying accounts. */
  delegationHashes: number[];
  /** Live blob files of the column family by file number (blob-indexed values are sized from them). */
  blobFiles: Record<string, string>;
  /** Those RocksDB would not open, with why (datadir/blob_file.ts refusedBlobFilesOf): their values count as unreadable. */
  refusedBlobFiles: Record<string, string>;
  /** Epoch ms after which no further data block is read (`sizes --timeout`): the result is partial. */
  deadline?: number;
  /**
   * Tell the newest versions by each sub-range's keys rather than by merging (many overlapping runs:
   * lsm/newest_by_hash.ts), the sub-ranges cut at these user keys (hex, ascending, inside lo..hi).
   * Entries are then told without their values: only for a task without roles or categories.
   */
  newestByHash?: { cutsHex: string[] };
}

/** Thrown out of the merge at the deadline; runScanTask turns it into a partial result. */
class ScanStopped extends Error {}

/**
 * This thread's blob value sizer: each blob file is read front to back once per thread, on the first
 * range that meets it, and serves every later range (blob files never change under a file number).
 */
let sizer: { key: string; sizer: BlobValueSizer } | undefined;
function threadBlobSizer(files: Record<string, string>, refused: Record<string, string>): BlobValueSizer {
  const key = JSON.stringify([files, refused]);
  if (sizer?.key !== key) {
    sizer?.sizer.close();
    sizer = { key, sizer: new BlobValueSizer(files, "sequential", refused) };
  }
  return sizer.sizer;
}

export interface PartialResult {
  id: number;
  keySize: SizeDistData;
  valueSize: SizeDistData;
  live: number;
  shadowed: number;
  tombstones: number;
  rangeDeleted: number;
  read: number;
  wal: number;
  valueTypes: Record<string, number>;
  blob: BlobTallyData;
  physical: number;
  logical: number;
  blocks: number;
  ratio: { bins: Float64Array; count: number; min: number; max: number };
  code?: CodeAccData;
  accounts?: AccountAccData;
  /** Slots and bytes per contract (contracts/acc.ts). */
  storage?: StorageAccData;
  /** Per geth key category: live records, key and value sizes. */
  categories?: Record<string, { keySize: SizeDistData; valueSize: SizeDistData }>;
  elapsedMs: number;
  /** Tables (and WALs) found deleted when opened (a live node's compaction?), skipped. */
  gone?: string[];
  /** The deadline stopped the task before its range was read through: its figures are partial. */
  stopped?: boolean;
  /** worker_threads threadId of the thread that ran the task (0 = main). */
  thread: number;
  startedAt: number;
}

interface RoleMatcher {
  prefix: Buffer;
  keyLength: number | undefined;
  /** Offset of the 32-byte hash inside a code key. */
  hashOff: number;
}

function matcher(r: RoleSpec | undefined): RoleMatcher | undefined {
  if (!r) return undefined;
  const prefix = r.prefixHex ? fromHex(r.prefixHex) : Buffer.alloc(0);
  return { prefix, keyLength: r.keyLength, hashOff: prefix.length };
}

function matches(m: RoleMatcher, key: Uint8Array, len: number): boolean {
  if (m.keyLength !== undefined && len !== m.keyLength) return false;
  const p = m.prefix;
  if (len < p.length) return false;
  for (let i = 0; i < p.length; i++) if (key[i] !== p[i]) return false;
  return true;
}

/**
 * The accounting of one task: told of every block read (BlockSink) and every merged entry with its
 * fate (NewestVisitor), or every entry's record when no merge runs (NewestRecordVisitor). A class,
 * not closures, so the merge's call sites see the same methods in every task (see BlockSink in
 * merge.ts).
 */
class TaskScan implements BlockSink, NewestVisitor, NewestRecordVisitor {
  readonly keySize = new SizeDist();
  readonly valueSize = new SizeDist();
  /** keySize and valueSize as counted per live record (folded into them by done()). */
  private readonly keyTally = new SizeTally(this.keySize);
  private readonly valueTally = new SizeTally(this.valueSize);
  readonly ratio = new RatioDist();
  readonly typeCounts = new Float64Array(256);
  readonly blob = new BlobTally();
  live = 0;
  shadowed = 0;
  tombstones = 0;
  rangeDeleted = 0;
  read = 0;
  physical = 0;
  logical = 0;
  blocks = 0;
  readonly stats: boolean;
  readonly deadline: number | undefined;
  /** The WAL layer's run, and its entries visited (what a stopped task read of it). */
  memRun: Run | undefined;
  walVisited = 0;
  readonly codeM: RoleMatcher | undefined;
  readonly accM: RoleMatcher | undefined;
  readonly codeAcc: CodeAcc | undefined;
  readonly accAcc: AccountAcc | undefined;
  readonly storageAcc: StorageAcc | undefined;
  /** Per geth key category: live records, key and value sizes. */
  readonly categories: Map<string, { keySize: SizeDist; valueSize: SizeDist }> | undefined;

  constructor(
    task: ScanTask,
    private readonly progress: ((bytes: number) => void) | undefined,
    readonly blobSizer: BlobValueSizer,
  ) {
    this.stats = task.collectStats;
    this.deadline = task.deadline;
    this.codeM = matcher(task.roles.find((r) => r.role === "code"));
    this.accM = matcher(task.roles.find((r) => r.role === "accounts"));
    this.codeAcc = this.codeM ? new CodeAcc() : undefined;
    this.accAcc = this.accM ? new AccountAcc(new Set(task.delegationHashes)) : undefined;
    const storage = task.roles.find((r) => r.role === "storage")?.storage;
    this.storageAcc = storage ? new StorageAcc(storage) : undefined;
    this.categories = task.gethCategories && task.collectStats ? new Map() : undefined;
  }

  block(e: BlockEvent): void {
    if (this.deadline !== undefined && Date.now() > this.deadline) throw new ScanStopped();
    if (!e.counted) return;
    const phys = e.handle.size + BLOCK_TRAILER_SIZE;
    this.blocks++;
    this.physical += phys;
    this.logical += e.logical;
    if (e.logical > 0) this.ratio.add(phys / e.logical);
    this.progress?.(phys);
  }

  /** An entry told without its value (hashNewest): a task without roles or categories needs none. */
  record(type: number, userKeyLength: number, valueSize: number, fate: Fate, fromWal: boolean): void {
    if (!this.counted(type, fate, fromWal)) return;
    if (this.stats) {
      this.keyTally.add(userKeyLength);
      this.valueTally.add(valueSize);
    }
  }

  /** Count an entry by its fate and type: whether it is a live record. */
  private counted(type: number, fate: Fate, fromWal: boolean): boolean {
    this.read++;
    if (fromWal) this.walVisited++;
    if (this.stats) this.typeCounts[type]!++;
    if (fate === Fate.Shadowed) {
      this.shadowed++;
      return false;
    }
    if (fate === Fate.RangeDeleted) {
      this.rangeDeleted++;
      return false;
    }
    if (isTombstone(type)) {
      this.tombstones++;
      return false;
    }
    this.live++;
    return true;
  }

  visit(r: Run, fate: Fate): void {
    const type = r.type;
    if (!this.counted(type, fate, r === this.memRun)) return;
    const kl = r.ukLen;
    const key = r.key;
    let vSize: number | undefined = r.vSize;
    if (type === ValueType.BlobIndex)
      vSize = blobIndexedValueSize(
        r.data,
        r.vOff,
        r.vLen,
        r.vSize,
        this.blobSizer,
        this.stats ? this.blob : undefined,
      );
    const categories = this.categories;
    if (categories) {
      const name = gethKeyCategory(key.subarray(0, kl));
      let c = categories.get(name);
      if (!c) {
        c = { keySize: new SizeDist(), valueSize: new SizeDist() };
        categories.set(name, c);
      }
      c.keySize.add(kl);
      if (vSize !== undefined) c.valueSize.add(vSize);
    }
    if (this.stats) {
      this.keyTally.add(kl);
      if (vSize !== undefined) this.valueTally.add(vSize);
    }
    const codeM = this.codeM;
    if (this.codeAcc && matches(codeM!, key, kl) && kl - codeM!.hashOff >= 32) {
      if (type !== ValueType.BlobIndex) {
        const blockId =
          r.path !== undefined && r.block ? `${r.path}\0${r.block.offset}\0${r.block.size}` : undefined;
        this.codeAcc.add(key, codeM!.hashOff, r.data, r.vOff, r.vLen, blockId);
      }
    }
    if (this.accAcc && matches(this.accM!, key, kl)) this.accAcc.add(r.data, r.vOff, r.vLen);
    const st = this.storageAcc;
    if (st && st.matches(key, kl)) st.add(key, kl + (vSize ?? 0));
  }

  /** Settle what visit() counted: call once the merge is over, before reading the figures. */
  done(): void {
    this.keyTally.fold();
    this.valueTally.fold();
  }
}

/** Passes on bytes beyond the most passed on so far: a task read a second time tells none twice. */
class HighWater {
  private told = 0;
  private seen = 0;
  constructor(private readonly progress: (bytes: number) => void) {}
  readonly add = (bytes: number): void => {
    this.seen += bytes;
    if (this.seen > this.told) {
      this.progress(this.seen - this.told);
      this.told = this.seen;
    }
  };
  restart(): void {
    this.seen = 0;
  }
}

/**
 * Read the task's runs once and account every entry: merged, or by each sub-range's keys (`byHash`:
 * hashNewest, which may throw UseMerge).
 */
function scanRuns(
  task: ScanTask,
  progress: ((bytes: number) => void) | undefined,
  tables: TableSource | undefined,
  rangeDels: RangeTombstone[],
  byHash: ScanTask["newestByHash"],
): { scan: TaskScan; stopped: boolean } {
  const lo = task.loHex !== undefined ? fromHex(task.loHex) : undefined;
  const hi = task.hiHex !== undefined ? fromHex(task.hiHex) : undefined;
  const scan = new TaskScan(task, progress, threadBlobSizer(task.blobFiles, task.refusedBlobFiles));
  const readAhead = mergeReadAhead(task.runs.length);
  const runs: Run[] = task.runs.map((files) => new TableRun(files, lo, hi, scan, tables, readAhead));
  if (memCount(task.mem) > 0) {
    scan.memRun = new MemRun(task.mem);
    runs.unshift(scan.memRun);
  }
  let stopped = false;
  try {
    toleratingGone(() =>
      byHash
        ? hashNewest(runs, scan.memRun, rangeDels, scan, byHash.cutsHex.map(fromHex))
        : mergeNewest(runs, rangeDels, scan),
    );
  } catch (e) {
    if (!(e instanceof ScanStopped)) throw e;
    stopped = true;
  } finally {
    for (const r of runs) r.close();
  }
  scan.done();
  return { scan, stopped };
}

/**
 * Run one task; `progress` gets the stored bytes of each counted block as it is read. `tables`: where
 * the runs get their tables (a thread's TableCache keeps them open from one key range to the next).
 * `thread`: worker_threads' threadId of the thread running it (0: the main thread), given by the
 * caller, so that the main thread runs scan tasks without loading worker_threads (~3 ms of `check`'s
 * start, whose code-population rule plans with sizes).
 */
export function runScanTask(
  task: ScanTask,
  progress?: (bytes: number) => void,
  tables?: TableSource,
  thread = 0,
): PartialResult {
  const t0 = Date.now();
  const rangeDels = task.rangeDels.map((r) => ({
    start: fromHex(r.startHex),
    end: fromHex(r.endHex),
    seqno: r.seqno,
  }));
  let result: { scan: TaskScan; stopped: boolean };
  if (!task.newestByHash) result = scanRuns(task, progress, tables, rangeDels, undefined);
  else {
    const told = progress && new HighWater(progress);
    try {
      result = scanRuns(task, told?.add, tables, rangeDels, task.newestByHash);
    } catch (e) {
      if (!(e instanceof UseMerge)) throw e;
      // merge after all, telling progress of no byte twice
      told?.restart();
      result = scanRuns(task, told?.add, tables, rangeDels, undefined);
    }
  }
  const { scan, stopped } = result;
  const walEntries = memCount(task.mem);

  const valueTypes: Record<string, number> = {};
  for (let t = 0; t < 256; t++)
    if (scan.typeCounts[t]! > 0) valueTypes[valueTypeName(t)] = scan.typeCounts[t]!;
  const out: PartialResult = {
    id: task.id,
    keySize: scan.keySize.data(),
    valueSize: scan.valueSize.data(),
    live: scan.live,
    shadowed: scan.shadowed,
    tombstones: scan.tombstones,
    rangeDeleted: scan.rangeDeleted,
    read: scan.read,
    wal: stopped ? scan.walVisited : walEntries,
    valueTypes,
    blob: scan.blob.data(),
    physical: scan.physical,
    logical: scan.logical,
    blocks: scan.blocks,
    ratio: { bins: scan.ratio.bins, count: scan.ratio.count, min: scan.ratio.min, max: scan.ratio.max },
    elapsedMs: Date.now() - t0,
    thread,
    startedAt: t0,
  };
  if (stopped) out.stopped = true;
  const gone = takeGone();
  if (gone.length > 0) out.gone = gone;
  if (scan.codeAcc) out.code = scan.codeAcc.data();
  if (scan.accAcc) out.accounts = scan.accAcc.data();
  if (scan.storageAcc) out.storage = scan.storageAcc.data();
  if (scan.categories) {
    out.categories = {};
    for (const [name, c] of scan.categories)
      out.categories[name] = { keySize: c.keySize.data(), valueSize: c.valueSize.data() };
  }
  return out;
}
