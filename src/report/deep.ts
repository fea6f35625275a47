/**
 * What `inspect` reads per SST, in its two modes (both read the tail of each file; data blocks only where noted):
 *
 * - cheap (default): the datadir model with `tableDetails: "cheap"`: per live table the footer, the
 *   metaindex, the properties block and the filter's metadata (5 bytes of a full filter, or the
 *   partition index of a partitioned one). The blocks read (metaindex, properties, a partition index)
 *   have their checksums verified; the filter's metadata bytes are a peek, not a block read.
 * - deep (`--deep`): the same, plus the whole index (every partition of a two-level index) walked to count
 *   the data blocks and measure their stored sizes (min/mean/max, instead of the data-size/block-count
 *   estimate), cross-checked against "rocksdb.num.data.blocks"; and every block read (metaindex,
 *   properties, index and its partitions, filter partition index) has its checksum verified. Tables
 *   without an entry count property (LevelDB) have their data blocks read to count their entries.
 *
 * Deep mode builds the model without table details and fills `details` itself, so each table is opened
 * once: footer + metaindex + properties + filter metadata + index, in a handful of positioned reads.
 * On a store with very many tables (PARALLEL_MIN_TABLES) one worker thread reads the second half while
 * the main thread reads the first (when the compiled worker module exists and there is a second core).
 */
import { settleVanishedTables } from "../datadir/vanished.js";
import { inspectDatadir } from "../datadir/inspect.js";
import { tableEntries } from "../datadir/placement.js";
import type { DatadirModel, Finding, InspectOptions, SstFileModel } from "../datadir/model.js";
import { settleCallerTableSizes } from "../datadir/column_families.js";
import { readTableDeep, TAIL_PREFETCH, type DeepTableInfo, type DeepTableResult } from "./deep_table.js";
import { TailReadAhead } from "../util/tail_read_ahead.js";
import { TABLES_PER_YIELD, yieldEvery } from "../util/event_loop.js";
import { compactDetails } from "../datadir/table_details.js";
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import { compiledScript } from "../util/compiled_script.js";
import type { VerifyOptions, VerifyReport } from "../lsm/verify.js";

export { readTableDeep, type DeepTableInfo, type DeepTableResult } from "./deep_table.js";

export type InspectMode = "cheap" | "deep";

export interface InspectResult {
  model: DatadirModel;
  mode: InspectMode;
  /** Deep measurements by SST path (deep mode only). */
  deep?: Map<string, DeepTableInfo>;
  /** Deep mode: threads that actually read tables (2 when a worker took part). */
  readThreads?: number;
  /** With `verify`: what the verification pass read and checked. */
  verify?: VerifyReport;
}

export interface RunInspectOptions {
  mode?: InspectMode;
  readWal?: boolean;
  maxDepth?: number;
  onProgress?: (done: number, total: number, what: string) => void;
  /** Deep mode: threads reading tables (default: 2 from PARALLEL_MIN_TABLES tables on, if cores allow). */
  threads?: number;
  /** Then read and checksum every block of every live table and every blob record (verify.ts). */
  verify?: boolean | VerifyOptions;
  /**
   * Called once the stores' outlines are read, before their tables (InspectOptions.onOutline): the
   * result as read so far, in either mode; the table loops then yield to the event loop now and then.
   */
  onOutline?: (snapshot: () => InspectResult) => void | Promise<void>;
  /** Stops the table loops at their next yield (with onOutline), throwing the signal's reason. */
  signal?: AbortSignal;
}

/**
 * Below this many tables a worker's start-up (its own module graph and codecs, ~0.3-0.5 s CPU here) and
 * the structured clone of its results cost more than the half of the reads it takes over: measured on
 * 5,560 tables, one thread 0.58 s CPU / 1.27 s wall, two threads 1.06 s CPU / 1.99 s wall (loaded 2-core
 * machine). A table's deep read costs ~0.1 ms, so the worker pays off from some tens of thousands.
 */
export const PARALLEL_MIN_TABLES = 20_000;

/** Read `paths` in a worker thread; undefined when no worker can be started (e.g. running from .ts). */
function readInWorker(paths: string[], signal?: AbortSignal): Promise<DeepTableResult[] | undefined> {
  return new Promise((resolve) => {
    let w: Worker;
    try {
      const script = compiledScript("report/deep_worker.js");
      if (script === undefined) throw new Error("no compiled deep worker");
      w = new Worker(script, { workerData: { paths } });
    } catch {
      resolve(undefined);
      return;
    }
    let settled = false;
    const done = (v: DeepTableResult[] | undefined) => {
      if (!settled) {
        settled = true;
        resolve(v);
      }
    };
    // the caller stopped reading (the TUI closed): so does the worker
    signal?.addEventListener("abort", () => void w.terminate(), { once: true });
    w.once("message", (m: DeepTableResult[]) => done(m));
    w.once("error", () => done(undefined));
    w.once("exit", () => done(undefined));
  });
}

/** Each column family's entries: table properties, else the entries deep mode counted. */
function countEntries(model: DatadirModel, deep: Map<string, DeepTableInfo>): void {
  for (const inst of model.instances)
    for (const cf of inst.columnFamilies)
      cf.totals.entries = tableEntries(cf.levels, (f) => deep.get(f.path)?.entriesCounted);
}

/** Build the model in the chosen mode (see the header comment), then verify it when asked. */
export async function runInspect(dir: string, opts: RunInspectOptions = {}): Promise<InspectResult> {
  const r = await buildInspectModel(dir, opts);
  if (opts.verify) {
    // the verifier (merge, table cache, every format's checks) loads only for --verify
    const { verifyStore } = await import("../lsm/verify.js");
    r.verify = await verifyStore(r.model, opts.verify === true ? {} : opts.verify);
  }
  return r;
}

async function buildInspectModel(dir: string, opts: RunInspectOptions): Promise<InspectResult> {
  const mode = opts.mode ?? "cheap";
  const base: InspectOptions = {
    readWal: opts.readWal,
    maxDepth: opts.maxDepth,
    onProgress: opts.onProgress,
  };
  const onOutline = opts.onOutline;
  if (mode === "cheap") {
    const model = await inspectDatadir(dir, {
      ...base,
      tableDetails: "cheap",
      signal: opts.signal,
      onOutline: onOutline && ((snapshot) => onOutline(() => ({ model: snapshot(), mode }))),
    });
    return { model, mode };
  }
  // every present table is opened below: their sizes on disk come from those opens, not a stat each
  const model = await inspectDatadir(dir, { ...base, tableDetails: "none", tableSizes: "caller" });
  const deep = new Map<string, DeepTableInfo>();
  // as read so far: the deep loop below adds each table's details and findings to this model in place
  await onOutline?.(() => ({
    model: { ...model, complete: !model.findings.some((f) => f.severity === "error") },
    mode,
    deep,
  }));
  const all: { inst: (typeof model.instances)[number]; f: SstFileModel }[] = [];
  for (const inst of model.instances)
    for (const cf of inst.columnFamilies)
      for (const l of cf.levels) for (const f of l.files) if (f.present) all.push({ inst, f });
  const threads = Math.max(
    1,
    opts.threads ?? (all.length >= PARALLEL_MIN_TABLES ? Math.min(2, availableParallelism()) : 1),
  );
  // the worker takes the second half; started first so it runs while this thread reads the first half
  const split = threads > 1 ? Math.ceil(all.length / threads) : all.length;
  const workerJob =
    split < all.length
      ? readInWorker(
          all.slice(split).map((x) => x.f.path),
          opts.signal,
        )
      : undefined;
  let done = 0;
  const sizes = new Map<SstFileModel, number>();
  /** Findings of unreadable tables, added once the tables' size checks are in place (settleSizes). */
  const unreadable: { inst: (typeof all)[number]["inst"]; finding: Finding }[] = [];
  const record = (inst: (typeof all)[number]["inst"], f: SstFileModel, r: DeepTableResult) => {
    f.details = r.details;
    deep.set(f.path, r.deep);
    if (r.size !== undefined) sizes.set(f, r.size);
    const err = r.details.error ?? r.deep.error;
    if (err) {
      // a block that fails its checksum or does not decode: the picture is incomplete
      const finding = {
        severity: "error" as const,
        code: "sst-unreadable",
        file: f.path,
        message: `table reader: ${err}`,
      };
      unreadable.push({ inst, finding });
    }
    done++;
    if (opts.onProgress && (done % 64 === 0 || done === all.length))
      opts.onProgress(done, all.length, inst.relPath);
  };
  // each table's size check where the model's stat would have put it, then what the reads found
  const settleSizes = () => {
    settleCallerTableSizes(model, sizes);
    for (const { inst, finding } of unreadable) {
      inst.findings.push(finding);
      model.findings.push(finding);
    }
  };
  // the model's completeness was judged before the tables were read
  const judge = () => {
    if (model.findings.some((f) => f.severity === "error")) model.complete = false;
  };
  // the next tables' tails read ahead: a store out of the page cache is not read a round trip at a time
  const ahead = new TailReadAhead(
    all.slice(0, split).map(({ f }) => ({ path: f.path, size: f.diskSize ?? f.fileSize })),
    TAIL_PREFETCH,
  );
  for (let i = 0; i < split; i++) {
    const tail = ahead.ready(i);
    if (tail) await tail;
    const { inst, f } = all[i]!;
    record(inst, f, readTableDeep(f.path, f.virtualBacking === undefined ? f.fileSize : undefined));
    if (onOutline) await yieldEvery(i + 1, TABLES_PER_YIELD, opts.signal);
  }
  if (workerJob) {
    const rest = all.slice(split);
    const results = await workerJob;
    rest.forEach(({ inst, f }, i) => {
      const r = results?.[i];
      record(inst, f, r ? { ...r, details: compactDetails(r.details) } : readTableDeep(f.path));
    });
    settleSizes();
    for (const inst of model.instances) settleVanishedTables(inst, inst.path);
    countEntries(model, deep);
    judge();
    return { model, mode, deep, readThreads: results ? 2 : 1 };
  }
  settleSizes();
  // tables a live node's compaction deleted while they were read: warnings, not damage
  for (const inst of model.instances) settleVanishedTables(inst, inst.path);
  countEntries(model, deep);
  judge();
  return { model, mode, deep, readThreads: 1 };
}
