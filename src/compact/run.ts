/**
 * Running a plan: open the store read-write with its own OPTIONS (plus the plan's per-CF option strings),
 * then per column family CompactRange over the whole key range with bottommost_level_compaction=kForce,
 * exclusive_manual_compaction=true, change_level=true and target_level=num_levels−1, so every key ends in
 * the bottom level whatever level_compaction_dynamic_level_bytes says.
 *
 * Progress: the engine is opened with statistics on; while compactRangeAsync runs on a libuv worker the
 * ticker `rocksdb.compact.write.bytes` (property "rocksdb.options-statistics", updated by RocksDB every
 * ~1000 keys of a compaction) is polled, with `rocksdb.compact.read.bytes`: bytes read so far against the
 * plan's estimate of what will be read (reads are known from the files; writes shrink by what the
 * compaction drops, plan.ts).
 *
 * Cancelling (AbortSignal, e.g. Ctrl-C): DB::CompactRange is asked to stop through its `canceled` flag
 * (the manual compaction ends "Incomplete"); RocksDB installs finished output files atomically through
 * the MANIFEST and deletes unfinished ones, so the store stays valid. The DB is then closed normally. A
 * cancel that arrives after the last column family finished stops nothing: the run is reported done.
 */
import { engineMaxOpenFiles } from "../util/open_files.js";
import * as engine from "../engine/index.js";
import { CompactionCanceledError, StoreLockedError } from "../engine/errors.js";
import { LsmscopeError } from "../util/errors.js";
import { lockRefusal } from "./guards.js";
import type { CompactPlan } from "./plan.js";

export interface RunProgress {
  /** Display name of the CF being compacted. */
  cf: string;
  /** Bytes written and read by compactions since the run started (tickers). */
  writtenBytes: number;
  readBytes: number;
  /** The plan's estimate of the bytes read: the progress total. */
  estimatedBytes: number;
}

export interface RunOptions {
  onProgress?: (p: RunProgress) => void;
  /** Abort to cancel the manual compaction in flight (Ctrl-C). */
  signal?: AbortSignal;
  /** Poll interval for the progress ticker, ms (default 200). */
  pollMs?: number;
}

export interface CfRunResult {
  nameHex: string;
  displayName: string;
  status: "done" | "cancelled" | "skipped" | "not-started";
  elapsedMs: number;
  /** Ticker deltas during this CF's CompactRange. */
  compactWriteBytes: number;
  compactReadBytes: number;
  flushWriteBytes: number;
}

export interface RunResult {
  status: "done" | "cancelled";
  /** Option adjustments the engine made at open (db.notes). */
  engineNotes: string[];
  columnFamilies: CfRunResult[];
  elapsedMs: number;
  compactWriteBytes: number;
  compactReadBytes: number;
  /** Bytes flushed at open (WAL recovery) and by CompactRange's own flush. */
  flushWriteBytes: number;
  /** compactWriteBytes / time spent in CompactRange. */
  writeRateBytesPerSecond: number;
}

/** Tickers from "rocksdb.options-statistics" ("rocksdb.compact.write.bytes COUNT : 123"). */
export function parseTickers(text: string | undefined): Record<string, number> {
  const out: Record<string, number> = {};
  if (!text) return out;
  for (const m of text.matchAll(/^(rocksdb\.[\w.-]+) COUNT : (\d+)\s*$/gm)) out[m[1]!] = Number(m[2]);
  return out;
}

function tick(db: engine.EngineDb, cf: Buffer): { w: number; r: number; f: number } {
  const t = parseTickers(db.getProperty(cf, "rocksdb.options-statistics"));
  return {
    w: t["rocksdb.compact.write.bytes"] ?? 0,
    r: t["rocksdb.compact.read.bytes"] ?? 0,
    f: t["rocksdb.flush.write.bytes"] ?? 0,
  };
}

/**
 * The engine failed compacting one column family: say which were already rewritten, and that the store
 * is consistent (RocksDB installs each compaction's output atomically through the MANIFEST and deletes
 * what a failed job wrote), so the user knows what changed.
 */
function failedMidway(plan: CompactPlan, result: RunResult, cf: string, err: unknown): LsmscopeError {
  const done = result.columnFamilies.filter((c) => c.status === "done").map((c) => c.displayName);
  const why = err instanceof Error ? err.message : String(err);
  return new LsmscopeError(
    `the engine failed compacting ${cf}: ${why}; ` +
      (done.length ? `already rewritten: ${done.join(", ")}; ` : "no column family was rewritten; ") +
      `the store is consistent (each compaction is installed atomically); lsmscope inspect shows it`,
    { file: plan.store, cause: err },
  );
}

/** Execute a plan (which must carry no refusals). */
export async function runCompaction(plan: CompactPlan, opts: RunOptions = {}): Promise<RunResult> {
  if (plan.refusals.length > 0)
    throw new LsmscopeError(`refused: ${plan.refusals[0]!.message}`, { file: plan.store });
  const lock = lockRefusal(plan.store);
  if (lock) throw new LsmscopeError(`refused: ${lock.message}`, { file: plan.store });
  if (opts.signal?.aborted)
    throw new LsmscopeError("cancelled before the store was opened; nothing written", {
      file: plan.store,
      exitCode: 130,
    });
  const started = Date.now();
  let db: engine.EngineDb;
  try {
    db = engine.openDb(plan.store, {
      useLatestOptionsFile: true,
      statistics: true,
      // bounded descriptors: RocksDB's table cache holds the tables and blob files it opens, and the
      // store's own setting is often -1 (keep every one open), which fails with EMFILE on a store of
      // tens of thousands of blob files; the verification's readers need room beside it
      dbOptions: `max_open_files=${engineMaxOpenFiles()}`,
      columnFamilies: plan.columnFamilies
        .filter((c) => c.optionString !== "")
        .map((c) => ({ name: Buffer.from(c.nameHex, "hex"), options: c.optionString })),
    });
  } catch (err) {
    if (err instanceof StoreLockedError)
      throw new LsmscopeError(`refused: the store is open in another process (${err.message})`, {
        file: plan.store,
      });
    throw err;
  }
  const result: RunResult = {
    status: "done",
    engineNotes: [],
    columnFamilies: plan.columnFamilies.map((c) => ({
      nameHex: c.nameHex,
      displayName: c.displayName,
      status: "not-started",
      elapsedMs: 0,
      compactWriteBytes: 0,
      compactReadBytes: 0,
      flushWriteBytes: 0,
    })),
    elapsedMs: 0,
    compactWriteBytes: 0,
    compactReadBytes: 0,
    flushWriteBytes: 0,
    writeRateBytesPerSecond: 0,
  };
  let compactMs = 0;
  const onAbort = () => {
    try {
      db.cancelManualCompaction();
    } catch {
      // already closed
    }
  };
  opts.signal?.addEventListener("abort", onAbort);
  try {
    result.engineNotes = db.notes;
    const anyCf = Buffer.from(plan.columnFamilies[0]?.nameHex ?? "64656661756c74", "hex");
    const t0 = tick(db, anyCf);
    result.flushWriteBytes = t0.f; // recovery flush at open
    for (let i = 0; i < plan.columnFamilies.length; i++) {
      const cp = plan.columnFamilies[i]!;
      const cr = result.columnFamilies[i]!;
      if (opts.signal?.aborted) break;
      if (!cp.compact) {
        cr.status = "skipped";
        continue;
      }
      const cf = Buffer.from(cp.nameHex, "hex");
      const before = tick(db, cf);
      const cfStart = Date.now();
      const timer = setInterval(() => {
        const now = tick(db, cf);
        opts.onProgress?.({
          cf: cp.displayName,
          writtenBytes: result.compactWriteBytes + now.w - before.w,
          readBytes: result.compactReadBytes + now.r - before.r,
          estimatedBytes: plan.totals.estimatedReadBytes,
        });
      }, opts.pollMs ?? 200);
      try {
        await db.compactRangeAsync(cf, {
          bottommost: "force",
          exclusive: true,
          changeLevel: true,
          targetLevel: cp.targetLevel,
        });
        cr.status = "done";
      } catch (err) {
        if (err instanceof CompactionCanceledError || opts.signal?.aborted) cr.status = "cancelled";
        else throw failedMidway(plan, result, cp.displayName, err);
      } finally {
        clearInterval(timer);
        const after = tick(db, cf);
        cr.elapsedMs = Date.now() - cfStart;
        compactMs += cr.elapsedMs;
        cr.compactWriteBytes = after.w - before.w;
        cr.compactReadBytes = after.r - before.r;
        cr.flushWriteBytes = after.f - before.f;
        result.compactWriteBytes += cr.compactWriteBytes;
        result.compactReadBytes += cr.compactReadBytes;
        result.flushWriteBytes += cr.flushWriteBytes;
        opts.onProgress?.({
          cf: cp.displayName,
          writtenBytes: result.compactWriteBytes,
          readBytes: result.compactReadBytes,
          estimatedBytes: plan.totals.estimatedReadBytes,
        });
      }
      if (cr.status === "cancelled") break;
    }
    // cancelled only if the cancel stopped something: a CF cut short, or one left unstarted
    const stopped = result.columnFamilies.some(
      (c, i) => c.status === "cancelled" || (c.status === "not-started" && plan.columnFamilies[i]!.compact),
    );
    if (stopped) result.status = "cancelled";
  } finally {
    opts.signal?.removeEventListener("abort", onAbort);
    db.close();
  }
  result.elapsedMs = Date.now() - started;
  result.writeRateBytesPerSecond = compactMs > 0 ? (result.compactWriteBytes * 1000) / compactMs : 0;
  return result;
}
