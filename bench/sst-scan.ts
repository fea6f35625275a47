/**
 * Full-scan speed of the pure-TS SST reader against `sst_dump --command=scan` (RocksDB 7.8.3) on the
 * same files in the same run, one core each. Tables are written fresh by db_bench into a temp dir.
 * Also prints `sst_dump --command=check` (iterates without printing) for context, and what opening a
 * table costs (positioned reads and bytes).
 *
 * Env: LSMSCOPE_BENCH_NUM (keys per store, default 400000), LSMSCOPE_BENCH_RUNS (best of, default 3).
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openTable } from "../src/format/index.js";
import { dbBench, sstPaths } from "./common.js";

const NUM = Number(process.env.LSMSCOPE_BENCH_NUM ?? 400_000);
const RUNS = Number(process.env.LSMSCOPE_BENCH_RUNS ?? 3);

const CONFIGS: { name: string; flags: string[] }[] = [
  { name: "lz4, 16 KiB blocks", flags: ["--compression_type=lz4", "--block_size=16384"] },
  { name: "snappy, 4 KiB blocks", flags: ["--compression_type=snappy", "--block_size=4096"] },
  { name: "zstd, 16 KiB blocks", flags: ["--compression_type=zstd", "--block_size=16384"] },
];

function best(fn: () => void, warmup = false): number {
  if (warmup) fn(); // untimed: lets the JIT compile the scan loop, as it would on any long scan
  let min = Infinity;
  for (let i = 0; i < RUNS; i++) {
    const t0 = process.hrtime.bigint();
    fn();
    min = Math.min(min, Number(process.hrtime.bigint() - t0) / 1e9);
  }
  return min;
}

function sstDump(file: string, command: string): void {
  const r = spawnSync("sst_dump", [`--file=${file}`, `--command=${command}`, "--output_hex"], {
    stdio: ["ignore", "ignore", "ignore"],
  });
  if (r.status !== 0) throw new Error(`sst_dump --command=${command} failed on ${file}`);
}

function fmtRate(n: number): string {
  return n >= 1e6 ? `${(n / 1e6).toFixed(2)} M/s` : `${(n / 1e3).toFixed(0)} k/s`;
}

export async function run(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), "lsmscope-bench-sst-"));
  try {
    console.log(`sst-scan: ${NUM} keys per store (20-byte keys, 100-byte values), best of ${RUNS}`);
    for (const c of CONFIGS) {
      const dir = join(root, c.name.replace(/\W+/g, "_"));
      dbBench([
        "--benchmarks=fillrandom",
        `--num=${NUM}`,
        `--db=${dir}`,
        "--disable_wal=1",
        "--key_size=20",
        "--value_size=100",
        "--bloom_bits=10",
        ...c.flags,
      ]);
      const files = sstPaths(dir);
      let entries = 0;
      let bytes = 0;
      let openReads = 0;
      let openBytes = 0;
      const ours = best(() => {
        entries = 0;
        bytes = 0;
        for (const f of files) {
          const t = openTable(f);
          openReads = t.io.reads;
          openBytes = t.io.bytes;
          const s = t.scan();
          entries += s.entries;
          bytes += t.fileSize;
          t.close();
        }
      }, true);
      const scan = best(() => files.forEach((f) => sstDump(f, "scan")));
      const check = best(() => files.forEach((f) => sstDump(f, "check")));
      console.log(
        `\n  ${c.name}: ${files.length} tables, ${entries} entries, ${(bytes / 1048576).toFixed(1)} MiB`,
      );
      console.log(`    lsmscope scan          ${ours.toFixed(3)} s  ${fmtRate(entries / ours)}`);
      console.log(`    sst_dump --command=scan ${scan.toFixed(3)} s  ${fmtRate(entries / scan)}`);
      console.log(`    sst_dump --command=check ${check.toFixed(3)} s  ${fmtRate(entries / check)}`);
      console.log(
        `    ratio lsmscope / sst_dump scan: ${(scan / ours).toFixed(2)}x  (vs check: ${(check / ours).toFixed(2)}x)`,
      );
      console.log(`    opening one table: ${openReads} positioned reads, ${openBytes} bytes`);
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
