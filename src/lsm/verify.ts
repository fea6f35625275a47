/**
 * `inspect --verify`: every block of every live table, every record of every live blob file and every
 * WAL record read and checksummed, in one pass over the store, like `sst_dump --command=verify` over
 * each table (but decoding data blocks, which that command skips) plus the blob files and WALs. WAL
 * records are checksummed while the model is built (scanWal); tables and blob files are read here by
 * worker threads that claim the next file from one shared counter, largest first. A failure becomes an
 * error finding naming the file and offset, and the picture is incomplete (exit 2).
 */
import { availableParallelism } from "node:os";
import { startWorker } from "../util/worker_heap.js";
import type { DatadirModel, Finding, InstanceModel } from "../datadir/model.js";
import { verifyItem, type VerifyItem, type VerifyItemResult } from "./verify_item.js";
import { compiledScript } from "../util/compiled_script.js";

export interface VerifyReport {
  /** Threads that read files. */
  threads: number;
  tables: { files: number; blocks: number; entries: number; bytes: number };
  blobFiles: { files: number; records: number; bytes: number };
  /** WAL records checksummed while the model was built. */
  wal: { files: number; records: number; bytes: number };
  /** Files whose verification failed (each also an error finding of the model). */
  failed: number;
  elapsedMs: number;
}

/** Below this many bytes to read, a worker's start-up costs more than it saves. */
const PARALLEL_MIN_BYTES = 64 * 1024 * 1024;

/** Run `items` on `threads` worker threads; undefined when no worker script exists. */
async function runInWorkers(
  items: VerifyItem[],
  threads: number,
  onResult: (index: number, r: VerifyItemResult) => void,
): Promise<boolean> {
  const script = compiledScript("lsm/verify_worker.js");
  if (!script) return false;
  const claim = new Int32Array(new SharedArrayBuffer(4));
  await Promise.all(
    Array.from(
      { length: threads },
      () =>
        new Promise<void>((resolve, reject) => {
          const w = startWorker(script, { workerData: { items, claim } });
          w.on("message", (m: { index?: number; result?: VerifyItemResult; done?: boolean }) => {
            if (m.result && m.index !== undefined) onResult(m.index, m.result);
          });
          w.once("error", reject);
          w.once("exit", () => resolve());
        }),
    ),
  );
  return true;
}

export interface VerifyOptions {
  /** Threads (default: min(4, cores) when there are PARALLEL_MIN_BYTES or more to read, else 1). */
  threads?: number;
  /** Bytes of files verified so far, of the total. */
  onProgress?: (done: number, total: number) => void;
}

/** Verify every live table and blob file of the model; failures are added to its findings. */
export async function verifyStore(model: DatadirModel, opts: VerifyOptions = {}): Promise<VerifyReport> {
  const t0 = Date.now();
  const items: VerifyItem[] = [];
  const owner: InstanceModel[] = [];
  for (const inst of model.instances) {
    for (const cf of inst.columnFamilies) {
      for (const l of cf.levels)
        for (const f of l.files)
          if (f.present) {
            items.push({ kind: "table", path: f.path, bytes: f.diskSize ?? f.fileSize });
            owner.push(inst);
          }
      for (const b of cf.blobFiles)
        if (b.present) {
          items.push({ kind: "blob", path: b.path, bytes: b.diskSize ?? b.recordBytes });
          owner.push(inst);
        }
      for (const b of cf.pebbleBlobFiles ?? [])
        if (b.present) {
          const bytes = b.diskSize ?? b.fileSize;
          items.push({ kind: "pebble-blob", path: b.path, bytes, valueBytes: b.valueBytes });
          owner.push(inst);
        }
    }
  }
  // largest first, so no thread is left with one big file at the end
  const order = items.map((_, i) => i).sort((a, b) => items[b]!.bytes - items[a]!.bytes);
  const sorted = order.map((i) => items[i]!);
  const total = items.reduce((s, x) => s + x.bytes, 0);
  const threads = Math.max(
    1,
    Math.floor(opts.threads ?? (total >= PARALLEL_MIN_BYTES ? Math.min(4, availableParallelism()) : 1)),
  );
  const report: VerifyReport = {
    threads: 1,
    tables: { files: 0, blocks: 0, entries: 0, bytes: 0 },
    blobFiles: { files: 0, records: 0, bytes: 0 },
    wal: { files: 0, records: 0, bytes: 0 },
    failed: 0,
    elapsedMs: 0,
  };
  let done = 0;
  const record = (k: number, r: VerifyItemResult) => {
    const inst = owner[order[k]!]!;
    if (r.kind === "table") {
      report.tables.files++;
      report.tables.blocks += r.units;
      report.tables.entries += r.entries;
      report.tables.bytes += r.bytes;
    } else {
      report.blobFiles.files++;
      report.blobFiles.records += r.units;
      report.blobFiles.bytes += r.bytes;
    }
    if (r.error) {
      report.failed++;
      const f: Finding = {
        severity: "error",
        code: "verify-failed",
        file: r.path,
        offset: r.error.offset,
        message: `${r.kind === "table" ? "table" : "blob file"} verification: ${r.error.message}`,
      };
      inst.findings.push(f);
      model.findings.push(f);
    }
    done += sorted[k]!.bytes;
    opts.onProgress?.(done, total);
  };
  const inWorkers = threads > 1 && (await runInWorkers(sorted, threads, record));
  if (inWorkers) report.threads = threads;
  else for (let k = 0; k < sorted.length; k++) record(k, verifyItem(sorted[k]!));
  for (const inst of model.instances)
    for (const w of inst.wal) {
      report.wal.files++;
      report.wal.records += w.records;
      report.wal.bytes += w.size;
    }
  if (report.failed > 0) model.complete = false;
  report.elapsedMs = Date.now() - t0;
  return report;
}
