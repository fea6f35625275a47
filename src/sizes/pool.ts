/**
 * Runs scan tasks on this thread plus worker threads. Every thread claims the next task from one
 * shared counter (Atomics.add on a SharedArrayBuffer) as soon as it is free, so no thread waits for a
 * message from another: this thread cannot answer messages while it scans, and handing tasks out by
 * message left a worker idle until this thread finished its task (a quarter of a two-thread scan was
 * lost that way). Workers start before the caller plans and get the whole task list at once; one that
 * is still loading its modules just claims later. Progress comes through shared counters too, so it
 * moves while this thread scans. Each thread keeps its tables open from one key range to the next
 * (TableCache). Without the compiled worker script (running from TypeScript sources without a build)
 * everything runs on this thread.
 */
import type { Worker } from "node:worker_threads";
import { compiledScript } from "../util/compiled_script.js";
import {
  restoreYoungGenerationGrowth,
  startWorker,
  WORKER_YOUNG_GENERATION_MB,
} from "../util/worker_heap.js";
import { CorruptionError, LsmscopeError } from "../util/errors.js";
import { leanRuns, scanTableCache } from "../lsm/merge.js";
import type { OpenedAhead } from "../lsm/lean_table.js";
import { runScanTask, type PartialResult, type ScanTask } from "./scan.js";

/** An error as a worker posts it (errors do not survive structured cloning with their class). */
export interface WorkerError {
  name: string;
  message: string;
  file?: string;
  offset?: number;
  stack?: string;
}

function revive(e: WorkerError): Error {
  // a damaged block (BlockCorruptionError: its message names the block) is a CorruptionError too: it
  // fell through to an internal error with a stack trace, exit 70, when a worker met it
  if ((e.name === "CorruptionError" || e.name === "BlockCorruptionError") && e.file)
    return new CorruptionError(e.message, e.file, e.offset);
  if (e.name === "LsmscopeError" || e.name === "CorruptionError" || e.name === "RlpError")
    return new LsmscopeError(e.message, { file: e.file, offset: e.offset });
  const err = new Error(e.message);
  err.stack = e.stack;
  return err;
}

/** What a worker is started with (workerData). */
export interface WorkerStart {
  /** Set [slot] to 1 once ready to claim tasks. */
  ready: Int32Array;
  slot: number;
}

/** Main thread → worker. */
export type WorkerRequest =
  | {
      kind: "batch";
      tasks: ScanTask[];
      /** [0]: index of the next task to claim (≥ tasks.length: none left, or stop). */
      claim: Int32Array;
      /** Stored bytes of counted blocks read so far, one slot per worker. */
      progress: BigInt64Array;
      slot: number;
    }
  | { kind: "close" };

/** Worker → main thread. */
export type WorkerReply =
  | { kind: "result"; index: number; result: PartialResult }
  | { kind: "error"; error: WorkerError }
  /** The worker found no task left to claim in this batch. */
  | { kind: "done" };

/**
 * Tables this thread keeps from planning for its scans at most (see keepOpened): each holds a
 * descriptor (or reopens one: TableFile's bound) and its data blocks' handles, as every run of the
 * merge holds its current table anyway; beyond this the runs open their tables themselves.
 */
const KEPT_OPEN_MAX_TABLES = 65_536;

/** How often progress is collected from the workers: every this many blocks this thread reads... */
const PROGRESS_EVERY_BLOCKS = 32;
/** ...and every this many milliseconds while this thread waits. */
const PROGRESS_EVERY_MS = 100;

interface Slot {
  worker: Worker;
  /** In the current batch: has not said "done" yet. */
  busy: boolean;
  /** Tasks this worker ran (for the report). */
  ran: number;
  exited: boolean;
}

export class ScanPool {
  private readonly slots: Slot[] = [];
  /** Threads: this one plus the workers. */
  readonly size: number;
  /** This thread's open tables. */
  private readonly tables = scanTableCache();
  /** Per worker: 1 once it has loaded its script and its XXH3 (worker.ts), ready to claim tasks. */
  private readonly ready: Int32Array;
  private mainRan = 0;
  /** Tables the planner was offered to keep for this thread so far (KEPT_OPEN_MAX_TABLES). */
  private keptOpen = 0;
  private onReply: ((s: Slot, m: WorkerReply) => void) | undefined;
  private onFailure: ((err: Error) => void) | undefined;
  /** Threads that ran at least one task so far. */
  get threadsUsed(): number {
    return (this.mainRan > 0 ? 1 : 0) + this.slots.filter((s) => s.ran > 0).length;
  }

  /**
   * `threads` in all; with `mainScans` false (tests, to be sure the worker path runs) this thread only
   * hands out tasks and `threads` workers scan.
   */
  constructor(
    threads: number,
    private readonly mainScans = true,
  ) {
    // the build's one-file bundle of the worker when there is one (scripts/bundle-cli.mjs: it starts
    // in about half the time of tsc's modules)
    const script =
      threads > 1 || !mainScans
        ? (compiledScript("sizes/worker.cjs") ?? compiledScript("sizes/worker.js"))
        : undefined;
    if (!script) this.mainScans = true;
    const workers = script ? threads - (mainScans ? 1 : 0) : 0;
    this.ready = new Int32Array(new SharedArrayBuffer(4 * Math.max(1, workers)));
    if (script) {
      for (let i = 0; i < workers; i++) {
        const workerData: WorkerStart = { ready: this.ready, slot: i };
        // execArgv: [] so flags of the parent (e.g. --input-type, --eval) do not reach the workers
        const slot: Slot = {
          worker: startWorker(script, {
            execArgv: [],
            resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB },
            workerData,
          }),
          busy: false,
          ran: 0,
          exited: false,
        };
        slot.worker.on("message", (m: WorkerReply) => this.onReply?.(slot, m));
        slot.worker.on("error", (err) => this.onFailure?.(err));
        slot.worker.on("exit", (code) => {
          slot.exited = true;
          if (code !== 0) this.onFailure?.(new Error(`sizes worker exited with code ${code}`));
        });
        this.slots.push(slot);
      }
    }
    this.size = (this.mainScans ? 1 : 0) + this.slots.length;
  }

  /** Tables the planning thread has opened so far, and whether every worker's start is behind it. */
  private tablesPlanned = 0;
  private workerStartsHeard = false;

  /**
   * The planning loop calls this after each table it opens. A worker's start resets V8's young-generation
   * growth for the whole process (util/worker_heap.ts), and this thread, which plans without yielding,
   * heard of it only at its scan: on the L0 pile-up of 4,884 tables its young generation grew from
   * 2 x 1 MiB to 2 x 8 MiB while it planned (the heap 43.5 MB at its largest instead of 37.2). Every 64
   * tables the factor is put back, until every worker is ready, and so its isolate configured.
   */
  heedWorkerStarts(): void {
    if (this.workerStartsHeard || this.slots.length === 0 || (++this.tablesPlanned & 63) !== 0) return;
    const ready = this.workersReady();
    restoreYoungGenerationGrowth();
    if (ready) this.workerStartsHeard = true;
  }

  /**
   * Every worker is ready to claim tasks (read through shared memory: this thread may be busy with
   * synchronous work, where messages would wait). True without workers.
   */
  workersReady(): boolean {
    for (let k = 0; k < this.slots.length; k++) if (Atomics.load(this.ready, k) === 0) return false;
    return true;
  }

  /**
   * Where the planner keeps the `tables` L0 tables it opens of a column family whose `runs` runs are
   * read lean (an L0 pile-up): this thread's store (lsm/lean_table.ts), from which its runs take them
   * instead of opening them again; undefined when this thread does not scan, the runs are not lean,
   * or enough are kept (sizes/plan.ts: KeepOpened). Workers open their own tables as their runs
   * reach them: opening them ahead on a worker while this thread planned slowed both (4,354 L0
   * tables: planning 0.47 -> 0.65 s, the worker's scan starting later still), no faster in all.
   */
  keepOpened(runs: number, tables: number): OpenedAhead | undefined {
    if (!this.mainScans || !leanRuns(runs)) return undefined;
    if (this.keptOpen + tables > KEPT_OPEN_MAX_TABLES) return undefined;
    this.keptOpen += tables;
    return this.tables.ahead;
  }

  /** Run `tasks` (results in task order); `progress` gets stored bytes of counted blocks as they are read. */
  async run(tasks: ScanTask[], progress: (bytes: number) => void): Promise<PartialResult[]> {
    const n = tasks.length;
    const claim = new Int32Array(new SharedArrayBuffer(4));
    const workerBytes = new BigInt64Array(new SharedArrayBuffer(8 * Math.max(1, this.slots.length)));
    const reported = new Array<number>(this.slots.length).fill(0);
    const collect = () => {
      for (let k = 0; k < this.slots.length; k++) {
        const now = Number(Atomics.load(workerBytes, k));
        if (now > reported[k]!) {
          progress(now - reported[k]!);
          reported[k] = now;
        }
      }
    };
    const results = new Array<PartialResult | undefined>(n);
    let failed: Error | undefined;
    let wake: (() => void) | undefined;
    const stop = () => Atomics.store(claim, 0, n);
    this.onReply = (slot, m) => {
      if (m.kind === "result") {
        results[m.index] = m.result;
        slot.ran++;
      } else if (m.kind === "error") {
        failed ??= revive(m.error);
        stop();
      } else slot.busy = false;
      wake?.();
    };
    this.onFailure = (err) => {
      failed ??= err;
      stop();
      wake?.();
    };
    try {
      for (let k = 0; k < this.slots.length; k++) {
        const slot = this.slots[k]!;
        if (slot.exited) throw new Error("sizes worker is gone");
        slot.busy = true;
        const req: WorkerRequest = { kind: "batch", tasks, claim, progress: workerBytes, slot: k };
        slot.worker.postMessage(req);
      }
      if (this.mainScans) {
        // this thread scans without yielding: a worker that came online while it planned has reset
        // the growth factor already (util/worker_heap.ts)
        if (this.slots.length > 0) restoreYoungGenerationGrowth();
        let blocks = 0;
        const own = (bytes: number) => {
          progress(bytes);
          if (++blocks % PROGRESS_EVERY_BLOCKS === 0) collect();
        };
        for (;;) {
          const i = Atomics.add(claim, 0, 1);
          if (i >= n || failed) break;
          try {
            results[i] = runScanTask(tasks[i]!, own, this.tables);
          } catch (err) {
            stop();
            throw err;
          }
          this.mainRan++;
          // let worker replies in (an error stops the batch early)
          await new Promise<void>((r) => setImmediate(r));
        }
      }
      const timer = setInterval(collect, PROGRESS_EVERY_MS);
      try {
        while (!failed && this.slots.some((s) => s.busy)) {
          await new Promise<void>((r) => {
            wake = r;
          });
          wake = undefined;
        }
      } finally {
        clearInterval(timer);
      }
      if (failed) throw failed;
      collect();
    } finally {
      this.onReply = undefined;
      this.onFailure = undefined;
    }
    const missing = results.findIndex((r) => r === undefined);
    if (missing >= 0) throw new Error(`sizes task ${missing} produced no result`);
    return results as PartialResult[];
  }

  /**
   * Close every thread's tables. Idle workers close theirs and exit; a worker still inside a task (the
   * batch failed elsewhere) is terminated (Node closes the descriptors a worker opened when it exits).
   */
  async close(): Promise<void> {
    this.tables.close();
    await Promise.all(
      this.slots.map(async (s) => {
        if (s.exited) return;
        const exited = new Promise<void>((r) => s.worker.once("exit", () => r()));
        if (s.busy) await s.worker.terminate();
        else {
          const req: WorkerRequest = { kind: "close" };
          s.worker.postMessage(req);
          await exited;
        }
      }),
    );
  }
}
