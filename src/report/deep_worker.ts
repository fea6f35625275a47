/**
 * Worker thread for deep mode: reads the tables it is given (workerData.paths) and posts back one
 * DeepTableResult per path, in order. Plain data only (structured clone).
 */
import { parentPort, workerData } from "node:worker_threads";
import { readTableDeep } from "./deep_table.js";

const paths = (workerData as { paths: string[] }).paths;
parentPort!.postMessage(paths.map((p) => readTableDeep(p)));
