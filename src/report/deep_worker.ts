/**
 * Worker thread for deep mode: reads the tables it is given (workerData.paths) and posts back one
 * DeepTableResult per path, in order, `batch` at a time (WORKER_BATCH, deep_table.ts). Plain data only (structured
 * clone).
 */
import { parentPort, workerData } from "node:worker_threads";
import { readTableDeep, WORKER_BATCH } from "./deep_table.js";

const { paths, batch = WORKER_BATCH } = workerData as { paths: string[]; batch?: number };
for (let i = 0; i < paths.length; i += batch)
  parentPort!.postMessage(paths.slice(i, i + batch).map((p) => readTableDeep(p)));
