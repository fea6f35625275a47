/**
 * bench/compact: rewrite rate of `lsmscope compact` (forced CompactRange through the engine, per CF,
 * kForce + exclusive + change_level to the bottom) against `ldb compact` (RocksDB's own tool: per CF,
 * kForceOptimized, store OPTIONS loaded), on identical copies of one store, in the same run.
 *
 *   node dist/bench/compact.js [--keys N] [--value-bytes N] [--json]
 *
 * The store: two Besu-like column families (LZ4, bloom 10, format 5, 32 KiB blocks) of N random keys each,
 * compacted to L6, then three rounds of 10 % overwrites/deletes flushed to L0 (an overlay), so the
 * compaction has upper levels to merge (bench/overlay_store.ts, which the compact tests use too). Rates
 * are measured:
 * - input rate: SST bytes before / wall time of the compaction phase (same definition for both tools);
 * - write rate (lsmscope only): RocksDB's compact.write.bytes ticker / time in CompactRange; the
 *   plan's duration estimate (src/compact/rate.ts) is in these units.
 * Both copies' logical digests are checked equal to the original's afterwards.
 */
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execFileSync } from "node:child_process";
import * as engine from "../src/engine/index.js";
import { digestStore, planCompaction, runCompaction } from "../src/compact/index.js";
import { formatBytes } from "../src/util/bytes.js";
import { OVERLAY_CFS, writeOverlayStore } from "./overlay_store.js";

/** Besu-like column families without partitioned filters. */
const CF_OPTIONS =
  "compression=kLZ4Compression;level_compaction_dynamic_level_bytes=false;" +
  "block_based_table_factory={format_version=5;block_size=32768;filter_policy=bloomfilter:10:false}";

function arg(args: string[], name: string, def: number): number {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : def;
}

export interface CompactBenchResult {
  keysPerCf: number;
  sstBytesBefore: number;
  lsmscope: { seconds: number; inputMiBps: number; writeBytes: number; writeMiBps: number };
  ldb: { seconds: number; inputMiBps: number; mode: string };
  digestsEqual: boolean;
  /** The pure-TS logical digest (all CFs, SSTs + WAL) of the original store. */
  digest: { seconds: number; inputMiBps: number; keys: number };
}

export async function main(args: string[] = process.argv.slice(2)): Promise<CompactBenchResult> {
  engine.requireEngine();
  const keys = arg(args, "--keys", 300_000);
  const valueBytes = arg(args, "--value-bytes", 200);
  const root = mkdtempSync(join(tmpdir(), "lsmscope-bench-compact-"));
  try {
    const orig = join(root, "orig");
    writeOverlayStore(orig, keys, { valueBytes, seed: 1, cfOptions: CF_OPTIONS, walTail: false });
    const a = join(root, "a");
    const b = join(root, "b");
    cpSync(orig, a, { recursive: true });
    cpSync(orig, b, { recursive: true });
    const td = performance.now();
    const d0 = await digestStore(orig);
    const digestSeconds = (performance.now() - td) / 1000;

    const plan = await planCompaction(a);
    if (plan.refusals.length) throw new Error(`refused: ${plan.refusals[0]!.message}`);
    const t0 = performance.now();
    const run = await runCompaction(plan);
    const ourSeconds = (performance.now() - t0) / 1000;

    const t1 = performance.now();
    for (const cf of OVERLAY_CFS)
      execFileSync("ldb", [`--db=${b}`, `--column_family=${cf.toString("latin1")}`, "compact"]);
    const ldbSeconds = (performance.now() - t1) / 1000;

    const da = await digestStore(a);
    const db = await digestStore(b);
    const sig = (d: typeof d0) => d.columnFamilies.map((c) => c.sha256).join(",");
    const MB = 1024 * 1024;
    const res: CompactBenchResult = {
      keysPerCf: keys,
      sstBytesBefore: plan.totals.sstBytes,
      lsmscope: {
        seconds: ourSeconds,
        inputMiBps: plan.totals.sstBytes / MB / ourSeconds,
        writeBytes: run.compactWriteBytes,
        writeMiBps: run.writeRateBytesPerSecond / MB,
      },
      ldb: {
        seconds: ldbSeconds,
        inputMiBps: plan.totals.sstBytes / MB / ldbSeconds,
        mode: "kForceOptimized, per CF",
      },
      digestsEqual: sig(da) === sig(d0) && sig(db) === sig(d0),
      digest: {
        seconds: digestSeconds,
        inputMiBps: plan.totals.sstBytes / MB / digestSeconds,
        keys: d0.columnFamilies.reduce((a, c) => a + c.keys, 0),
      },
    };
    if (args.includes("--json")) process.stdout.write(JSON.stringify(res) + "\n");
    else {
      process.stdout.write(
        [
          `compact bench: ${keys} keys × ${OVERLAY_CFS.length} CFs, ${valueBytes} B values, ${formatBytes(res.sstBytesBefore)} of tables (L0 overlay over L6)`,
          `  lsmscope compact (kForce, exclusive, to L6): ${res.lsmscope.seconds.toFixed(2)} s, input ${res.lsmscope.inputMiBps.toFixed(1)} MiB/s, wrote ${formatBytes(res.lsmscope.writeBytes)} at ${res.lsmscope.writeMiBps.toFixed(1)} MiB/s`,
          `  ldb compact (kForceOptimized):               ${res.ldb.seconds.toFixed(2)} s, input ${res.ldb.inputMiBps.toFixed(1)} MiB/s`,
          `  digests equal to the original: ${res.digestsEqual}; the TS digest read ${res.digest.keys} live keys in ${res.digest.seconds.toFixed(2)} s (${res.digest.inputMiBps.toFixed(1)} MiB/s of tables)`,
          "",
        ].join("\n"),
      );
    }
    return res;
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}

/** Entry for bench/run.ts (`npm run bench -- compact [--keys N] [--value-bytes N] [--json]`). */
export async function run(): Promise<void> {
  await main(process.argv.slice(3));
}
