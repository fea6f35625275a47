/**
 * Worker thread for deep mode: reads the tables it is given (workerData.paths) and posts back one
 * DeepTableResult per path, in order, `batch` at a time (WORKER_BATCH, deep_table.ts). Plain data only
 * (structured clone). It reads at most `ahead` batches beyond those the reader has begun to take: each
 * message from the reader (a count of batches) lets it read that many more, so its results wait in the
 * reader's heap a few batches at a time, not by the thousand (deep_reads.ts WorkerReads says why).
 */
import { parentPort, workerData } from "node:worker_threads";
import { deepTailEstimate, readTableDeep, WORKER_AHEAD, WORKER_BATCH } from "./deep_table.js";

const {
  paths,
  batch = WORKER_BATCH,
  ahead = WORKER_AHEAD,
} = workerData as { paths: string[]; batch?: number; ahead?: number };
const port = parentPort!;
const tail = deepTailEstimate();
let allowed = ahead;
let wake: (() => void) | undefined;
const credit = (n: number): void => {
  allowed += n;
  wake?.();
};
port.on("message", credit);
for (let b = 0; b * batch < paths.length; b++) {
  while (b >= allowed) await new Promise<void>((r) => (wake = r));
  port.postMessage(paths.slice(b * batch, (b + 1) * batch).map((p) => readTableDeep(p, undefined, tail)));
}
// nothing left to wait for: the thread ends once its messages are out
port.off("message", credit);
