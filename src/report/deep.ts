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
 * Asked for two threads (RunInspectOptions.threads), a worker thread reads every second run of tables
 * while the main thread reads the others (when the compiled worker module exists); by default one
 * thread reads them all (deep_reads.ts DeepReadOptions.threads says why).
 */
import { settleVanishedTables } from "../datadir/vanished.js";
import { inspectDatadir } from "../datadir/inspect.js";
import { tableEntries } from "../datadir/placement.js";
import type { DatadirModel, InspectOptions } from "../datadir/model.js";
import { settleCallerTableSizes } from "../datadir/column_families.js";
import type { DeepTableInfo } from "./deep_table.js";
import { DeepReads } from "./deep_reads.js";
import { tableReadsBegin } from "../util/interrupt_budget.js";
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
  /** Deep mode: threads reading tables (default 1; 2 adds a worker thread). */
  threads?: number;
  /** Deep mode with a worker: tables whose results it posts at once (default WORKER_BATCH). */
  workerBatch?: number;
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
  const reads = new DeepReads(model, deep, {
    threads: opts.threads,
    workerBatch: opts.workerBatch,
    onProgress: opts.onProgress,
    yieldOften: onOutline !== undefined,
    signal: opts.signal,
  });
  // thousands of tables: their reader's code pays for TurboFan early (util/interrupt_budget.ts)
  const endTableReads = tableReadsBegin(reads.all.length);
  try {
    // awaited only when a read waits for something (DeepReads.read): not a microtask turn per table
    for (let i = 0; i < reads.all.length; i++) {
      const wait = reads.read(i);
      if (wait) await wait;
    }
  } finally {
    endTableReads();
    reads.close();
  }
  settleDeepReads(model, reads);
  return { model, mode, deep, readThreads: reads.readThreads };
}

/**
 * After the deep reads: each table's size check where the model's stat would have put it, then what
 * the reads found; tables a live node's compaction deleted meanwhile; entries; completeness.
 */
function settleDeepReads(model: DatadirModel, reads: DeepReads): void {
  settleCallerTableSizes(model, reads.sizes);
  for (const { inst, finding } of reads.unreadable) {
    inst.findings.push(finding);
    model.findings.push(finding);
  }
  // tables a live node's compaction deleted while they were read: warnings, not damage
  for (const inst of model.instances) settleVanishedTables(inst, inst.path);
  countEntries(model, reads.deep);
  // the model's completeness was judged before the tables were read
  if (model.findings.some((f) => f.severity === "error")) model.complete = false;
}
