/**
 * computeSizes(dir): value/key size distributions per column family, physical vs logical bytes, and
 * the Ethereum views (accounts by kind, code sizes, reuse, co-tenancy of maximum-size contracts).
 *
 * Full mode: every data block, newest visible version per key (k-way merge, merge.ts; over 1,024 runs
 * or more without Ethereum roles, each sub-range's keys: newest_by_hash.ts), spread over worker
 * threads by user-key range. Two phases: the code location first (its delegation designators
 * are needed to tell EIP-7702 delegated EOAs from contracts), then every other column family with
 * the account view attached. Sample mode: sample.ts.
 */
import { prepareChecksums } from "../format/checksum.js";
import { prepareKeccak } from "../eth/keccak.js";
import { availableParallelism } from "node:os";
import { incompleteReasons, inspectDatadir } from "../datadir/inspect.js";
import { refusedBlobFilesOf, verifyBlobRecords } from "../datadir/blob_file.js";
import { openTable } from "../format/table.js";
import { MAX_CODE_SIZE } from "../eth/code.js";
import { SizeDist } from "./dist.js";
import { AccountAcc, CodeAcc } from "./eth_acc.js";
import { costliestFirst, settleAccounts } from "./full_order.js";
import { CfAgg } from "./cf_agg.js";
import {
  cfKey,
  locateEth,
  CfPlanCache,
  resolveLocation,
  selectCfs,
  tasksFor,
  FIRST_RANGE_HEAD_START,
  KEPT_TABLE_HEAD_START,
  blobFilesOf,
  NEWEST_BY_HASH_MIN_RUNS,
  KEY_RANGE_CUT_MIN_RUN_BYTES,
  type CfPlan,
  type TaskSplit,
} from "./plan.js";
import { ScanPool } from "./pool.js";
import type { DatadirModel } from "../datadir/model.js";
import { formatBytes } from "../util/bytes.js";
import { describeOsError, LsmscopeError } from "../util/errors.js";
import type { PartialResult, RoleSpec, ScanTask } from "./scan.js";
import { computeSample } from "./sample.js";
import type {
  AccountView,
  CodeView,
  CoTenancyBlock,
  ColumnFamilySizes,
  EthSizes,
  Share,
  SizesOptions,
  SizesReport,
  ViewPlace,
} from "./types.js";
import { orderedClassCounts } from "../eth/code.js";
import { cfLabel } from "../datadir/names.js";
import { takeGone } from "../lsm/gone.js";
import { classifyGoneTables } from "../datadir/vanished.js";
import { plural } from "../util/words.js";
import { prefixSuccessor } from "../util/prefix.js";
import { locateStorage, type StorageLocation } from "./contracts/layout.js";
import { StorageMerge } from "./contracts/acc.js";
import { storageView } from "./contracts/view.js";
import { sampledStorageOf } from "./contracts/sample.js";
import { PlanWalLayers } from "./wal_layers.js";
import { isBytewiseComparator } from "../base/comparator.js";

/**
 * Default: below this much SST data a full scan runs in one thread (measured: a second thread, cold
 * and sharing V8's compiler/GC helper threads, only starts to pay off around a few hundred MiB). The
 * same over an L0 pile-up, whatever its table count: two threads each merge every run over half the
 * keys (each opens every table), and on 4,354 tables of 68 KiB (295 MB) they took 0.80 of one
 * thread's wall time (5 paired rounds) for 1.33x its CPU, peak RSS 215 against 141 MiB; on 1,284 such
 * tables (62 MB) 1.13x its wall time. Until session 8 the runs also had to average 8 MiB (two threads
 * over 4,537 L0 tables then took 9.5 s of CPU against 5.0 s, and 357 against 220 MiB); since, a worker's
 * young generation stays at 2 x 1 MiB (util/worker_heap.ts: 2 x 16 MiB in each thread before) and a
 * run's first block no longer takes a buffer of its own (format/table_file.ts).
 */
const PARALLEL_MIN_BYTES = 256 * 1024 * 1024;

/**
 * Key ranges per thread of a split column family. One: every extra range a thread takes costs it a
 * round of V8 de-optimisation and re-compilation (the new range takes branches the last one never did)
 * while both cores are busy scanning; measured on a 520 MiB store with 2 threads, 1 range per thread
 * scanned in 1.16 s, 2 in 1.31 s, 4 in 1.36 s. Threads claim tasks as they free up, so several column
 * families still even out between threads.
 */
const RANGES_PER_THREAD = 1;

/** Column families smaller than this are one task (not split by key range). */
const SPLIT_MIN_BYTES = 4 * 1024 * 1024;

function share(count: number, of: number): Share {
  return { count, of, share: of > 0 ? count / of : 0 };
}

function coTenancy(code: CodeAcc, role: RoleSpec): CodeView["coTenancy"] {
  const perBlock: CoTenancyBlock[] = [];
  const prefix = role.prefixHex ? Buffer.from(role.prefixHex, "hex") : Buffer.alloc(0);
  for (const [id] of code.maxBlocks) {
    const [path, off, size] = id.split("\0") as [string, string, string];
    const t = openTable(path);
    try {
      const db = t.readDataBlock({ offset: Number(off), size: Number(size) });
      const c = db.cursor();
      let records = 0;
      let bytes = 0;
      let maxN = 0;
      let maxBytes = 0;
      while (c.next()) {
        records++;
        const kb = c.userKeyLength + c.valueLength;
        bytes += kb;
        const isCode =
          c.valueLength === MAX_CODE_SIZE &&
          (role.keyLength === undefined || c.userKeyLength === role.keyLength) &&
          c.key.subarray(0, prefix.length).equals(prefix);
        if (isCode) {
          maxN++;
          maxBytes += kb;
        }
      }
      perBlock.push({
        file: path,
        blockOffset: Number(off),
        blockBytes: Number(size),
        records,
        maxSizeContracts: maxN,
        otherRecords: records - maxN,
        otherBytes: bytes - maxBytes,
      });
    } finally {
      t.close();
    }
  }
  const stat = (xs: number[]) => ({
    mean: xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0,
    min: xs.length ? Math.min(...xs) : 0,
    max: xs.length ? Math.max(...xs) : 0,
    total: xs.reduce((a, b) => a + b, 0),
  });
  const sorted = [...perBlock].sort((a, b) => b.otherBytes - a.otherBytes || a.blockOffset - b.blockOffset);
  return {
    blocks: perBlock.length,
    maxSizeContracts: perBlock.reduce((s, b) => s + b.maxSizeContracts, 0),
    otherRecords: stat(perBlock.map((b) => b.otherRecords)),
    otherBytes: stat(perBlock.map((b) => b.otherBytes)),
    perBlock: sorted.slice(0, 50),
  };
}

export function codeView(code: CodeAcc, role: RoleSpec, location: string): Omit<CodeView, keyof ViewPlace> {
  const contracts = code.liveKeys - code.delegations;
  return {
    location,
    liveKeys: code.liveKeys,
    delegations: share(code.delegations, code.liveKeys),
    distinctContractBytecodes: contracts,
    atMax: share(code.atMax, contracts),
    overMax: code.overMax,
    codeSize: code.sizes.summary(),
    classes: orderedClassCounts(code.classes),
    keyedBy: code.keyedByAccountHash ? "account-hash" : "code-hash",
    coTenancy: coTenancy(code, role),
  };
}

export function accountView(
  acc: AccountAcc,
  code: CodeAcc | undefined,
  location: string,
): Omit<AccountView, keyof ViewPlace> {
  const d = acc.distinct();
  const distinct = d.count;
  const view: Omit<AccountView, keyof ViewPlace> = {
    location,
    total: acc.total,
    eoa: share(acc.eoa, acc.total),
    delegatedEoa: share(acc.delegated, acc.total),
    contract: share(acc.contract, acc.total),
    undecodable: acc.undecodable,
    codeNotFound: 0,
    distinctCodeHashes: distinct,
    distinctCodeHashesExact: d.exact,
    reuseFactor: distinct > 0 ? acc.contract / distinct : 0,
    contractsPerStoredBytecode: 0,
  };
  const stored = code ? code.liveKeys - code.delegations : 0;
  if (stored > 0) view.contractsPerStoredBytecode = acc.contract / stored;
  if (code?.codeMap && acc.codeHashCounts) {
    const per = new SizeDist();
    let missing = 0;
    for (const [h, n] of acc.codeHashCounts) {
      const s = code.codeMap.get(h);
      if (s === undefined) missing += n;
      else per.add(s, n);
    }
    view.codeNotFound = missing;
    view.perContractCodeSize = per.summary();
  }
  return view;
}

type Located = NonNullable<ReturnType<typeof resolveLocation>>;

/** The Ethereum views of a full scan, from what its tasks accounted. */
function ethSizes(c: {
  opts: SizesOptions;
  eth: ReturnType<typeof locateEth>;
  notes: string[];
  code?: { loc: Located; acc: CodeAcc };
  accounts?: { loc: Located; acc: AccountAcc };
  noCode: boolean;
  storage?: { loc: StorageLocation; plan: CfPlan; merge: StorageMerge };
  partial: boolean;
  /** Accounts, code or storage were located (the views are reported, even empty). */
  located: boolean;
}): EthSizes | undefined {
  const { opts, eth } = c;
  if (opts.eth === "off" || !c.located) {
    if (opts.eth !== "off" && eth.notes.length) c.notes.push(...eth.notes);
    return undefined;
  }
  const out: EthSizes = { client: eth.client, notes: [...eth.notes] };
  if (c.code)
    out.code = {
      ...codeView(c.code.acc, { role: "code", ...c.code.loc.role }, c.code.loc.location),
      ...c.code.loc.where,
    };
  const a = c.accounts;
  if (a && a.acc.total + a.acc.undecodable > 0)
    out.accounts = { ...accountView(a.acc, c.code?.acc, a.loc.location), ...a.loc.where };
  if (c.storage)
    out.storage = storageView(c.storage.merge, c.storage.loc, {
      instance: c.storage.plan.instance.relPath,
      cf: c.storage.plan.cf.displayName,
    });
  if (c.partial)
    out.notes.push(
      "PARTIAL: the scan did not read everything (see the last line); these views cover what was read",
    );
  if (c.noCode)
    out.notes.push(
      "no code column family: delegated EOAs cannot be told from contracts (counted as contracts)",
    );
  return out;
}

/**
 * What a full scan could not cover: tables and WALs deleted under it (planning's in this thread and
 * every task's), judged against the current MANIFEST — replaced ones are a note, still-listed ones leave
 * the picture incomplete — and column families the --timeout deadline stopped part-way.
 */
function scanShortfalls(s: {
  model: DatadirModel;
  gone: string[];
  stopped: string[];
  codeStopped: boolean;
  doneBytes: number;
  totalBytes: number;
  notes: string[];
}): { incomplete: string[]; vanishedFiles: string[] } {
  s.gone.push(...takeGone());
  const vanished = classifyGoneTables(s.model, [...new Set(s.gone)].sort());
  if (vanished.replaced.length > 0)
    s.notes.push(
      `${plural(vanished.replaced.length, "file")} deleted during the scan and no longer needed by the current version (tables a live node's compaction replaced, WALs it flushed) were skipped: their entries are left out (vanishedFiles)`,
    );
  const incomplete = vanished.missing.map(
    (p) => `${p}: the table was deleted during the scan and the current MANIFEST still lists it`,
  );
  const stopped = [...s.stopped, ...(s.codeStopped ? ["the code pre-pass"] : [])];
  if (stopped.length > 0) {
    const share = s.totalBytes > 0 ? ((100 * s.doneBytes) / s.totalBytes).toFixed(0) : "0";
    incomplete.push(
      `the --timeout deadline stopped the scan after ${formatBytes(s.doneBytes)} of ${formatBytes(s.totalBytes)} of data blocks (${share}%); ${partialList(stopped)}`,
    );
  }
  return { incomplete, vanishedFiles: vanished.replaced };
}

/** "partial: a, b" for a few, "partial: 7 column families (see partial in --json)" for more. */
function partialList(names: string[]): string {
  return names.length <= 3
    ? `partial: ${names.join(", ")}`
    : `${names.length} column families partial (marked in the report)`;
}

/**
 * Start getting ready what a full scan can prepare off this thread (the WASM XXH3 that checks every
 * block compiles in the background): for a caller that reads the model itself before computeSizes().
 */
export function prepareFullScan(): void {
  void prepareChecksums();
}

/** Size distributions, account population and code co-tenancy of the store(s) under `dir`. */
export async function computeSizes(dir: string, opts: SizesOptions = {}): Promise<SizesReport> {
  const t0 = Date.now();
  // full mode: the XXH3 compiles while the model is read and the scan is planned
  if (opts.mode !== "sample") prepareFullScan();
  const model = opts.model ?? (await inspectDatadir(dir, {}));
  const report = await computeSizesOf(model, opts, t0);
  const sampled = report.mode === "sample" && opts.eth !== "off" ? sampledStorageOf(model, opts) : undefined;
  if (sampled) {
    report.eth ??= { client: report.client, notes: [] };
    if (sampled.view) report.eth.storage = sampled.view;
    report.eth.notes.push(sampled.note);
    if (sampled.incomplete) (report.incomplete ??= []).push(sampled.incomplete);
  }
  // what the model could not read is left out of every figure: say so
  report.incomplete = [
    ...incompleteReasons(model),
    ...(report.incomplete ?? []),
    ...unreadBlobReasons(model, report),
  ];
  return report;
}

/**
 * One located line per column family whose blob records could not be read (left out of its value
 * bytes): its live blob files are verified record by record to name the file and offset.
 */
function unreadBlobReasons(model: DatadirModel, report: SizesReport): string[] {
  const out: string[] = [];
  for (const c of report.columnFamilies) {
    const unread = c.blobIndexed?.unread ?? 0;
    if (unread === 0) continue;
    const cf = model.instances
      .find((i) => i.relPath === c.instance)
      ?.columnFamilies.find((x) => x.nameHex === c.nameHex);
    let where = "";
    for (const b of cf?.blobFiles ?? []) {
      if (!b.present) continue;
      let e: string | undefined;
      try {
        const v = verifyBlobRecords(b.path).error;
        if (v) e = `${b.path} @ offset ${v.offset}: ${v.message}`;
      } catch (err) {
        e = `${b.path}: ${describeOsError(err)}`; // e.g. permission denied (EACCES)
      }
      if (e) {
        where = `${e}; `;
        break;
      }
    }
    out.push(`${where}${c.displayName}: ${unread} blob record${unread === 1 ? "" : "s"} could not be read`);
  }
  return out;
}

async function computeSizesOf(model: DatadirModel, opts: SizesOptions, t0: number): Promise<SizesReport> {
  if (opts.mode === "sample") return computeSample(model, opts, t0);
  // threads start before planning (which opens every table), so their module loading overlaps it;
  // by default only when there is enough to read for two threads to pay for their start-up
  const storeBytes = model.instances.reduce((s, i) => s + i.totals.sstBytes, 0);
  const pays = storeBytes >= PARALLEL_MIN_BYTES;
  const workers = Math.max(1, Math.floor(opts.workers ?? (pays ? Math.min(2, availableParallelism()) : 1)));
  const pool = new ScanPool(workers, opts.mainThreadScans !== false);
  try {
    return await computeFull(model, opts, t0, pool);
  } finally {
    await pool.close();
  }
}

/** A full scan's column families must order keys bytewise: the newest-version merge compares bytes. */
function requireBytewise(selected: ReturnType<typeof selectCfs>): void {
  for (const { inst, cf } of selected) {
    const cmp = cf.comparator ?? inst.manifest?.comparator;
    if (!isBytewiseComparator(cmp))
      throw new LsmscopeError(
        `${inst.relPath}/${cf.displayName} uses comparator ${cmp}: the newest-version merge orders keys bytewise; use --sample`,
        { exitCode: 2 },
      );
  }
}

/** Bytes of data blocks read so far out of the planned total, reported to `onProgress` as they come. */
interface FullProgress {
  done: number;
  total: number;
  add: (bytes: number) => void;
}

/** A task list over one column family (keyed by cfKey). */
interface CfTasks {
  tasks: ScanTask[];
  key: string;
}

/** Where the Ethereum views are, and the two phases of tasks over the selected column families. */
interface FullPlan {
  selected: ReturnType<typeof selectCfs>;
  selectedKeys: Set<string>;
  plans: Map<string, CfPlan>;
  eth: ReturnType<typeof locateEth>;
  accLoc: Located | undefined;
  codeLoc: Located | undefined;
  storageLoc: StorageLocation | undefined;
  /** Phase A: the code location; `stats` when it is a whole selected column family (its sizes count). */
  phaseA: (CfTasks & { stats: boolean }) | undefined;
  /** Phase B: every other selected column family; delegation hashes are filled in after phase A. */
  phaseB: CfTasks[];
}

/** Locate the Ethereum views, plan every selected column family and cut both phases into tasks. */
function planFull(model: DatadirModel, opts: SizesOptions, pool: ScanPool, progress: FullProgress): FullPlan {
  const workers = pool.size;
  const includeWal = opts.includeWal !== false;
  const selected = selectCfs(model, opts);
  requireBytewise(selected);
  const eth = locateEth(model, opts.eth);
  const accLoc = resolveLocation(model, eth.accounts);
  const codeLoc = resolveLocation(model, eth.code);
  const storageLoc = opts.eth === undefined || opts.eth === "auto" ? locateStorage(model) : undefined;

  const planCache = new CfPlanCache(
    includeWal,
    (runs, tables) => pool.keepOpened(runs, tables),
    () => pool.heedWorkerStarts(),
  );
  const plans = planCache.plans;
  const planFor = (inst: CfPlan["instance"], cf: CfPlan["cf"]) => planCache.get(inst, cf);
  for (const s of selected) planFor(s.inst, s.cf);
  // each instance's WALs replayed once for all its planned column families
  const walLayers = new PlanWalLayers(plans);
  const selectedKeys = new Set(selected.map((s) => cfKey(s.inst, s.cf)));

  let id = 0;
  const nextId = () => id++;
  const parts =
    workers > 1 ? workers * Math.max(1, Math.floor(opts.rangesPerThread ?? RANGES_PER_THREAD)) : 1;
  const split: TaskSplit = {
    minBytes: opts.splitMinBytes ?? SPLIT_MIN_BYTES,
    hashMinRuns: opts.newestByHashMinRuns ?? NEWEST_BY_HASH_MIN_RUNS,
    minRunBytes: opts.keyRangeCutMinRunBytes ?? KEY_RANGE_CUT_MIN_RUN_BYTES,
  };
  // the first task list the pool runs may get the head start: this thread claims its first range at
  // once, a worker when it is ready
  let first = workers > 1 && opts.mainThreadScans !== false;
  const takeHeadStart = (plan: CfPlan) => {
    if (!first) return 0;
    first = false;
    // tables kept open from planning save this thread their openings (~45 µs each), which a worker
    // still pays as its runs reach them
    const kept = plan.keptOpen * KEPT_TABLE_HEAD_START;
    return (pool.workersReady() ? 0 : FIRST_RANGE_HEAD_START) + kept;
  };

  // phase A: code
  let codeWholeCf: string | undefined;
  const phaseA: FullPlan["phaseA"] = codeLoc
    ? (() => {
        const plan = planFor(codeLoc.inst, codeLoc.cf);
        const role: RoleSpec = { role: "code", ...codeLoc.role };
        const whole = !codeLoc.role.prefixHex && selectedKeys.has(plan.key);
        if (whole) codeWholeCf = plan.key;
        const range = codeLoc.role.prefixHex
          ? {
              loHex: codeLoc.role.prefixHex,
              hiHex: prefixSuccessor(Buffer.from(codeLoc.role.prefixHex, "hex"))?.toString("hex"),
            }
          : undefined;
        const tasks = tasksFor(
          plan,
          walLayers.of(plan),
          parts,
          {
            collectStats: whole,
            roles: [role],
            delegationHashes: [],
            blobFiles: blobFilesOf(plan.cf),
            refusedBlobFiles: refusedBlobFilesOf(plan.cf),
            deadline: opts.deadline,
          },
          nextId,
          split,
          range,
          takeHeadStart(plan),
        );
        return { tasks, key: plan.key, stats: whole };
      })()
    : undefined;
  // phase B planned now so the progress total is known; delegation hashes are filled in after phase A
  const phaseB: CfTasks[] = [];
  for (const s of selected) {
    const plan = planFor(s.inst, s.cf);
    if (plan.key === codeWholeCf) continue;
    const roles: RoleSpec[] = [];
    if (accLoc && cfKey(accLoc.inst, accLoc.cf) === plan.key)
      roles.push({ role: "accounts", ...accLoc.role });
    const isStorage = storageLoc?.instance === s.inst.relPath && storageLoc.cfNameHex === s.cf.nameHex;
    if (isStorage) roles.push({ role: "storage", storage: storageLoc.layout });
    const gethCategories =
      (s.inst.engine === "leveldb" || s.inst.engine === "pebble") && s.inst.client === "geth";
    phaseB.push({
      key: plan.key,
      tasks: tasksFor(
        plan,
        walLayers.of(plan),
        parts,
        {
          collectStats: true,
          deadline: opts.deadline,
          roles,
          delegationHashes: [],
          gethCategories,
          blobFiles: blobFilesOf(plan.cf),
          refusedBlobFiles: refusedBlobFilesOf(plan.cf),
        },
        nextId,
        split,
        undefined,
        takeHeadStart(plan),
      ),
    });
  }
  for (const p of plans.values()) if (selectedKeys.has(p.key)) progress.total += p.dataBytes;
  return { selected, selectedKeys, plans, eth, accLoc, codeLoc, storageLoc, phaseA, phaseB };
}

/** What the tasks of a full scan accounted, merged per column family and per Ethereum view. */
interface FullResults {
  aggs: Map<string, CfAgg>;
  codeAcc: CodeAcc | undefined;
  accAcc: AccountAcc | undefined;
  storageMerge: StorageMerge;
  /** The column family the storage view was read from, when any task found storage. */
  storageKey: string | undefined;
  /** Tables and WALs the tasks found deleted under them. */
  gone: string[];
  entriesRead: number;
  codeStopped: boolean;
  scanMs: number;
}

/**
 * Run phase A (code) and phase B (everything else) on the pool. Phase B's accounts need phase A's
 * delegation hashes; where phase A is a column family of its own, both phases run as one batch, the
 * costliest tasks first, and each account range's delegated accounts are told apart afterwards
 * (settleDelegations; a range past DISTINCT_CAP code hashes is scanned again with them). Run one
 * after the other, the code column family's merge kept one thread while the other waited: the Besu
 * pile-up (three column families of ~800 L0 tables, each merged whole) spent 0.47 s in code alone,
 * then 0.81 s of accounts beside 1.5 s of storage. A geth code-prefix pre-pass (its bytes outside the
 * progress total) still runs first.
 */
async function runFull(plan: FullPlan, pool: ScanPool, progress: FullProgress): Promise<FullResults> {
  const { phaseA, phaseB, accLoc } = plan;
  const onProgress = (b: number) => progress.add(b);
  const codeAcc = plan.codeLoc ? new CodeAcc() : undefined;
  const aggs = new Map<string, CfAgg>();
  const scanT0 = Date.now();
  let entriesRead = 0;
  let codeStopped = false;
  const gone: string[] = [];
  const allB = phaseB.flatMap((p) => p.tasks);
  const together = phaseA !== undefined && phaseA.stats;
  let results: PartialResult[] = [];
  if (phaseA) {
    // a code-prefix pre-pass (geth) reads a key range of a column family that phase B reads whole:
    // its bytes are not part of the progress total
    const tasks = together ? costliestFirst([phaseA, ...phaseB], plan.plans) : phaseA.tasks;
    const ran = await pool.run(tasks, phaseA.stats ? onProgress : () => {});
    const byId = new Map(ran.map((r) => [r.id, r]));
    const agg = new CfAgg();
    for (const t of phaseA.tasks) {
      const r = byId.get(t.id)!;
      gone.push(...(r.gone ?? []));
      if (r.stopped) codeStopped = true;
      if (r.code) codeAcc!.merge(r.code);
      if (phaseA.stats) agg.add(r);
      entriesRead += r.read;
    }
    if (phaseA.stats) aggs.set(phaseA.key, agg);
    if (together) results = allB.map((t) => byId.get(t.id)!);
  }
  const delegationHashes = codeAcc ? [...codeAcc.delegationHashes] : [];
  const accAcc = accLoc ? new AccountAcc(codeAcc?.delegationHashes ?? new Set()) : undefined;
  for (const t of allB) t.delegationHashes = delegationHashes;
  if (!together) results = await pool.run(costliestFirst(phaseB, plan.plans), onProgress);
  else results = await settleAccounts(allB, results, codeAcc?.delegationHashes ?? new Set(), pool);
  const byId = new Map(results.map((r) => [r.id, r]));
  // a column family's tasks are its key ranges in ascending order: contracts cut at a range edge join up
  const storageMerge = new StorageMerge();
  let storageKey: string | undefined;
  for (const p of phaseB) {
    const agg = new CfAgg();
    for (const t of p.tasks) {
      const r = byId.get(t.id)!;
      gone.push(...(r.gone ?? []));
      agg.add(r);
      entriesRead += r.read;
      if (r.accounts) accAcc!.merge(r.accounts);
      if (r.storage) {
        storageMerge.add(r.storage);
        storageKey = p.key;
      }
    }
    aggs.set(p.key, agg);
  }
  const scanMs = Date.now() - scanT0;
  return { aggs, codeAcc, accAcc, storageMerge, storageKey, gone, entriesRead, codeStopped, scanMs };
}

async function computeFull(
  model: DatadirModel,
  opts: SizesOptions,
  t0: number,
  pool: ScanPool,
): Promise<SizesReport> {
  const progress: FullProgress = {
    done: 0,
    total: 0,
    add(b) {
      this.done += b;
      opts.onProgress?.(this.done, this.total);
    },
  };
  // every block's checksum is checked by the faster XXH3, compiling since the model began to be read
  // (prepareFullScan): it checks the blocks planning reads too, so the native binding is not loaded
  // for them (~3 ms, 4 MiB)
  await prepareChecksums();
  const plan = planFull(model, opts, pool, progress);
  // the code view hashes every contract's code where a store keys it by account hash (eth_acc.ts)
  if (plan.codeLoc) await prepareKeccak();
  const { selected, selectedKeys, plans, accLoc, codeLoc, storageLoc } = plan;
  const notes: string[] = [
    "full mode: every data block of every live SST (and unflushed WAL writes, newest first) merged by user key; only the newest visible version of each key is counted, older versions and tombstones are obsoleteEntries",
    "physicalBytes: stored data-block bytes including the 5-byte block trailers (as rocksdb.data.size); logicalBytes: uncompressed data blocks",
  ];
  if (opts.includeWal === false) notes.push("WAL writes were left out (includeWal=false)");
  const mergeNote =
    "merge operands: a key whose newest entry is a merge operand counts as live, sized by that operand; older operands of the key count as shadowed";

  const r = await runFull(plan, pool, progress);

  const columnFamilies: ColumnFamilySizes[] = [];
  for (const s of selected) {
    const k = cfKey(s.inst, s.cf);
    columnFamilies.push(r.aggs.get(k)!.result(plans.get(k)!));
  }
  if (columnFamilies.some((c) => (c.valueTypes["merge"] ?? 0) > 0)) notes.push(mergeNote);
  const { incomplete, vanishedFiles } = scanShortfalls({
    model,
    gone: r.gone,
    stopped: selected
      .filter((x) => r.aggs.get(cfKey(x.inst, x.cf))!.stopped)
      .map((x) => cfLabel(x.inst, x.cf.displayName)),
    codeStopped: r.codeStopped,
    doneBytes: progress.done,
    totalBytes: progress.total,
    notes,
  });

  const storagePlan = r.storageKey !== undefined ? plans.get(r.storageKey) : undefined;
  const ethOut = ethSizes({
    opts,
    eth: plan.eth,
    notes,
    code: codeLoc && r.codeAcc ? { loc: codeLoc, acc: r.codeAcc } : undefined,
    accounts:
      accLoc && r.accAcc && selectedKeys.has(cfKey(accLoc.inst, accLoc.cf))
        ? { loc: accLoc, acc: r.accAcc }
        : undefined,
    noCode: !codeLoc,
    storage:
      storageLoc && storagePlan ? { loc: storageLoc, plan: storagePlan, merge: r.storageMerge } : undefined,
    partial: incomplete.length > 0,
    located: Boolean(accLoc || codeLoc || r.storageKey),
  });

  return {
    root: model.root,
    client: model.client.kind,
    mode: "full",
    confidence: opts.confidence ?? 0.95,
    workers: pool.threadsUsed,
    columnFamilies,
    eth: ethOut,
    notes,
    elapsedMs: Date.now() - t0,
    entriesPerSecond: r.scanMs > 0 ? Math.round((r.entriesRead / r.scanMs) * 1000) : undefined,
    incomplete,
    ...(vanishedFiles.length > 0 ? { vanishedFiles } : {}),
  };
}
