/**
 * `sizes --full` scan speed against `sst_dump --command=scan` (RocksDB 7.8.3) on the same files in the
 * same run, with 1 and 2 worker threads, and peak RSS at two store sizes (memory must not grow with
 * the store). Stores are written fresh by db_bench (fillrandom: overwrites leave several versions, so
 * the newest-version merge has work to do) into a temp dir and removed afterwards.
 *
 * Entries/s counts every entry read from the tables (what sst_dump prints). sizes times include
 * everything computeSizes does (MANIFEST/OPTIONS model, planning, merge, statistics).
 *
 * Env: LSMSCOPE_BENCH_NUM (writes, default 2,000,000), LSMSCOPE_BENCH_BIG (writes of the RSS store,
 * default 3 × NUM), LSMSCOPE_BENCH_RUNS (best of, default 3). On a shared machine other processes
 * compete for the cores: the two-worker figure is only meaningful on an otherwise idle machine.
 * Registered by bench/run.ts, which runs every module in bench/ (npm run bench -- sizes).
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const NUM = Number(process.env.LSMSCOPE_BENCH_NUM ?? 2_000_000);
const BIG = Number(process.env.LSMSCOPE_BENCH_BIG ?? NUM * 3);
const RUNS = Number(process.env.LSMSCOPE_BENCH_RUNS ?? 3);

function fill(dir: string, num: number): void {
  execFileSync(
    "db_bench",
    [
      "--benchmarks=fillrandom",
      `--num=${num}`,
      "--seed=1",
      `--db=${dir}`,
      "--disable_wal=1",
      "--key_size=20",
      "--value_size=100",
      "--compression_ratio=0.5",
      "--compression_type=lz4",
      "--block_size=16384",
      "--bloom_bits=10",
    ],
    { stdio: "ignore" },
  );
}

function ssts(dir: string): string[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith(".sst"))
    .map((f) => join(dir, f));
}

function sstDumpScan(files: string[]): void {
  for (const file of files) {
    const r = spawnSync("sst_dump", [`--file=${file}`, "--command=scan"], {
      stdio: ["ignore", "ignore", "ignore"],
    });
    if (r.status !== 0) throw new Error(`sst_dump --command=scan failed on ${file}`);
  }
}

function rate(n: number): string {
  return n >= 1e6 ? `${(n / 1e6).toFixed(2)} M/s` : `${(n / 1e3).toFixed(0)} k/s`;
}

function mib(n: number): string {
  return `${(n / 1048576).toFixed(1)} MiB`;
}

/**
 * One `sizes --full` in a fresh process, as the CLI runs it (cold JIT in every thread, like sst_dump
 * starts cold): wall time measured here, peak RSS and entries reported by the child.
 */
function sizesProcess(
  dir: string,
  workers: number,
): { seconds: number; rssBytes: number; entries: number; live: number; threads: number } {
  const lib = new URL("../src/sizes/index.js", import.meta.url).href;
  const script = `
    const { computeSizes } = await import(${JSON.stringify(lib)});
    const r = await computeSizes(${JSON.stringify(dir)}, { workers: ${workers}, eth: "off" });
    const entries = r.columnFamilies.reduce((s, c) => s + c.entriesRead, 0);
    const live = r.columnFamilies.reduce((s, c) => s + c.entries, 0);
    // worker threads belong to this process: their memory is in this RSS
    console.log(JSON.stringify({ rssBytes: process.resourceUsage().maxRSS * 1024, entries, live, threads: r.workers }));
  `;
  const t0 = process.hrtime.bigint();
  const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  const j = JSON.parse(out.trim().split("\n").pop()!) as {
    rssBytes: number;
    entries: number;
    live: number;
    threads: number;
  };
  return { seconds, ...j };
}

function dirBytes(dir: string): number {
  return readdirSync(dir).reduce((s, f) => s + statSync(join(dir, f)).size, 0);
}

export async function run(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), "lsmscope-bench-sizes-"));
  try {
    const dir = join(root, "store");
    fill(dir, NUM);
    const files = ssts(dir);
    console.log(
      `sizes: db_bench fillrandom ${NUM} writes (20-byte keys, 100-byte values, LZ4, 16 KiB blocks): ${files.length} tables, ${mib(dirBytes(dir))}; best of ${RUNS}, runs interleaved`,
    );
    let entries = 0;
    let live = 0;
    const times: Record<string, number> = { w1: Infinity, w2: Infinity, dump: Infinity };
    const rss: Record<string, number> = {};
    const threads: Record<string, number> = {};
    for (let i = 0; i < RUNS; i++) {
      for (const w of [1, 2]) {
        const r = sizesProcess(dir, w);
        times[`w${w}`] = Math.min(times[`w${w}`]!, r.seconds);
        rss[`w${w}`] = Math.max(rss[`w${w}`] ?? 0, r.rssBytes);
        threads[`w${w}`] = r.threads;
        entries = r.entries;
        live = r.live;
      }
      const t0 = process.hrtime.bigint();
      sstDumpScan(files);
      times["dump"] = Math.min(times["dump"]!, Number(process.hrtime.bigint() - t0) / 1e9);
    }
    const line = (name: string, s: number) =>
      `    ${name.padEnd(40)} ${s.toFixed(3)} s  ${rate(entries / s)}`;
    console.log(`  ${entries} entries in the tables, ${live} live keys after the newest-version merge`);
    console.log(`  wall time of a fresh process each (node start-up and the MANIFEST model included):`);
    console.log(line(`lsmscope sizes --full, 1 thread`, times["w1"]!) + `  peak RSS ${mib(rss["w1"]!)}`);
    console.log(
      line(`lsmscope sizes --full, ${threads["w2"]} threads`, times["w2"]!) + `  peak RSS ${mib(rss["w2"]!)}`,
    );
    console.log(line("sst_dump --command=scan, per table", times["dump"]!));
    console.log(
      `    ratio vs sst_dump scan: 1 thread ${(times["dump"]! / times["w1"]!).toFixed(2)}x, 2 threads ${(times["dump"]! / times["w2"]!).toFixed(2)}x (targets 1x and 1.7x)`,
    );

    // memory: the same scan on a store BIG/NUM times larger must not need more memory
    const bigDir = join(root, "big");
    fill(bigDir, BIG);
    const big = sizesProcess(bigDir, 2);
    console.log(
      `  peak RSS, 2 threads: ${mib(dirBytes(dir))} store ${mib(rss["w2"]!)}; ${mib(dirBytes(bigDir))} store (${big.entries} entries, ${big.seconds.toFixed(1)} s) ${mib(big.rssBytes)}`,
    );
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

// run directly: node dist/bench/sizes.js
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await run();
