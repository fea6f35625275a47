/**
 * One point of a sweep: open (reader tables or engine), drop the page cache when cold, run the lookups,
 * and sum what they cost. Runs in the calling process, or in a fresh child process (worker.ts) so that
 * nothing of an earlier point (page cache aside, which a cold run drops) survives into the next one.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fromHex } from "../util/bytes.js";
import { LsmscopeError } from "../util/errors.js";
import { compiledScript } from "../util/compiled_script.js";
import { LsmReader } from "./reader_path.js";
import { EngineProber } from "./engine_path.js";
import {
  coldMethodAvailable,
  deviceOf,
  deviceReadBytes,
  dropPageCache,
  procReadBytes,
  type ColdMethod,
} from "./cold.js";
import type { LookupTrace, ProbePath, ProbePoint, ProbeTarget } from "./types.js";

export interface PointJob {
  target: ProbeTarget;
  /** Hex keys, in lookup order. */
  keys: string[];
  path: ProbePath;
  cold: boolean;
  coldMethod?: ColdMethod;
  /** Keep per-lookup traces in the result (for --path both). */
  perLookup?: boolean;
}

function round(n: number): number {
  return Math.round(n * 1e6) / 1e6;
}

/** Measure one point in this process. */
export function runPoint(job: PointJob): ProbePoint {
  const started = Date.now();
  const keys = job.keys.map((k) => fromHex(k));
  let method: ColdMethod | undefined;
  if (job.cold) {
    const m = coldMethodAvailable(job.coldMethod);
    if (!m.method) throw new LsmscopeError(`--cold: ${m.reason}`, { exitCode: 3 });
    method = m.method;
  }
  let reader: LsmReader | undefined;
  let engine: EngineProber | undefined;
  let openBytes: number | null = null;
  if (job.path === "reader") {
    reader = new LsmReader(job.target);
    openBytes = reader.openStats.openBytes;
  } else {
    engine = new EngineProber(job.target);
  }
  try {
    // drop after opening: opening reads (RocksDB prefetches table tails) would otherwise warm the data
    if (method) dropPageCache(job.target.storeFiles, method);
    const dev = deviceOf(job.target.instanceDir);
    const io0 = procReadBytes();
    const d0 = deviceReadBytes(dev);
    const traces: LookupTrace[] = [];
    for (const k of keys) traces.push(reader ? reader.get(k, true) : engine!.get(k).trace);
    const io1 = procReadBytes();
    const d1 = deviceReadBytes(dev);

    const n = traces.length || 1;
    const sum = (f: (t: LookupTrace) => number) => traces.reduce((s, t) => s + f(t), 0);
    const levels: Record<string, number> = {};
    for (const t of traces) {
      const l = t.found ? t.level : "none";
      levels[l] = (levels[l] ?? 0) + 1;
    }
    let distinct: number | null = null;
    let distinctBytes: number | null = null;
    if (reader) {
      const ids = new Set<string>();
      for (const t of traces) for (const id of t.dataBlockIds ?? []) ids.add(id);
      distinct = ids.size;
      distinctBytes = 0;
      for (const id of ids) distinctBytes += Number(id.slice(id.lastIndexOf(":") + 1));
    }
    const point: ProbePoint = {
      count: keys.length,
      path: job.path,
      cold: job.cold,
      lookups: traces.length,
      found: traces.filter((t) => t.found).length,
      filesPerLookup: reader ? round(sum((t) => t.files) / n) : null,
      maxFilesPerLookup: reader ? traces.reduce((m, t) => Math.max(m, t.files), 0) : null,
      filterChecksPerLookup: round(sum((t) => t.filterChecks) / n),
      filterRejectionsPerLookup: round(sum((t) => t.filterRejections) / n),
      indexBlocksPerLookup: round(sum((t) => t.indexBlocks) / n),
      filterBlocksPerLookup: round(sum((t) => t.filterBlocks) / n),
      dataBlocksPerLookup: round(sum((t) => t.dataBlocks) / n),
      blobReadsPerLookup: round(sum((t) => t.blobReads) / n),
      bytesPerLookup: round(sum((t) => t.bytes) / n),
      distinctDataBlocks: distinct,
      distinctDataBlockBytes: distinctBytes,
      blockLayerBytes: io0 !== null && io1 !== null ? io1 - io0 : null,
      deviceReadBytes: d0 !== null && d1 !== null ? d1 - d0 : null,
      coldMethod: method ?? null,
      openBytes,
      answeredAtLevel: levels,
      elapsedMs: Date.now() - started,
      pid: process.pid,
    };
    if (engine) point.engine = engine.counters;
    if (job.perLookup) point.perLookup = traces.map((t) => ({ ...t, dataBlockIds: undefined }));
    return point;
  } finally {
    reader?.close();
    engine?.close();
  }
}

/** Measure one point in a fresh child process. */
export function runPointInChild(job: PointJob): ProbePoint {
  const script = compiledScript("probe/worker.js");
  if (script === undefined)
    throw new LsmscopeError("probe worker dist/src/probe/worker.js is missing; run: npm run build", {
      exitCode: 3,
    });
  const tmp = mkdtempSync(join(tmpdir(), "lsmscope-probe-"));
  try {
    const jobFile = join(tmp, "job.json");
    const outFile = join(tmp, "out.json");
    writeFileSync(jobFile, JSON.stringify(job));
    const r = spawnSync(process.execPath, [script, jobFile, outFile], {
      stdio: ["ignore", "ignore", "pipe"],
      encoding: "utf8",
      maxBuffer: 16 * 1024 * 1024,
    });
    if (!existsSync(outFile)) {
      const why = (r.stderr ?? "").trim().split("\n").slice(-3).join(" ") || `exit status ${r.status}`;
      throw new LsmscopeError(`probe worker failed: ${why}`);
    }
    const out = JSON.parse(readFileSync(outFile, "utf8")) as
      { ok: true; point: ProbePoint } | { ok: false; error: string; exitCode?: number };
    if (!out.ok) throw new LsmscopeError(out.error, { exitCode: out.exitCode });
    return out.point;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
