/**
 * Worker-thread entry for full scans: receives ScanTasks, posts progress (stored bytes of counted
 * blocks, batched) and the PartialResult of each task.
 */
import { parentPort } from "node:worker_threads";
import { runScanTask, type ScanTask } from "./scan.js";

if (parentPort) {
  const port = parentPort;
  // modules are loaded: ask for work
  port.postMessage({ kind: "ready" });
  port.on("message", (task: ScanTask | null) => {
    if (task === null) {
      port.close();
      return;
    }
    let pending = 0;
    let last = Date.now();
    try {
      const res = runScanTask(task, (bytes) => {
        pending += bytes;
        const now = Date.now();
        if (now - last > 100) {
          port.postMessage({ kind: "progress", bytes: pending });
          pending = 0;
          last = now;
        }
      });
      if (pending > 0) port.postMessage({ kind: "progress", bytes: pending });
      const transfer = [res.keySize.exact, res.valueSize.exact, res.ratio.bins]
        .filter((a): a is Float64Array => a !== null)
        .map((a) => a.buffer as ArrayBuffer);
      port.postMessage({ kind: "result", result: res }, transfer);
    } catch (err) {
      const e = err as Error & { file?: string; offset?: number; exitCode?: number; name: string };
      port.postMessage({
        kind: "error",
        error: { name: e.name, message: e.message, file: e.file, offset: e.offset, stack: e.stack },
      });
    }
  });
}
