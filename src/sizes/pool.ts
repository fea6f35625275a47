/**
 * Runs scan tasks on worker threads (or in this thread when one worker is asked for, or when the
 * compiled worker script cannot be found, e.g. when running from TypeScript sources without a build).
 * The pool starts its threads before the caller plans (so module loading overlaps with reading the
 * MANIFEST and indexes) and serves several batches of tasks; tasks go to whichever worker is free.
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

export class ScanPool {
  private readonly workers: Worker[] = [];
  /** Threads used (1 = in this thread). */
  readonly size: number;

  constructor(requested: number) {
    const script = requested > 1 ? workerScript() : undefined;
    if (script) {
      // execArgv: [] so flags of the parent (e.g. --input-type, --eval) do not reach the workers
      for (let i = 0; i < requested; i++) this.workers.push(new Worker(script, { execArgv: [] }));
    }
    this.size = Math.max(1, this.workers.length);
  }

  async run(tasks: ScanTask[], progress: (bytes: number) => void): Promise<PartialResult[]> {
    if (this.workers.length === 0 || tasks.length === 0) return tasks.map((t) => runScanTask(t, progress));
    const results: PartialResult[] = [];
    let next = 0;
    const active = this.workers.slice(0, Math.min(this.workers.length, tasks.length));
    await Promise.all(
      active.map(
        (w) =>
          new Promise<void>((resolve, reject) => {
            const cleanup = () => {
              w.off("message", onMessage);
              w.off("error", onError);
              w.off("exit", onExit);
            };
            const give = () => {
              if (next >= tasks.length) {
                cleanup();
                resolve();
              } else w.postMessage(tasks[next++]);
            };
            const onMessage = (m: Message) => {
              if (m.kind === "progress") progress(m.bytes!);
              else if (m.kind === "result") {
                results.push(m.result!);
                give();
              } else if (m.kind === "error") {
                cleanup();
                reject(revive(m.error!));
              }
            };
            const onError = (err: Error) => {
              cleanup();
              reject(err);
            };
            const onExit = (code: number) => {
              cleanup();
              reject(new Error(`sizes worker exited with code ${code}`));
            };
            w.on("message", onMessage);
            w.on("error", onError);
            w.on("exit", onExit);
            give();
          }),
      ),
    );
    results.sort((a, b) => a.id - b.id);
    return results;
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.terminate()));
  }
}
