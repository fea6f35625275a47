/**
 * Store shapes where lsmscope used to lose, each against RocksDB's own tool (or against `inspect`, for
 * `check`) in the same run, as whole processes:
 *  - an L0 pile-up: thousands of tiny uncompressed tables (4 KiB blocks, bloom 10), every one in L0, as
 *    after a bulk load with auto-compaction off (db_bench fillrandom, 24 KiB memtables, 20-byte values);
 *    rows: inspect and inspect --deep vs `sst_dump --show_properties` (and cold: the store's pages
 *    evicted before each run of both, LSMSCOPE_BENCH_COLD=1; target ≥ 1.5×), check vs inspect (target ≤ 2×),
 *    sizes --full vs `sst_dump --command=scan` with peak RSS (target ≤ 256 MiB) and its CPU per entry
 *    read, sizes --sample 100 (sample mode: point lookups through thousands of L0 tables), probe of
 *    100 absent keys; the TUI's time to its first screen (tui.ts; target ~1 s); diff of the store
 *    against itself beside two scans of it (not a target);
 *  - the same pile-up spread over three column families (db_bench --num_column_families=3), as a
 *    client's store after a bulk load piles up in each of its state column families: check vs inspect
 *    (target ≤ 2×; placement-overlay's lookup budget is the datadir's, shared by its column families);
 *  - a Besu store whose three state column families are L0 pile-ups (besu_pileup.ts, written by RocksDB
 *    through the engine addon; 2,419 tables at 600,000 accounts): inspect vs `sst_dump
 *    --show_properties`, check vs inspect (target ≤ 2×), check --against vs inspect of both arms (target
 *    ≤ 2×; code-population reads both arms' account and code column families by drawn blocks), sizes
 *    --sample 100 (target: seconds; storage per contract sampled by seeks), sizes --full vs `sst_dump
 *    --command=scan` (Ethereum roles: merged);
 *  - a legacy geth store written by LevelDB itself (leveldb_store.ts, classic-level: hash keys, Snappy,
 *    2 MiB tables, a fifth of the writes overwrites): check vs inspect (target ≤ 2×; LevelDB's tables
 *    carry no block or entry counts, so placement-overlay's draws count blocks from the indexes);
 *  - thousands of tiny blob files (db_bench --enable_blob_files --min_blob_size=0 --blob_file_size=4096):
 *    every command run under a descriptor limit of 1,024 (`ulimit -n`, the usual default), which is far
 *    below the file count: it completes, or the row says how it failed.
 * Ratios are paired: each round runs both commands back to back, the printed ratio is the median of the
 * rounds' ratios (shared machines are noisy; read the ratios, not the seconds).
 *
 * Env: LSMSCOPE_BENCH_L0_TABLES (default 5000), LSMSCOPE_BENCH_MULTI_CF_TABLES (the three column
 * families' tables together, default 2400; 0: no such row), LSMSCOPE_BENCH_BESU_ACCOUNTS (the Besu
 * pile-up's accounts, default 600000; 0: no such rows), LSMSCOPE_BENCH_LEVELDB_ENTRIES (the LevelDB
 * store's distinct keys, default 2000000, and a quarter as many overwrites; 0: no such row),
 * LSMSCOPE_BENCH_L0_DIR (an L0 pile-up already written
 * with TINY_L0_TABLES, e.g. /tmp/l0: read only, not written), LSMSCOPE_BENCH_BLOB_FILES (default
 * 33000; 0: no blob row), LSMSCOPE_BENCH_RUNS (rounds, default 3), LSMSCOPE_BENCH_COLD (1: the cold
 * rows, each file of a copy of the store evicted with posix_fadvise, python3; "drop": the whole page
 * cache dropped instead, as root, which slows every other process on the machine),
 * LSMSCOPE_BENCH_COLD_RUNS (their rounds, default 3): cold.ts.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  bin,
  dbBench,
  fmt,
  lsm,
  measure,
  paired,
  type Paired,
  type Measure,
  printLoadAverage,
  sstCount,
  startupVariants,
  writeTinyL0Pileup,
} from "./common.js";
import { COLD, coldRows } from "./cold.js";
import { tuiFirstScreenRow } from "./tui.js";
import { writeBesuPileup } from "./besu_pileup.js";
import { writeLevelDbStore } from "./leveldb_store.js";
import { engineAvailable, engineUnavailableReason } from "../src/engine/index.js";
import { NEWEST_BY_HASH_MIN_RUNS } from "../src/sizes/plan.js";
import { LIVE_BY_HASH_MIN_RUNS } from "../src/lsm/live_by_hash.js";

const L0_TABLES = Number(process.env.LSMSCOPE_BENCH_L0_TABLES ?? 5000);
const BLOB_FILES = Number(process.env.LSMSCOPE_BENCH_BLOB_FILES ?? 33000);
const MULTI_CF_TABLES = Number(process.env.LSMSCOPE_BENCH_MULTI_CF_TABLES ?? 2400);
const BESU_ACCOUNTS = Number(process.env.LSMSCOPE_BENCH_BESU_ACCOUNTS ?? 600000);
const LEVELDB_ENTRIES = Number(process.env.LSMSCOPE_BENCH_LEVELDB_ENTRIES ?? 2_000_000);
const RUNS = Number(process.env.LSMSCOPE_BENCH_RUNS ?? 3);
/** Values per 4 KiB blob file with 200-byte values and 4 MiB memtables (measured: 12,000 writes, 448 blob files). */
const VALUES_PER_BLOB_FILE = 27;
const FD_LIMIT = 1024;

function row(label: string, p: Paired, aName: string, target: string, bName = "lsmscope"): void {
  console.log(`  ${label}`);
  console.log(`    ${aName.padEnd(12)} ${fmt(p.a)}`);
  console.log(`    ${bName.padEnd(12)} ${fmt(p.b)}`);
  console.log(`    ratio ${aName}/${bName} (paired median): ${p.ratio.toFixed(2)}x  (${target})`);
}

/**
 * What any Node program that reads every table's metadata pays before parsing a byte of it: Node's
 * start, the directory's listing, and an open, a read of the last 4 KiB and a close per table (README,
 * Performance: why the pile-up's `inspect` is not at 2x). `node -e SCRIPT DIR`.
 */
const READS_ALONE = `const fs = require("fs"), path = require("path"), dir = process.argv[1];
const buf = Buffer.allocUnsafe(4096);
for (const n of fs.readdirSync(dir)) {
  if (!n.endsWith(".sst")) continue;
  const fd = fs.openSync(path.join(dir, n), "r"), size = fs.fstatSync(fd).size;
  fs.readSync(fd, buf, 0, Math.min(4096, size), Math.max(0, size - 4096));
  fs.closeSync(fd);
}`;

/** An L0 pile-up written before (LSMSCOPE_BENCH_L0_DIR), used as it is. */
const L0_DIR = process.env.LSMSCOPE_BENCH_L0_DIR;

async function l0Pileup(root: string): Promise<void> {
  const dir = L0_DIR ?? join(root, "l0");
  const t0 = Date.now();
  const tables = L0_DIR ? sstCount(dir) : writeTinyL0Pileup(dir, L0_TABLES);
  const written = L0_DIR ? `given (${L0_DIR})` : `written in ${((Date.now() - t0) / 1000).toFixed(0)} s`;
  console.log(
    `L0 pile-up: db_bench fillrandom (overwrite to top it up), ${tables} tables all in L0 (uncompressed, 4 KiB blocks, bloom 10), ${written}; ${RUNS} paired rounds`,
  );
  spawnSync("sst_dump", [`--file=${dir}`, "--show_properties"], { stdio: "ignore" }); // warm both alike
  const props: [string, string[]] = ["sst_dump", [`--file=${dir}`, "--show_properties"]];
  row(
    "inspect vs sst_dump --show_properties",
    paired(props, lsm(["inspect", dir]), RUNS),
    "sst_dump",
    "target >= 2x",
  );
  for (const args of [["--json"], ["--deep"], ["--deep", "--json"]])
    row(
      `inspect ${args.join(" ")}`,
      paired(props, lsm(["inspect", ...args, dir]), RUNS),
      "sst_dump",
      "target >= 2x",
    );
  for (const [label, cmd] of startupVariants(["inspect", dir]))
    row(label, paired(props, cmd, RUNS), "sst_dump", "for reference: not how the CLI runs");
  // the reader's own open, read and close of every table, as without the read-ahead helper's readTails
  // (src/util/tail_batches.ts)
  row(
    "inspect, the tails read by the reader itself",
    paired(props, ["env", ["LSMSCOPE_READAHEAD_HELPER=0", bin, "inspect", dir]], RUNS),
    "sst_dump",
    "for reference: without the helper",
  );
  row(
    "the reads alone: node lists the tables, opens each, reads its last 4 KiB, closes it",
    paired(props, ["env", ["-u", "NODE_EXTRA_CA_CERTS", process.execPath, "-e", READS_ALONE, dir]], RUNS),
    "sst_dump",
    "for reference: the floor under any Node reader",
    "node, reads",
  );
  // what inspect does that sst_dump --show_properties does not: replay the MANIFEST, build the model and
  // report it (and, without the tables' reads to take their sizes from, stat every table the MANIFEST
  // names); inspect's time beyond this row is its reading of the tables, less those stats
  row(
    "inspect --no-tables: start, MANIFEST, model and report, no table read",
    paired(props, lsm(["inspect", "--no-tables", dir]), RUNS),
    "sst_dump",
    "for reference: inspect's work beside the tables",
  );
  if (COLD)
    coldRows(
      dir,
      L0_DIR !== undefined,
      root,
      COLD,
      (label, p, note) => row(label, p, "sst_dump", note),
      true,
    );
  await tuiFirstScreenRow(dir, tables);
  checkRow(dir);
  againstRow(dir);
  const full = paired(
    ["sst_dump", [`--file=${dir}`, "--command=scan"]],
    lsm(["sizes", "--full", "--json", dir]),
    RUNS,
  );
  row(
    "sizes --full --json vs sst_dump --command=scan",
    full,
    "sst_dump",
    "target >= 1x, peak RSS <= 256 MiB",
  );
  const { entries, threads } = fullScanOf(dir);
  console.log(
    `    ${entries.toLocaleString("en-US")} entries of ${tables} sorted runs, ${tables >= NEWEST_BY_HASH_MIN_RUNS ? "newest versions by key sets" : "merged"}, by ${threads} thread${threads === 1 ? "" : "s"} (the default): ${((full.b.cpu * 1e9) / entries).toFixed(0)} ns of CPU per entry (whole process)`,
  );
  const sample = measure(...lsm(["sizes", "--sample", "100", "--json", dir]));
  console.log(`  sizes --sample 100 (sample mode): ${fmt(sample)}  (target: seconds)`);
  const probe = measure(
    ...lsm(["probe", dir, "--cf", "default", "--keys", "absent", "--count", "100", "--path", "reader"]),
  );
  console.log(`  probe 100 absent keys (reader path): ${fmt(probe)}  (target: seconds)`);
  // diff reads every entry of both sides: against the scan of the store, twice (not a target; the
  // merge took 38.7 s on 4,884 tables, by key sets 9.8 s: README, diff)
  const twoScans = paired(
    ["sst_dump", [`--file=${dir}`, "--command=scan"]],
    lsm(["diff", "--json", dir, dir]),
    RUNS,
    (c) => (c[0] === "sst_dump" ? both(measure(...c)) : measure(...c)),
  );
  row(
    "diff of the store against itself vs sst_dump --command=scan x 2",
    twoScans,
    "sst_dump x 2",
    `for reference: not a target; compared ${tables >= LIVE_BY_HASH_MIN_RUNS ? "by key sets" : "merged"}`,
  );
}

/** A measure of one arm, taken for two (the anchor of a command that reads two stores). */
const both = (m: Measure): Measure => ({ wall: 2 * m.wall, cpu: 2 * m.cpu, maxRssKb: m.maxRssKb });

/** `check --against`, the store against itself: the anchor is inspecting both arms, where check starts. */
function againstRow(dir: string): void {
  const arms = paired(lsm(["inspect", dir]), lsm(["check", "--against", dir, dir]), RUNS, (c) =>
    c[1].includes("--against") ? measure(...c) : both(measure(...c)),
  );
  console.log(`  check --against (the store against itself) vs inspect of both arms`);
  console.log(`    inspect x 2  ${fmt(arms.a)}`);
  console.log(`    check        ${fmt(arms.b)}`);
  console.log(
    `    check/inspect of both arms (paired median): ${(1 / arms.ratio).toFixed(2)}x  (target <= 2x)`,
  );
}

/** `check` against `inspect` of the same store (target: at most twice its time). */
function checkRow(dir: string): void {
  const chk = paired(lsm(["inspect", dir]), lsm(["check", dir]), RUNS);
  console.log(`  check vs inspect`);
  console.log(`    inspect      ${fmt(chk.a)}`);
  console.log(`    check        ${fmt(chk.b)}`);
  console.log(`    check/inspect (paired median): ${(1 / chk.ratio).toFixed(2)}x  (target <= 2x)`);
}

/**
 * An L0 pile-up in each of three column families: `check` measures placement-overlay in each, its
 * lookups bounded by one budget for the datadir (with a budget per column family it took 3.05x
 * `inspect` on a Besu store of three such pile-ups, 2,419 tables).
 */
function multiCfPileup(root: string): void {
  const dir = join(root, "l0-3cf");
  const t0 = Date.now();
  const tables = writeTinyL0Pileup(dir, MULTI_CF_TABLES, ["--num_column_families=3"]);
  console.log(
    `L0 pile-ups in three column families: db_bench fillrandom --num_column_families=3, ${tables} tables all in L0, written in ${((Date.now() - t0) / 1000).toFixed(0)} s; ${RUNS} paired rounds`,
  );
  row(
    "inspect vs sst_dump --show_properties",
    paired(["sst_dump", [`--file=${dir}`, "--show_properties"]], lsm(["inspect", dir]), RUNS),
    "sst_dump",
    "target >= 2x",
  );
  checkRow(dir);
}

/** The Besu store of three L0 pile-ups (besu_pileup.ts): the commands whose work its roles change. */
function besuPileup(root: string): void {
  if (!engineAvailable()) {
    console.log(`Besu store of L0 pile-ups: not written: ${engineUnavailableReason()}`);
    return;
  }
  const dir = join(root, "besu");
  const t0 = Date.now();
  writeBesuPileup(dir, BESU_ACCOUNTS);
  const db = join(dir, "database");
  console.log(
    `Besu store, its state column families piled up in L0: ${BESU_ACCOUNTS} accounts, ${sstCount(db)} tables, written through the engine addon in ${((Date.now() - t0) / 1000).toFixed(0)} s; ${RUNS} paired rounds`,
  );
  row(
    "inspect vs sst_dump --show_properties",
    paired(["sst_dump", [`--file=${db}`, "--show_properties"]], lsm(["inspect", dir]), RUNS),
    "sst_dump",
    "target >= 2x",
  );
  checkRow(dir);
  // code-population reads the account and code column families of both arms: by drawn blocks here
  againstRow(dir);
  const sample = measure(...lsm(["sizes", "--sample", "100", "--json", dir]));
  console.log(
    `  sizes --sample 100 (sample mode, storage per contract by seeks): ${fmt(sample)}  (target: seconds)`,
  );
  row(
    "sizes --full --json vs sst_dump --command=scan (Ethereum roles: merged)",
    paired(["sst_dump", [`--file=${db}`, "--command=scan"]], lsm(["sizes", "--full", "--json", dir]), RUNS),
    "sst_dump",
    "target >= 1x",
  );
}

/** A legacy geth store written by LevelDB (leveldb_store.ts): check against inspect. */
async function levelDbStore(root: string): Promise<void> {
  const dir = join(root, "leveldb");
  const t0 = Date.now();
  await writeLevelDbStore(dir, LEVELDB_ENTRIES, LEVELDB_ENTRIES / 4);
  console.log(
    `LevelDB store (classic-level): ${LEVELDB_ENTRIES} hash keys and ${LEVELDB_ENTRIES / 4} overwrites, ${readdirSync(dir).filter((f) => f.endsWith(".ldb")).length} tables, written in ${((Date.now() - t0) / 1000).toFixed(0)} s; ${RUNS} paired rounds`,
  );
  checkRow(dir);
}

/**
 * Entries `sizes --full` reads on the store (its JSON's entriesRead, summed over column families) and
 * the threads it chose (its JSON's workers).
 */
function fullScanOf(dir: string): { entries: number; threads: number } {
  const r = spawnSync(...lsm(["sizes", "--full", "--json", dir]), {
    encoding: "utf8",
    maxBuffer: 64 << 20,
  });
  const report = JSON.parse(r.stdout) as { workers: number; columnFamilies: { entriesRead: number }[] };
  return { entries: report.columnFamilies.reduce((n, c) => n + c.entriesRead, 0), threads: report.workers };
}

function blobFiles(root: string): void {
  const dir = join(root, "blobs");
  const t0 = Date.now();
  dbBench([
    "--benchmarks=fillrandom,flush",
    `--db=${dir}`,
    `--num=${BLOB_FILES * VALUES_PER_BLOB_FILE}`,
    "--value_size=200",
    "--enable_blob_files=1",
    "--min_blob_size=0",
    "--blob_file_size=4096",
    "--write_buffer_size=4194304",
  ]);
  const n = readdirSync(dir).filter((f) => f.endsWith(".blob")).length;
  console.log(
    `blob files: db_bench store with ${n} blob files of 4 KiB, written in ${((Date.now() - t0) / 1000).toFixed(0)} s; each command once under ulimit -n ${FD_LIMIT}`,
  );
  const copy = join(root, "blobs-copy");
  const cmds: string[][] = [
    ["inspect", "--deep", dir],
    ["sizes", "--full", dir],
    ["check", dir],
    ["probe", dir, "--cf", "default", "--keys", "present", "--count", "1000", "--path", "both"],
    ["compact", copy, "--yes"],
  ];
  spawnSync("cp", ["-r", dir, copy]);
  for (const c of cmds) {
    const quoted = [bin, ...c].map((a) => `'${a}'`).join(" ");
    const t = process.hrtime.bigint();
    const r = spawnSync("bash", ["-c", `ulimit -n ${FD_LIMIT} && exec ${quoted}`], {
      encoding: "utf8",
      maxBuffer: 256 << 20,
    });
    const wall = Number(process.hrtime.bigint() - t) / 1e9;
    const failed = r.status === 0 ? "" : `  FAILED (exit ${r.status}): ${r.stderr.trim().split("\n").at(-1)}`;
    console.log(
      `  ${c.filter((a) => a !== dir && a !== copy).join(" ")}: ${wall.toFixed(2)} s wall, exit ${r.status}${failed}`,
    );
  }
}

export async function run(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), "lsmscope-bench-shapes-"));
  try {
    await l0Pileup(root);
    if (MULTI_CF_TABLES > 0) multiCfPileup(root);
    if (BESU_ACCOUNTS > 0) besuPileup(root);
    if (LEVELDB_ENTRIES > 0) await levelDbStore(root);
    if (BLOB_FILES > 0) blobFiles(root);
    printLoadAverage();
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

// run directly: node dist/bench/shapes.js
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await run();
