/**
 * Runs scan tasks on worker threads (or in this thread when one worker is asked for, or when the
 * compiled worker script cannot be found, e.g. when running from TypeScript sources without a build).
 * Tasks are handed out one at a time to whichever worker is free.
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

export async function runTasks(
  tasks: ScanTask[],
  workers: number,
  progress: (bytes: number) => void,
): Promise<{ results: PartialResult[]; workersUsed: number }> {
  const script = workers > 1 ? workerScript() : undefined;
  if (workers <= 1 || !script || tasks.length === 0) {
    return { results: tasks.map((t) => runScanTask(t, progress)), workersUsed: 1 };
  }
  const n = Math.min(workers, tasks.length);
  const results: PartialResult[] = [];
  let next = 0;
  const pool: Worker[] = [];
  try {
    await Promise.all(
      Array.from({ length: n }, () => {
        const w = new Worker(script);
        pool.push(w);
        return new Promise<void>((resolve, reject) => {
          const give = () => {
            if (next >= tasks.length) {
              w.postMessage(null);
              resolve();
              return;
            }
            w.postMessage(tasks[next++]);
          };
          w.on(
            "message",
            (m: { kind: string; bytes?: number; result?: PartialResult; error?: WorkerError }) => {
              if (m.kind === "progress") progress(m.bytes!);
              else if (m.kind === "result") {
                results.push(m.result!);
                give();
              } else if (m.kind === "error") reject(revive(m.error!));
            },
          );
          w.on("error", reject);
          w.on("exit", (code) => {
            if (code !== 0) reject(new Error(`sizes worker exited with code ${code}`));
          });
          give();
        });
      }),
    );
  } finally {
    await Promise.all(pool.map((w) => w.terminate()));
  }
  results.sort((a, b) => a.id - b.id);
  return { results, workersUsed: n };
}
