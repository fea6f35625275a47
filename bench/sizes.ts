/**
 * `sizes --full` scan speed against `sst_dump --command=scan` (RocksDB 7.8.3) on the same files in the
 * same run, with 1 and 2 worker threads, and peak memory on a store ten times larger than the memory
 * the scan is allowed. Stores are written fresh by db_bench into a temp dir and removed afterwards.
 *
 * Speed: fillrandom (overwrites leave several versions, so the newest-version merge has work to do),
 * 10 M writes by default (~520 MiB, ~8 M entries). On a store of ~100 MiB the fixed costs (node
 * start-up ~70 ms, imports ~45 ms, and V8 compiling the scan loop in each thread) are as long as the
 * scan itself and hide what a second thread adds; the speed targets are about scan throughput.
 * Entries/s counts every entry read from the tables (what sst_dump prints); sizes times are the wall
 * time of `lsmscope sizes --full --json` as a user runs it, start-up included (MANIFEST/OPTIONS model,
 * planning, merge, statistics, the report).
 *
 * Memory: fillseq, 40 M writes by default (~2.6 GiB), scanned with 2 threads inside a memory cgroup
 * limited to a tenth of the store's size (cgroup v1 `memory` or v2 `memory.max`; needs root). The page
 * cache is charged to the cgroup too (the store's pages are dropped from the cache first), so the store
 * cannot stay in memory: the cgroup's failure count shows the limit was hit. Without a writable cgroup the run is unconfined and says so.
 *
 * Env: LSMSCOPE_BENCH_NUM (writes of the speed store, default 10,000,000), LSMSCOPE_BENCH_BIG (writes of
 * the memory store, default 40,000,000; 0 skips it), LSMSCOPE_BENCH_RUNS (best of, default 3). On a
 * shared machine other processes compete for the cores: the two-thread figure is only meaningful on
 * an otherwise idle machine. Registered by bench/run.ts (npm run bench -- sizes).
 */
import { spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { bin, dbBench, measure, measureWithOutput, printLoadAverage, sstPaths } from "./common.js";

const NUM = Number(process.env.LSMSCOPE_BENCH_NUM ?? 10_000_000);
const BIG = Number(process.env.LSMSCOPE_BENCH_BIG ?? 40_000_000);
const RUNS = Number(process.env.LSMSCOPE_BENCH_RUNS ?? 3);

function fill(dir: string, num: number, benchmark = "fillrandom"): void {
  dbBench([
    `--benchmarks=${benchmark}`,
    `--num=${num}`,
    `--db=${dir}`,
    "--disable_wal=1",
    "--key_size=20",
    "--value_size=100",
    "--compression_ratio=0.5",
    "--compression_type=lz4",
    "--block_size=16384",
    "--bloom_bits=10",
  ]);
}

/** A memory cgroup with a limit, for one child process; undefined where none can be made (not root). */
interface MemoryCgroup {
  kind: string;
  /** File a process writes its pid to, to join. */
  procs: string;
  /** Highest memory charged (bytes; anonymous memory and page cache) and how often the limit was hit. */
  usage(): { peakBytes: number; limitHits: number };
  remove(): void;
}

function memoryCgroup(limitBytes: number): MemoryCgroup | undefined {
  const name = `lsmscope-bench-${process.pid}`;
  const read = (f: string) => Number(readFileSync(f, "utf8").trim());
  try {
    const v1 = "/sys/fs/cgroup/memory";
    if (existsSync(join(v1, "memory.limit_in_bytes"))) {
      const dir = join(v1, name);
      mkdirSync(dir);
      writeFileSync(join(dir, "memory.limit_in_bytes"), String(limitBytes));
      return {
        kind: "cgroup v1 memory.limit_in_bytes",
        procs: join(dir, "cgroup.procs"),
        usage: () => ({
          peakBytes: read(join(dir, "memory.max_usage_in_bytes")),
          limitHits: read(join(dir, "memory.failcnt")),
        }),
        remove: () => rmdirSync(dir),
      };
    }
    const v2 = "/sys/fs/cgroup";
    if (readFileSync(join(v2, "cgroup.controllers"), "utf8").split(/\s+/).includes("memory")) {
      const dir = join(v2, name);
      mkdirSync(dir);
      writeFileSync(join(dir, "memory.max"), String(limitBytes));
      return {
        kind: "cgroup v2 memory.max",
        procs: join(dir, "cgroup.procs"),
        usage: () => ({
          peakBytes: existsSync(join(dir, "memory.peak")) ? read(join(dir, "memory.peak")) : NaN,
          limitHits: Number(/^max (\d+)/m.exec(readFileSync(join(dir, "memory.events"), "utf8"))?.[1] ?? NaN),
        }),
        remove: () => rmdirSync(dir),
      };
    }
  } catch {
    // not root, or no memory controller here
  }
  return undefined;
}

/** sst_dump --command=scan over every table, one process per table: the CPU seconds of them all. */
function sstDumpScan(files: string[]): number {
  let cpu = 0;
  for (const file of files) cpu += measure("sst_dump", [`--file=${file}`, "--command=scan"]).cpu;
  return cpu;
}

function rate(n: number): string {
  return n >= 1e6 ? `${(n / 1e6).toFixed(2)} M/s` : `${(n / 1e3).toFixed(0)} k/s`;
}

function mib(n: number): string {
  return Number.isFinite(n) ? `${(n / 1048576).toFixed(1)} MiB` : "n/a";
}

/**
 * One `lsmscope sizes --full --json --workers N` as a user runs it (the launcher, its bundle and code
 * cache, cold JIT in every thread, as sst_dump starts cold), under /usr/bin/time: wall time measured
 * here, CPU and peak RSS from /usr/bin/time (measureWithOutput), entries, threads and the scan's rate
 * from the JSON. With `cgroupProcs` lsmscope's process joins that cgroup before it starts (a shell
 * between /usr/bin/time and it writes its pid there, then becomes it).
 *
 * Until session 26 this imported the library into `node -e` instead: ~0.3 s of ES module loading
 * (170 modules, no code cache) and NODE_EXTRA_CA_CERTS that the CLI never pays, ~10% of a one-thread
 * scan of 520 MiB; and its peak RSS, read from resourceUsage().maxRSS, was the bench's own (Linux
 * carries ru_maxrss across execve into a child forked from this process: 355 MiB for every row).
 */
function sizesProcess(
  dir: string,
  workers: number,
  cgroupProcs?: string,
): {
  seconds: number;
  cpuSeconds: number;
  rssBytes: number;
  entries: number;
  live: number;
  threads: number;
  scanRate: number;
} {
  const cli = [bin, "sizes", "--full", "--json", "--workers", String(workers), dir];
  const [cmd, ...args] = cgroupProcs
    ? ["sh", "-c", `echo $$ > ${JSON.stringify(cgroupProcs)} && exec "$@"`, "sh", ...cli]
    : cli;
  const r = measureWithOutput(cmd!, args);
  const j = JSON.parse(r.stdout) as {
    workers: number;
    entriesPerSecond?: number;
    columnFamilies: { entriesRead: number; liveKeys: number }[];
  };
  return {
    seconds: r.wall,
    cpuSeconds: r.cpu,
    rssBytes: r.maxRssKb * 1024,
    entries: j.columnFamilies.reduce((s, c) => s + c.entriesRead, 0),
    live: j.columnFamilies.reduce((s, c) => s + c.liveKeys, 0),
    threads: j.workers,
    scanRate: j.entriesPerSecond ?? NaN,
  };
}

function dirBytes(dir: string): number {
  return readdirSync(dir).reduce((s, f) => s + statSync(join(dir, f)).size, 0);
}

export async function run(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), "lsmscope-bench-sizes-"));
  try {
    const dir = join(root, "store");
    fill(dir, NUM);
    const files = sstPaths(dir);
    console.log(
      `sizes: db_bench fillrandom ${NUM} writes (20-byte keys, 100-byte values, LZ4, 16 KiB blocks): ${files.length} tables, ${mib(dirBytes(dir))}; best of ${RUNS}, runs interleaved`,
    );
    let entries = 0;
    let live = 0;
    const times: Record<string, number> = { w1: Infinity, w2: Infinity, dump: Infinity };
    const cpus: Record<string, number> = { w1: Infinity, w2: Infinity, dump: Infinity };
    const rss: Record<string, number> = {};
    const threads: Record<string, number> = {};
    const scanRate: Record<string, number> = {};
    for (let i = 0; i < RUNS; i++) {
      for (const w of [1, 2]) {
        const r = sizesProcess(dir, w);
        if (r.seconds < times[`w${w}`]!) scanRate[`w${w}`] = r.scanRate;
        times[`w${w}`] = Math.min(times[`w${w}`]!, r.seconds);
        cpus[`w${w}`] = Math.min(cpus[`w${w}`]!, r.cpuSeconds);
        rss[`w${w}`] = Math.max(rss[`w${w}`] ?? 0, r.rssBytes);
        threads[`w${w}`] = r.threads;
        entries = r.entries;
        live = r.live;
      }
      const t0 = process.hrtime.bigint();
      cpus["dump"] = Math.min(cpus["dump"]!, sstDumpScan(files));
      times["dump"] = Math.min(times["dump"]!, Number(process.hrtime.bigint() - t0) / 1e9);
    }
    const line = (name: string, s: number) =>
      `    ${name.padEnd(40)} ${s.toFixed(3)} s  ${rate(entries / s)}`;
    console.log(`  ${entries} entries in the tables, ${live} live keys after the newest-version merge`);
    console.log(`  wall time of a fresh process each (node start-up and the MANIFEST model included):`);
    console.log(
      line(`lsmscope sizes --full, 1 thread`, times["w1"]!) +
        `  peak RSS ${mib(rss["w1"]!)}  (scan phase alone ${rate(scanRate["w1"]!)})`,
    );
    console.log(
      line(`lsmscope sizes --full, ${threads["w2"]} threads`, times["w2"]!) +
        `  peak RSS ${mib(rss["w2"]!)}  (scan phase alone ${rate(scanRate["w2"]!)})`,
    );
    console.log(line("sst_dump --command=scan, per table", times["dump"]!));
    console.log(
      `    ratio vs sst_dump scan: 1 thread ${(times["dump"]! / times["w1"]!).toFixed(2)}x, 2 threads ${(times["dump"]! / times["w2"]!).toFixed(2)}x (targets 1.5x and 2x)`,
    );
    // on a shared machine the wall ratios move with the other load; CPU seconds show the work done
    const cpu = (k: string) => `${cpus[k]!.toFixed(2)} s`;
    console.log(
      `    CPU (best of ${RUNS}): sst_dump ${cpu("dump")}, lsmscope 1 thread ${cpu("w1")} (${(cpus["dump"]! / cpus["w1"]!).toFixed(2)}x), 2 threads ${cpu("w2")} in all`,
    );
    printLoadAverage();
    rmSync(dir, { recursive: true, force: true });
    if (BIG > 0) memoryRun(root);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/** The scan of a store ten times larger than the memory it may use. */
function memoryRun(root: string): void {
  const bigDir = join(root, "big");
  fill(bigDir, BIG, "fillseq");
  const storeBytes = dirBytes(bigDir);
  const limit = Math.floor(storeBytes / 10);
  // db_bench's writes are still in the page cache, charged outside the cgroup: drop them (fadvise
  // DONTNEED through dd) so every block the scan reads is charged to it
  for (const f of readdirSync(bigDir))
    spawnSync("dd", [`if=${join(bigDir, f)}`, "iflag=nocache", "count=0", "status=none"], {
      stdio: "ignore",
    });
  const cg = memoryCgroup(limit);
  try {
    const r = sizesProcess(bigDir, 2, cg?.procs);
    const head = `  memory: db_bench fillseq ${BIG} writes, ${mib(storeBytes)}, ${r.entries} entries, 2 threads, ${r.seconds.toFixed(1)} s`;
    if (!cg) {
      console.log(`${head}: peak RSS ${mib(r.rssBytes)} (no writable memory cgroup: run unconfined)`);
      return;
    }
    const u = cg.usage();
    console.log(
      `${head}\n    inside a ${cg.kind} of ${mib(limit)} (store / ${(storeBytes / limit).toFixed(1)}): peak RSS ${mib(r.rssBytes)}, peak charge ${mib(u.peakBytes)} (page cache included), limit hit ${u.limitHits} times`,
    );
  } finally {
    cg?.remove();
  }
}

// run directly: node dist/bench/sizes.js
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await run();
