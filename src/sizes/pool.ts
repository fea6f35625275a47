/**
 * Runs scan tasks on this thread plus worker threads. The workers start before the caller plans and
 * load their modules (a few hundred milliseconds) while this thread already scans; a worker asks for
 * work once it is ready, and tasks go to whichever thread is free, so a slow start costs nothing but
 * the tasks the worker did not get. Without the compiled worker script (running from TypeScript
 * sources without a build) everything runs on this thread.
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { CorruptionError, LsmscopeError } from "../util/errors.js";
import { runScanTask, type PartialResult, type ScanTask } from "./scan.js";

/** Path of the compiled worker script, or undefined. */
export function workerScript(): string | undefined {
  const here = fileURLToPath(new URL("./worker.js", import.meta.url));
  if (existsSync(here)) return here;
  // running from src/ (vitest): use the build output beside it
  const dist = here.replace(/([\\/])src([\\/])sizes([\\/])worker\.js$/, "$1dist$1src$2sizes$3worker.js");
  return dist !== here && existsSync(dist) ? dist : undefined;
}

interface WorkerError {
  name: string;
  message: string;
  file?: string;
  offset?: number;
  stack?: string;
}

function revive(e: WorkerError): Error {
  if (e.name === "CorruptionError" && e.file) return new CorruptionError(e.message, e.file, e.offset);
  if (e.name === "LsmscopeError" || e.name === "CorruptionError" || e.name === "RlpError")
    return new LsmscopeError(e.message, { file: e.file, offset: e.offset });
  const err = new Error(e.message);
  err.stack = e.stack;
  return err;
}

type Message = { kind: string; bytes?: number; result?: PartialResult; error?: WorkerError };

/**
 * Tasks handed to a worker ahead of time: this thread cannot answer while it scans a task itself, so a
 * worker keeps a second task queued instead of idling until this thread is free.
 */
const IN_FLIGHT = 2;

interface Slot {
  worker: Worker;
  ready: boolean;
  /** Tasks sent and not yet answered. */
  busy: number;
  /** Tasks this worker ran (for the report). */
  ran: number;
}

export class ScanPool {
  private readonly slots: Slot[] = [];
  /** Threads: this one plus the workers. */
  readonly size: number;
  private onMessage: ((s: Slot, m: Message) => void) | undefined;
  private onFailure: ((err: Error) => void) | undefined;
  /** Threads that ran at least one task so far. */
  get threadsUsed(): number {
    return (this.mainScans ? 1 : 0) + this.slots.filter((s) => s.ran > 0).length;
  }

  /**
   * `threads` in all; with `mainScans` false (tests, to be sure the worker path runs) this thread only
   * hands out tasks and `threads` workers scan.
   */
  constructor(
    threads: number,
    private readonly mainScans = true,
  ) {
    const script = threads > 1 || !mainScans ? workerScript() : undefined;
    if (!script) this.mainScans = true;
    if (script) {
      for (let i = mainScans ? 1 : 0; i < threads; i++) {
        // execArgv: [] so flags of the parent (e.g. --input-type, --eval) do not reach the workers
        const slot: Slot = {
          worker: new Worker(script, { execArgv: [] }),
          ready: false,
          busy: 0,
          ran: 0,
        };
        slot.worker.on("message", (m: Message) => {
          if (m.kind === "ready") slot.ready = true;
          this.onMessage?.(slot, m);
        });
        slot.worker.on("error", (err) => this.onFailure?.(err));
        slot.worker.on("exit", (code) => {
          if (code !== 0) this.onFailure?.(new Error(`sizes worker exited with code ${code}`));
        });
        this.slots.push(slot);
      }
    }
    this.size = (this.mainScans ? 1 : 0) + this.slots.length;
  }

  async run(tasks: ScanTask[], progress: (bytes: number) => void): Promise<PartialResult[]> {
    const results: PartialResult[] = [];
    let next = 0;
    let failed: Error | undefined;
    let wake: (() => void) | undefined;
    const feed = (slot: Slot) => {
      while (slot.ready && slot.busy < IN_FLIGHT && next < tasks.length && !failed) {
        slot.busy++;
        slot.ran++;
        slot.worker.postMessage(tasks[next++]);
      }
    };
    this.onMessage = (slot, m) => {
      if (m.kind === "progress") progress(m.bytes!);
      else if (m.kind === "result") {
        results.push(m.result!);
        slot.busy--;
      } else if (m.kind === "error") {
        failed = revive(m.error!);
        slot.busy--;
      }
      feed(slot);
      wake?.();
    };
    this.onFailure = (err) => {
      failed = err;
      wake?.();
    };
    try {
      for (const s of this.slots) feed(s);
      // this thread takes tasks too, yielding between them so worker messages are handled
      while (this.mainScans && next < tasks.length && !failed) {
        results.push(runScanTask(tasks[next++]!, progress));
        await new Promise<void>((r) => setImmediate(r));
        for (const s of this.slots) feed(s);
      }
      while (!failed && (this.slots.some((s) => s.busy > 0) || next < tasks.length)) {
        await new Promise<void>((r) => {
          wake = r;
        });
        wake = undefined;
      }
      if (failed) throw failed;
    } finally {
      this.onMessage = undefined;
      this.onFailure = undefined;
    }
    results.sort((a, b) => a.id - b.id);
    return results;
  }

  async close(): Promise<void> {
    await Promise.all(this.slots.map((s) => s.worker.terminate()));
  }
}
