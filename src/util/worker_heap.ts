/**
 * Keeping young generations small when worker threads start. The launcher (bin/load_cli.js) sets V8's
 * --semi-space-growth-factor=1, which keeps the main thread's young generation at 2 x 1 MiB; but V8
 * raises that process-wide flag back to 2 whenever an isolate is configured (Heap::ConfigureHeap),
 * which a worker's start does, and from then on every isolate's young generation doubles up to
 * 2 x 16 MiB. Measured on the 4,354-table L0 pile-up, sizes --full --workers 2: new space 32 MiB in
 * each thread and peak RSS 267 MiB; with a worker's young generation capped and the factor put back
 * once it is online, the worker's stayed at 2 MiB but the main thread's reached 16 MiB (it scans
 * without yielding, so it heard of the worker only after its range), peak RSS 215-240 MiB; with the
 * factor also put back before this thread scans (sizes/pool.ts), 204-209 MiB, for the same CPU (and
 * on a 520 MiB store 162 -> 144 MiB, same time). The main thread plans without yielding too, while
 * the worker starts: it puts the factor back as it plans (ScanPool.heedWorkerStarts).
 */
import { createRequire } from "node:module";
import { setFlagsFromString } from "node:v8";
import type { Worker, WorkerOptions } from "node:worker_threads";

// node:worker_threads loaded when a worker first starts: required at start-up it loaded six of Node's
// internal modules (~1-3 ms) into every run, most of which start no worker
const require = createRequire(import.meta.url);

/**
 * A worker's young generation (resourceLimits.maxYoungGenerationSizeMb): V8 counts three semi-spaces'
 * worth, so 3 MiB is the main thread's 2 x 1 MiB.
 */
export const WORKER_YOUNG_GENERATION_MB = 3;

/**
 * The growth factor the launcher set (bin/load_cli.js tells it here), to put back; undefined where
 * lsmscope runs as a library: the host's V8 flags are left alone.
 */
let launcherGrowth: number | undefined;

/** The launcher set V8's --semi-space-growth-factor to `factor`. */
export function noteYoungGenerationGrowth(factor: number): void {
  launcherGrowth = factor;
}

/** Put V8's young-generation growth factor back to the launcher's (when it set one). */
export function restoreYoungGenerationGrowth(): void {
  if (launcherGrowth !== undefined) setFlagsFromString(`--semi-space-growth-factor=${launcherGrowth}`);
}

/**
 * A worker thread, with the growth factor put back once its isolate is configured (it is by the time
 * the worker is online): every pool starts its workers here, as any worker's start resets the factor
 * for the whole process. A thread busy with synchronous work hears of that only when it next yields:
 * call restoreYoungGenerationGrowth() before such work too.
 */
export function startWorker(script: string | URL, options: WorkerOptions): Worker {
  const threads = require("node:worker_threads") as typeof import("node:worker_threads");
  const worker = new threads.Worker(script, options);
  worker.once("online", restoreYoungGenerationGrowth);
  return worker;
}
