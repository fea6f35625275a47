/**
 * Worker-thread entry for full scans (pool.ts): receives a batch of ScanTasks, claims them one by one
 * from the shared counter, adds the stored bytes of counted blocks to its shared progress slot, and
 * posts each PartialResult, then "done". Its tables stay open between tasks and batches until "close".
 */
import { parentPort, threadId, workerData } from "node:worker_threads";
import { scanTableCache } from "../lsm/merge.js";
import { runScanTask } from "./scan.js";
import { prepareChecksums } from "../format/checksum.js";
import { prepareKeccak } from "../eth/keccak.js";
import type { WorkerReply, WorkerRequest, WorkerStart } from "./pool.js";

if (parentPort) {
  const port = parentPort;
  const tables = scanTableCache();
  const reply = (m: WorkerReply, transfer: ArrayBuffer[] = []) => port.postMessage(m, transfer);
  // the WASM XXH3 compiles while the main thread plans (see prepareChecksums)
  const checksums = prepareChecksums();
  // the main thread sizes its first range by whether this thread is ready yet (compute.ts)
  const start = workerData as WorkerStart | undefined;
  void checksums.then(() => {
    if (start) Atomics.store(start.ready, start.slot, 1);
  });
  const runBatch = (req: Extract<WorkerRequest, { kind: "batch" }>) => {
    const { tasks, claim, progress, slot } = req;
    const add = (bytes: number) => Atomics.add(progress, slot, BigInt(bytes));
    for (;;) {
      const i = Atomics.add(claim, 0, 1);
      if (i >= tasks.length) break;
      try {
        const result = runScanTask(tasks[i]!, add, tables, threadId);
        const transfer = [result.keySize.exact, result.valueSize.exact, result.ratio.bins]
          .filter((a): a is Float64Array => a !== null)
          .map((a) => a.buffer as ArrayBuffer);
        reply({ kind: "result", index: i, result }, transfer);
      } catch (err) {
        // stop every thread from claiming more: the batch has failed
        Atomics.store(claim, 0, tasks.length);
        const e = err as Error & { file?: string; offset?: number };
        reply({
          kind: "error",
          error: { name: e.name, message: e.message, file: e.file, offset: e.offset, stack: e.stack },
        });
        break;
      }
    }
    reply({ kind: "done" });
  };
  port.on("message", (req: WorkerRequest) => {
    if (req.kind === "close") {
      tables.close();
      port.close();
      return;
    }
    // prepareChecksums and prepareKeccak never reject (without WASM: the native XXH3, noble's Keccak);
    // Keccak for the code view, which hashes every contract's code where a store keys it by account hash
    const code = req.tasks.some((t) => t.roles.some((r) => r.role === "code"));
    void Promise.all([checksums, code ? prepareKeccak() : undefined]).then(() => runBatch(req));
  });
}
