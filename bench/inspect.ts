/**
 * `lsmscope inspect --deep` against `sst_dump --file=DIR --show_properties` (RocksDB 7.8.3) on the same
 * directory in the same run: a store with >= 5,000 SSTs written by db_bench into a temp dir (tiny
 * memtables flushed to L0 with auto compaction off, so every ~64 KiB memtable becomes one table).
 * Both are timed as whole processes (start-up included), best of N, wall clock and CPU; peak RSS of each
 * from /usr/bin/time. Also timed in process (the library call that the CLI makes, without Node's and the
 * CLI's start-up), since the CLI loads every command's modules before it runs one; then per table in
 * process, each phase and where default mode's CPU goes (per_table.ts).
 *
 * Env: LSMSCOPE_BENCH_INSPECT_FILES (tables wanted, default 5000), LSMSCOPE_BENCH_RUNS (best of, default 3).
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runInspect } from "../src/report/deep.js";
import { buildInspectReport } from "../src/report/build.js";
import { renderInspectReport } from "../src/report/render.js";
import { fmt, L0_PILEUP, lsm, measure, type Measure, printLoadAverage, writeL0Pileup } from "./common.js";
import { printPerTable } from "./per_table.js";

const FILES = Number(process.env.LSMSCOPE_BENCH_INSPECT_FILES ?? 5000);
const RUNS = Number(process.env.LSMSCOPE_BENCH_RUNS ?? 3);
/**
 * Entries per flushed table measured with these db_bench settings (1,000-byte values): the first
 * write's estimate, 5% over (a store short of the count is topped up: common.ts, writeL0Pileup).
 */
const ENTRIES_PER_TABLE = 330;

function best(cmd: string, args: string[]): Measure {
  let b: Measure | undefined;
  for (let i = 0; i < RUNS; i++) {
    const m = measure(cmd, args);
    if (!b || m.wall < b.wall) b = { ...m, maxRssKb: Math.max(m.maxRssKb, b?.maxRssKb ?? 0) };
    else b.maxRssKb = Math.max(b.maxRssKb, m.maxRssKb);
  }
  return b!;
}

/** A pile-up of about `tables` small LZ4 tables; the tables written. */
function makeStore(dir: string, tables: number): number {
  return writeL0Pileup(
    dir,
    tables,
    [
      ...L0_PILEUP,
      "--key_size=16",
      "--value_size=1000",
      "--compression_ratio=0.1",
      "--compression_type=lz4",
      "--bloom_bits=10",
      "--write_buffer_size=65536",
    ],
    ENTRIES_PER_TABLE * 1.05,
  );
}

export async function run(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), "lsmscope-bench-inspect-"));
  try {
    const dir = join(root, "db");
    const t0 = Date.now();
    const ssts = makeStore(dir, FILES);
    console.log(
      `inspect: db_bench store with ${ssts} SSTs (L0, LZ4, bloom 10) written in ${((Date.now() - t0) / 1000).toFixed(1)} s; best of ${RUNS}`,
    );
    if (ssts < FILES) console.log(`  (wanted ${FILES})`);
    // warm the page cache for both the same way
    spawnSync("sst_dump", [`--file=${dir}`, "--show_properties"], { stdio: "ignore" });
    const sst = best("sst_dump", [`--file=${dir}`, "--show_properties"]);
    const deep = best(...lsm(["inspect", "--deep", dir]));
    const cheap = best(...lsm(["inspect", dir]));
    let lib = Infinity;
    let threads = 1;
    for (let i = 0; i < RUNS; i++) {
      const t = process.hrtime.bigint();
      const r = await runInspect(dir, { mode: "deep" });
      renderInspectReport(buildInspectReport(r.model, r.mode, r.deep));
      lib = Math.min(lib, Number(process.hrtime.bigint() - t) / 1e9);
      threads = r.readThreads ?? 1;
    }
    console.log(`  sst_dump --show_properties:  ${fmt(sst)}`);
    console.log(`  lsmscope inspect --deep:     ${fmt(deep)}`);
    console.log(`  lsmscope inspect (cheap):    ${fmt(cheap)}`);
    console.log(
      `  --deep vs sst_dump: ${(sst.wall / deep.wall).toFixed(2)}x wall` +
        (Number.isFinite(sst.cpu) ? `, ${(sst.cpu / deep.cpu).toFixed(2)}x CPU` : "") +
        ` (target >= 2x); cheap: ${(sst.wall / cheap.wall).toFixed(2)}x wall`,
    );
    console.log(
      `  in process (runInspect deep + report, reading threads: ${threads}): ${lib.toFixed(2)} s, ${(sst.wall / lib).toFixed(2)}x sst_dump's wall`,
    );
    await printPerTable(dir, RUNS, sst.wall);
    printLoadAverage();
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

// run directly: node dist/bench/inspect.js
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await run();
