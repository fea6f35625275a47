/**
 * Realistic tables, against RocksDB's own tools in the same run, as whole processes (paired rounds,
 * see shapes.ts):
 *  - `inspect` (default and --deep, text and --json) vs `sst_dump --show_properties` on tables of 4-64 MiB (LZ4,
 *    32 KiB blocks, bloom 10): db_bench fillrandom with 64 MiB memtables and 32 MiB target files, auto
 *    compaction on, so the tables are flushed and compacted ones as on a node (target >= 3x), and
 *    `check` vs `inspect` on the same store (target <= 2x). Ten tables (the default 6 M writes) measure
 *    start-up more than tables: sst_dump takes ~15 ms per such table, Node alone ~50 ms;
 *  - the same rows on a store of ~145 such tables (db_bench fillseq, 60 M writes, 3.8 GiB, written in
 *    ~3 min here; sequential keys, so compactions move tables down instead of rewriting them and the
 *    write takes minutes, not an hour): mainnet stores hold 10,000-100,000 tables like these;
 *  - `inspect` (default, --deep, --deep --json) vs `sst_dump --show_properties` on tables in Nethermind's
 *    layout (Snappy, 16,000-byte blocks, partitioned index and filters, format 5: db_bench fillseq, 16 M
 *    writes, 16 MiB files, ~39 tables, 1.1 GB, written in ~15 s): a deep read walks each table's ~90
 *    index partitions (for reference: the targets' realistic tables are unpartitioned);
 *  - a store whose writes are all still in its WAL (db_bench fillrandom, 3 M writes into a 1 GiB
 *    memtable, never flushed: a WAL of ~460 MB, as a node with large memtables leaves at a stop):
 *    `inspect`, `sizes --full` and `probe` of 100 absent keys, time and peak RSS (no RocksDB tool reads
 *    a WAL read-only; for reference);
 *  - `sizes --full --json` (one thread, and two) vs `sst_dump --command=scan` on a store of 2 M writes
 *    (64-byte values, LZ4: a few tables, ~130 MB here; the issue's row was a 79 MB store of 2 M
 *    entries; target >= 1x). The >= 500 MB row is
 *    `npm run bench -- sizes`.
 * Writing the realistic store takes a few minutes on a loaded machine, so it is off by default:
 * LSMSCOPE_BENCH_REALISTIC=1 runs this module (`npm run bench -- realistic`).
 *
 * Env: LSMSCOPE_BENCH_REALISTIC (1 to run), LSMSCOPE_BENCH_REALISTIC_NUM (writes of the realistic store,
 * default 6,000,000: ~400 MB), LSMSCOPE_BENCH_REALISTIC_MANY_NUM (writes of the store of many tables,
 * default 60,000,000: ~3.8 GiB; 0: no such row), LSMSCOPE_BENCH_REALISTIC_MANY_DIR (that store written
 * before, read only), LSMSCOPE_BENCH_REALISTIC_PARTITIONED_NUM (writes of the store in Nethermind's
 * layout, default 16,000,000; 0: no such rows), LSMSCOPE_BENCH_REALISTIC_WAL_NUM (writes left in the
 * WAL, default 3,000,000; 0: no such rows), LSMSCOPE_BENCH_RUNS (rounds, default 3), LSMSCOPE_BENCH_COLD and
 * LSMSCOPE_BENCH_COLD_RUNS (cold rows on both stores: cold.ts).
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  dbBench,
  fmt,
  lsm,
  measure,
  paired,
  type Paired,
  printLoadAverage,
  startupVariants,
} from "./common.js";
import { COLD, coldRows } from "./cold.js";

const ON = process.env.LSMSCOPE_BENCH_REALISTIC === "1";
const NUM = Number(process.env.LSMSCOPE_BENCH_REALISTIC_NUM ?? 6_000_000);
const RUNS = Number(process.env.LSMSCOPE_BENCH_RUNS ?? 3);
const MANY_NUM = Number(process.env.LSMSCOPE_BENCH_REALISTIC_MANY_NUM ?? 60_000_000);
const MANY_DIR = process.env.LSMSCOPE_BENCH_REALISTIC_MANY_DIR;
const PARTITIONED_NUM = Number(process.env.LSMSCOPE_BENCH_REALISTIC_PARTITIONED_NUM ?? 16_000_000);
const WAL_NUM = Number(process.env.LSMSCOPE_BENCH_REALISTIC_WAL_NUM ?? 3_000_000);

function row(label: string, p: Paired, target: string): void {
  console.log(`  ${label}`);
  console.log(`    sst_dump     ${fmt(p.a)}`);
  console.log(`    lsmscope     ${fmt(p.b)}`);
  console.log(
    `    ratio sst_dump/lsmscope (paired median): ${p.ratio.toFixed(2)}x wall, ${(p.a.cpu / p.b.cpu).toFixed(2)}x CPU  (${target})`,
  );
}

function tables(dir: string): { count: number; minMiB: number; maxMiB: number; totalMB: number } {
  const sizes = readdirSync(dir)
    .filter((f) => f.endsWith(".sst"))
    .map((f) => statSync(join(dir, f)).size);
  return {
    count: sizes.length,
    minMiB: Math.min(...sizes) / 2 ** 20,
    maxMiB: Math.max(...sizes) / 2 ** 20,
    totalMB: sizes.reduce((a, b) => a + b, 0) / 1e6,
  };
}

/** db_bench flags for realistic tables (LZ4, 32 KiB blocks, bloom 10, 64 MiB memtables, 32 MiB files). */
const REALISTIC: readonly string[] = [
  "--key_size=32",
  "--value_size=100",
  "--compression_ratio=0.5",
  "--compression_type=lz4",
  "--block_size=32768",
  "--bloom_bits=10",
  "--write_buffer_size=67108864",
  "--target_file_size_base=33554432",
  "--disable_wal=1",
];

function realisticTables(root: string): void {
  const dir = join(root, "realistic");
  const t0 = Date.now();
  dbBench(["--benchmarks=fillrandom", `--db=${dir}`, `--num=${NUM}`, ...REALISTIC]);
  realisticRows(
    dir,
    `db_bench fillrandom, written in ${((Date.now() - t0) / 1000).toFixed(0)} s`,
    false,
    root,
  );
}

/** The same rows on a store of ~145 realistic tables (fillseq), or the one given. */
function manyRealisticTables(root: string): void {
  if (!MANY_DIR && MANY_NUM <= 0) return;
  const dir = MANY_DIR ?? join(root, "realistic-many");
  const t0 = Date.now();
  if (!MANY_DIR) dbBench(["--benchmarks=fillseq", `--db=${dir}`, `--num=${MANY_NUM}`, ...REALISTIC]);
  const how = MANY_DIR
    ? `given (${MANY_DIR})`
    : `db_bench fillseq, written in ${((Date.now() - t0) / 1000).toFixed(0)} s`;
  realisticRows(dir, how, MANY_DIR !== undefined, root);
}

function realisticRows(dir: string, how: string, given: boolean, root: string): void {
  const t = tables(dir);
  console.log(
    `realistic tables: ${t.count} tables of ${t.minMiB.toFixed(1)}-${t.maxMiB.toFixed(1)} MiB (${t.totalMB.toFixed(0)} MB; LZ4, 32 KiB blocks, bloom 10), ${how}; ${RUNS} paired rounds, page cache warm`,
  );
  const props: [string, string[]] = ["sst_dump", [`--file=${dir}`, "--show_properties"]];
  measure(...props); // warm both alike
  row("inspect vs sst_dump --show_properties", paired(props, lsm(["inspect", dir]), RUNS), "target >= 3x");
  for (const args of [["--json"], ["--deep"], ["--deep", "--json"]])
    row(`inspect ${args.join(" ")}`, paired(props, lsm(["inspect", ...args, dir]), RUNS), "target >= 3x");
  // on a few tables Node's own start is most of the run: how it moves it
  for (const [label, cmd] of startupVariants(["inspect", dir]))
    row(label, paired(props, cmd, RUNS), "for reference: not how the CLI runs");
  const chk = paired(lsm(["inspect", dir]), lsm(["check", dir]), RUNS);
  console.log(`  check vs inspect`);
  console.log(`    inspect      ${fmt(chk.a)}`);
  console.log(`    check        ${fmt(chk.b)}`);
  console.log(`    check/inspect (paired median): ${(1 / chk.ratio).toFixed(2)}x  (target <= 2x)`);
  overlayCost(dir);
  if (COLD) coldRows(dir, given, root, COLD, row);
}

/** What check's placement overlay read on `dir` (its evidence): how it sampled and the blocks it read. */
function overlayCost(dir: string): void {
  const [cmd, args] = lsm(["check", "--json", dir]);
  const r = spawnSync(cmd, args, { encoding: "utf8", maxBuffer: 64 << 20 });
  const findings = (
    JSON.parse(r.stdout) as { findings: { rule: string; evidence: Record<string, unknown> }[] }
  ).findings;
  for (const f of findings.filter((x) => x.rule === "placement-overlay")) {
    const e = f.evidence as {
      sampling: string;
      sampled: number;
      entriesAboveBottom: number;
      lookups: { dataBlocksRead: number };
      shadowedEntriesEstimate: { value: number; low: number; high: number; method: string };
    };
    const est = e.shadowedEntriesEstimate;
    console.log(
      `    overlay: ${e.sampling}, ${e.sampled} of ${e.entriesAboveBottom} entries checked, ${e.lookups.dataBlocksRead} data blocks read below; ~${est.value} shadowed (${est.method} ${est.low}-${est.high})`,
    );
  }
}

/**
 * Tables in Nethermind's layout (shared/reference/clients.md: Snappy, 16,000-byte blocks, two-level
 * index with partitioned Bloom 10, format 5), sequential keys so that the write takes seconds.
 */
function partitionedTables(root: string): void {
  if (PARTITIONED_NUM <= 0) return;
  const dir = join(root, "partitioned");
  const t0 = Date.now();
  dbBench([
    "--benchmarks=fillseq",
    `--db=${dir}`,
    `--num=${PARTITIONED_NUM}`,
    "--key_size=32",
    "--value_size=100",
    "--compression_ratio=0.5",
    "--compression_type=snappy",
    "--block_size=16000",
    "--bloom_bits=10",
    "--partition_index_and_filters=true",
    "--format_version=5",
    "--write_buffer_size=67108864",
    "--target_file_size_base=16777216",
    "--disable_wal=1",
  ]);
  const t = tables(dir);
  console.log(
    `Nethermind's layout: ${t.count} tables of ${t.minMiB.toFixed(1)}-${t.maxMiB.toFixed(1)} MiB (${t.totalMB.toFixed(0)} MB; Snappy, 16,000-byte blocks, partitioned index and filters), db_bench fillseq, written in ${((Date.now() - t0) / 1000).toFixed(0)} s; ${RUNS} paired rounds, page cache warm`,
  );
  const props: [string, string[]] = ["sst_dump", [`--file=${dir}`, "--show_properties"]];
  measure(...props);
  for (const args of [[], ["--deep"], ["--deep", "--json"]])
    row(
      `inspect ${args.join(" ")}`.trimEnd(),
      paired(props, lsm(["inspect", ...args, dir]), RUNS),
      "for reference: the targets' realistic tables are unpartitioned",
    );
}

/** Every write in the WAL: the WAL layer read, sorted and merged by each command that needs it. */
function unflushedWal(root: string): void {
  if (WAL_NUM <= 0) return;
  const dir = join(root, "wal");
  const t0 = Date.now();
  dbBench([
    "--benchmarks=fillrandom",
    `--db=${dir}`,
    `--num=${WAL_NUM}`,
    "--key_size=32",
    "--value_size=100",
    "--compression_type=lz4",
    "--write_buffer_size=1073741824",
    "--disable_wal=0",
  ]);
  const wal = readdirSync(dir)
    .filter((f) => f.endsWith(".log"))
    .reduce((a, f) => a + statSync(join(dir, f)).size, 0);
  console.log(
    `unflushed WAL: db_bench fillrandom ${WAL_NUM} writes into a 1 GiB memtable, never flushed (${(wal / 1e6).toFixed(0)} MB of WAL, ${tables(dir).count} tables), written in ${((Date.now() - t0) / 1000).toFixed(0)} s; one run each, for reference`,
  );
  const rows: [string, string[]][] = [
    ["inspect", ["inspect", dir]],
    ["sizes --full --json", ["sizes", "--full", "--json", dir]],
    [
      "probe of 100 absent keys",
      ["probe", "--cf", "default", "--keys", "absent", "--count", "100", "--key-length", "32", dir],
    ],
  ];
  for (const [label, args] of rows) console.log(`  ${label.padEnd(26)} ${fmt(measure(...lsm(args)))}`);
}

function twoMillionWrites(root: string): void {
  const dir = join(root, "2m");
  dbBench([
    "--benchmarks=fillrandom",
    `--db=${dir}`,
    "--num=2000000",
    "--key_size=16",
    "--value_size=64",
    "--compression_ratio=0.5",
    "--compression_type=lz4",
    "--disable_wal=1",
  ]);
  const t = tables(dir);
  console.log(
    `2 M-write store: db_bench fillrandom 2 M writes, ${t.count} LZ4 tables, ${t.totalMB.toFixed(0)} MB; ${RUNS} paired rounds, page cache warm`,
  );
  const scan: [string, string[]] = ["sst_dump", [`--file=${dir}`, "--command=scan"]];
  measure(...scan);
  row(
    "sizes --full --json vs sst_dump --command=scan",
    paired(scan, lsm(["sizes", "--full", "--json", dir]), RUNS),
    "target >= 1x",
  );
  row(
    "sizes --full --json --workers 2",
    paired(scan, lsm(["sizes", "--full", "--json", "--workers", "2", dir]), RUNS),
    "target >= 1x",
  );
}

export async function run(): Promise<void> {
  if (!ON) {
    console.log("realistic: skipped (LSMSCOPE_BENCH_REALISTIC=1 writes a ~400 MB store and runs it)");
    return;
  }
  const root = mkdtempSync(join(tmpdir(), "lsmscope-bench-realistic-"));
  try {
    realisticTables(root);
    manyRealisticTables(root);
    partitionedTables(root);
    unflushedWal(root);
    twoMillionWrites(root);
    printLoadAverage();
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

// run directly: node dist/bench/realistic.js
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await run();
