/**
 * Deep mode's table reads over a model built without table details (deep.ts): every present table in
 * model order, in this thread (its tails read ahead on a cold store) or, asked for two threads, every
 * second run of them in a worker thread; each result recorded as it is taken — the table's details, its
 * deep measurements, its size on disk and, for an unreadable table, its finding. `runInspect` reads
 * them all, then settles the model; `inspect --deep --json` reads each as its JSON is written
 * (deep_stream.ts).
 */
import type { Worker } from "node:worker_threads";
import { startWorker } from "../util/worker_heap.js";
import {
  expectedFileSize,
  type DatadirModel,
  type Finding,
  type InstanceModel,
  type SstFileModel,
} from "../datadir/model.js";
import { compactDetails } from "../datadir/table_details.js";
import { compiledScript } from "../util/compiled_script.js";
import { TABLES_PER_YIELD, yieldEvery } from "../util/event_loop.js";
import { TailReadAhead } from "../util/tail_read_ahead.js";
import {
  deepTailEstimate,
  readTableDeep,
  WORKER_AHEAD,
  WORKER_BATCH,
  type DeepTableInfo,
  type DeepTableResult,
} from "./deep_table.js";

/**
 * Tables read in a worker thread, which posts its results `batch` at a time in order and reads at most
 * WORKER_AHEAD batches beyond the one this thread is taking (each batch begun is a credit for one
 * more). The worker took the second half of the tables and posted it as fast as it read: this thread
 * reached those results only after its own half, by which time most of them waited here, each table's
 * details as a structured clone (~1.6 KiB: compactDetails) — `inspect --deep --json` on 43,726 tables
 * peaked at ~230 MiB with the worker against ~177 MiB without. Its batches now alternate with this
 * thread's (DeepReads), so a result waits about as long as this thread takes to read one batch.
 */
class WorkerReads {
  private readonly results: (DeepTableResult | undefined)[] = [];
  private received = 0;
  /** Batches whose first result has been taken: the worker has been told of each. */
  private begun = 0;
  /** Whether every result came (false: no worker could start, or it stopped before the last). */
  readonly finished: Promise<boolean>;
  private wake: () => void = () => {};
  private worker?: Worker;

  constructor(
    paths: string[],
    private readonly batch: number,
    signal?: AbortSignal,
  ) {
    this.finished = new Promise((resolve) => {
      let w: Worker;
      try {
        const script = compiledScript("report/deep_worker.js");
        if (script === undefined) throw new Error("no compiled deep worker");
        w = startWorker(script, { workerData: { paths, batch, ahead: WORKER_AHEAD } });
      } catch {
        resolve(false);
        return;
      }
      this.worker = w;
      let settled = false;
      const done = (all: boolean) => {
        if (settled) return;
        settled = true;
        resolve(all);
        this.wake();
      };
      // the caller stopped reading (the TUI closed): so does the worker
      signal?.addEventListener("abort", () => void w.terminate(), { once: true });
      w.on("message", (m: DeepTableResult[]) => {
        for (const r of m) this.results[this.received++] = r;
        this.wake();
        if (this.received >= paths.length) done(true);
      });
      w.once("error", () => done(false));
      w.once("exit", () => done(this.received >= paths.length));
    });
  }

  /** Result `i` once it came (and let go of here); undefined when the worker ended without it. */
  async take(i: number): Promise<DeepTableResult | undefined> {
    const b = Math.floor(i / this.batch);
    if (b >= this.begun) {
      // a batch begun: the worker may read one more (it waits for this, never for the results' use)
      this.worker?.postMessage(b + 1 - this.begun);
      this.begun = b + 1;
    }
    let ended = false;
    void this.finished.then(() => (ended = true));
    while (i >= this.received && !ended) await new Promise<void>((r) => (this.wake = r));
    const r = this.results[i];
    this.results[i] = undefined;
    return r;
  }

  /** The worker stops (a reader that gives up before the last table must not leave it waiting). */
  close(): void {
    void this.worker?.terminate();
  }
}

export interface DeepReadOptions {
  /**
   * Threads reading tables: 2 adds a worker thread; default 1, since the worker does not pay for
   * itself. `inspect --deep --json` on 43,726 tiny tables with a worker reading every second run: main
   * thread CPU 1.78 s against 2.01 s alone (receiving a result costs it about what reading the table
   * does), the process 2.98 s against 2.56 s, peak RSS ~+45 MiB (a second V8 heap, the results'
   * structured clones); text `inspect --deep`: main thread 1.33 s against 1.37 s, +25 MiB. Until
   * session 7 it was taken from 20,000 tables on, and the memory per table grew from there.
   */
  threads?: number;
  /** With a worker: tables whose results it posts at once (default WORKER_BATCH). */
  workerBatch?: number;
  onProgress?: (done: number, total: number, what: string) => void;
  /** Let the event loop run every TABLES_PER_YIELD tables (a caller that shows the model as it is read). */
  yieldOften?: boolean;
  signal?: AbortSignal;
}

/** The deep reads of a model's present tables, taken in model order (read(0), read(1), ...). */
export class DeepReads {
  /** Sizes on disk from the opens (settleCallerTableSizes). */
  readonly sizes = new Map<SstFileModel, number>();
  /** Findings of unreadable tables, in table order, added once the size checks are in place. */
  readonly unreadable: { inst: InstanceModel; finding: Finding }[] = [];
  /** Every present table, in model order. */
  readonly all: SstFileModel[] = [];
  /** The instance of each (two arrays: an object per table was 40 bytes more, kept to the end). */
  private readonly instanceOf: InstanceModel[] = [];
  /**
   * With a worker: tables come in runs of this many, the worker reading every second run (the 2nd, 4th,
   * ...), so that this thread takes each of its results soon after it came.
   */
  private readonly run: number;
  private readonly worker?: WorkerReads;
  private readonly ahead: TailReadAhead;
  /** How much of each table's end this thread reads at once (and its read-ahead with it). */
  private readonly tail = deepTailEstimate();
  private workerMissed = false;
  private done = 0;

  constructor(
    model: DatadirModel,
    /** Each table's deep measurements by path, filled as the tables are read. */
    readonly deep: Map<string, DeepTableInfo>,
    private readonly opts: DeepReadOptions = {},
  ) {
    for (const inst of model.instances)
      for (const cf of inst.columnFamilies)
        for (const l of cf.levels)
          for (const f of l.files)
            if (f.present) {
              this.all.push(f);
              this.instanceOf.push(inst);
            }
    const n = this.all.length;
    const threads = Math.max(1, opts.threads ?? 1);
    // a store of fewer than two batches: a half each
    this.run = threads > 1 ? Math.min(Math.max(1, opts.workerBatch ?? WORKER_BATCH), Math.ceil(n / 2)) : n;
    const mine = this.all.filter((_, i) => !this.byWorker(i));
    // started first, so that it reads while this thread reads its first run
    if (threads > 1 && mine.length < n)
      this.worker = new WorkerReads(
        this.all.filter((_, i) => this.byWorker(i)).map((f) => f.path),
        this.run,
        opts.signal,
      );
    // the next tables' tails read ahead: a store out of the page cache is not read a round trip at a time
    this.ahead = new TailReadAhead(
      mine.map((f) => ({ path: f.path, size: f.diskSize ?? f.fileSize })),
      this.tail,
    );
  }

  /** Whether table `i` is one the worker reads (every second run, when there is a worker to be). */
  private byWorker(i: number): boolean {
    return this.run > 0 && Math.floor(i / this.run) % 2 === 1;
  }

  /** Table `i`'s place among its reader's tables (this thread's, or the worker's). */
  private placeOf(i: number): number {
    return this.run > 0 ? (Math.floor(i / this.run) >> 1) * this.run + (i % this.run) : i;
  }

  /** Threads that read tables: 2 when the worker read its part. */
  get readThreads(): number {
    return this.worker && !this.workerMissed ? 2 : 1;
  }

  /**
   * Read table `i` (or take the worker's result) and record it; what the worker did not deliver (it
   * could not start, or stopped) is read here. A promise only when there is something to wait for (a
   * tail read ahead, a yield, the worker): on a warm store each table is read without a turn of the
   * microtask queue.
   */
  read(i: number): Promise<void> | undefined {
    if (this.byWorker(i)) return this.take(i);
    const tail = this.ahead.ready(this.placeOf(i));
    return tail ? tail.then(() => this.readHere(i)) : this.readHere(i);
  }

  /** Table `i` of this thread's part, read now; then the yield to the event loop that is due, if any. */
  private readHere(i: number): Promise<void> | undefined {
    const f = this.all[i]!;
    const preread = this.ahead.take(this.placeOf(i));
    this.record(this.instanceOf[i]!, f, readTableDeep(f.path, expectedFileSize(f), this.tail, preread));
    if (this.opts.yieldOften) return yieldEvery(i + 1, TABLES_PER_YIELD, this.opts.signal);
    // the worker's batches are received as they come
    if (this.worker) return yieldEvery(i + 1, this.run, this.opts.signal);
    return undefined;
  }

  /** The worker's result for table `i`, or the table read here when the worker did not deliver it. */
  private async take(i: number): Promise<void> {
    const f = this.all[i]!;
    const r = this.worker ? await this.worker.take(this.placeOf(i)) : undefined;
    if (!r) this.workerMissed = true;
    this.record(
      this.instanceOf[i]!,
      f,
      r
        ? { ...r, details: compactDetails(r.details) }
        : readTableDeep(f.path, expectedFileSize(f), this.tail),
    );
  }

  /** Done reading (or giving up): the worker, if any, stops. */
  close(): void {
    this.worker?.close();
  }

  private record(inst: InstanceModel, f: SstFileModel, r: DeepTableResult): void {
    f.details = r.details;
    this.deep.set(f.path, r.deep);
    if (r.size !== undefined) this.sizes.set(f, r.size);
    const err = r.details.error ?? r.deep.error;
    if (err) {
      // a block that fails its checksum or does not decode: the picture is incomplete
      const finding = {
        severity: "error" as const,
        code: "sst-unreadable",
        file: f.path,
        message: `table reader: ${err}`,
      };
      this.unreadable.push({ inst, finding });
    }
    this.done++;
    const total = this.all.length;
    if (this.opts.onProgress && (this.done % 64 === 0 || this.done === total))
      this.opts.onProgress(this.done, total, inst.relPath);
  }
}
