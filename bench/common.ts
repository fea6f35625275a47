/**
 * What the benchmarks share: timing a command as a whole process (wall, CPU and peak RSS), printing
 * the figures, lsmscope's own command line, and writing stores with db_bench.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const repo = fileURLToPath(new URL("../../", import.meta.url));
/** The CLI entry point (it runs dist/). */
export const bin = join(repo, "bin", "lsmscope.js");
const TIME = "/usr/bin/time";

export interface Measure {
  wall: number;
  cpu: number;
  maxRssKb: number;
}

/** Run a command, discard its output; wall/CPU seconds and peak RSS via /usr/bin/time. */
export function measure(cmd: string, args: string[]): Measure {
  const { wall, cpu, maxRssKb } = timed(cmd, args, "ignore");
  return { wall, cpu, maxRssKb };
}

/** measure(), keeping what the command prints on stdout (a report to read figures from). */
export function measureWithOutput(cmd: string, args: string[]): Measure & { stdout: string } {
  return timed(cmd, args, "pipe");
}

function timed(cmd: string, args: string[], stdout: "ignore" | "pipe"): Measure & { stdout: string } {
  if (existsSync(TIME)) {
    const t0 = process.hrtime.bigint();
    const r = spawnSync(TIME, ["-f", "TIME %U %S %M", cmd, ...args], {
      encoding: "utf8",
      stdio: ["ignore", stdout, "pipe"],
      maxBuffer: 256 << 20,
    });
    const wall = Number(process.hrtime.bigint() - t0) / 1e9;
    if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")} failed: ${r.stderr.slice(-500)}`);
    const m = /TIME ([\d.]+) ([\d.]+) (\d+)/.exec(r.stderr);
    if (!m) throw new Error(`no /usr/bin/time line in: ${r.stderr.slice(-300)}`);
    return { wall, cpu: Number(m[1]) + Number(m[2]), maxRssKb: Number(m[3]), stdout: r.stdout ?? "" };
  }
  const t0 = process.hrtime.bigint();
  const r = spawnSync(cmd, args, {
    encoding: "utf8",
    stdio: ["ignore", stdout, "ignore"],
    maxBuffer: 256 << 20,
  });
  const wall = Number(process.hrtime.bigint() - t0) / 1e9;
  if (r.status !== 0) throw new Error(`${cmd} failed`);
  // without /usr/bin/time there is no per-child CPU or peak RSS to read
  return { wall, cpu: NaN, maxRssKb: NaN, stdout: r.stdout ?? "" };
}

export const fmt = (m: Measure) =>
  `${m.wall.toFixed(2)} s wall, ${Number.isFinite(m.cpu) ? `${m.cpu.toFixed(2)} s CPU` : "CPU n/a"}, peak RSS ${
    Number.isFinite(m.maxRssKb) ? `${(m.maxRssKb / 1024).toFixed(0)} MiB` : "n/a"
  }`;

export const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

/** The machine's load average as a run ends: `figures` (ratios, per-table costs) need an idle machine. */
export function printLoadAverage(figures = "wall-clock ratios"): void {
  const load = readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
  console.log(`  load average during the run: ${load} (${figures} need an otherwise idle machine)`);
}

/**
 * An lsmscope command line, as `measure` takes it: the program run as a user runs it (npm's `lsmscope`
 * is a link to bin/lsmscope.js), through its #! line, which starts Node without NODE_EXTRA_CA_CERTS.
 * That line starts the `node` on PATH, so PATH leads with the Node running the bench.
 */
export const lsm = (args: string[]): [string, string[]] => [bin, args];
process.env.PATH = `${dirname(process.execPath)}:${process.env.PATH ?? ""}`;

/**
 * `lsmscope ARGS` as Node could be started for it, beside a bench's rows (bench/history.md: Start-up):
 * with Node's four V8 background threads (`--v8-pool-size=4`, a Node option, read before any script
 * runs; NODE_EXTRA_CA_CERTS unset as the #! line does), where the #! line gives `inspect`, `check`,
 * `probe` and `report` one on a machine of one or two cores (since session 30: there the four
 * threads' optimising compiles take turns with the main thread); and, when the environment sets
 * NODE_EXTRA_CA_CERTS, `node bin/lsmscope.js`, which keeps it (Node parses that certificate bundle
 * at start-up, before any of lsmscope's code; lsmscope opens no TLS connection) and Node's four.
 */
export function startupVariants(args: string[]): [string, [string, string[]]][] {
  const node = process.execPath;
  const out: [string, [string, string[]]][] = [
    [
      `${args[0]}, node --v8-pool-size=4 (Node's default)`,
      ["env", ["-u", "NODE_EXTRA_CA_CERTS", node, "--v8-pool-size=4", bin, ...args]],
    ],
  ];
  if (process.env.NODE_EXTRA_CA_CERTS)
    out.push([
      `${args[0]}, node bin/lsmscope.js: NODE_EXTRA_CA_CERTS kept (${process.env.NODE_EXTRA_CA_CERTS})`,
      [node, [bin, ...args]],
    ]);
  return out;
}

/** Two commands measured in paired rounds: the medians of each, and the median of the rounds' ratios. */
export interface Paired {
  a: Measure;
  b: Measure;
  /** Median over the rounds of A's wall time / B's, each round's pair run back to back. */
  ratio: number;
}

/**
 * `runs` rounds of A then B, each run timed by `run` (default `measure`): the median wall and CPU of
 * each, its peak RSS, and the paired ratio.
 */
export function paired(
  a: [string, string[]],
  b: [string, string[]],
  runs: number,
  run: (c: [string, string[]]) => Measure = (c) => measure(...c),
): Paired {
  const as: Measure[] = [];
  const bs: Measure[] = [];
  for (let i = 0; i < runs; i++) {
    as.push(run(a));
    bs.push(run(b));
  }
  const med = (ms: Measure[]): Measure => ({
    wall: median(ms.map((m) => m.wall)),
    cpu: median(ms.map((m) => m.cpu)),
    maxRssKb: Math.max(...ms.map((m) => m.maxRssKb)),
  });
  return { a: med(as), b: med(bs), ratio: median(as.map((m, i) => m.wall / bs[i]!.wall)) };
}

/** Run RocksDB's db_bench (no statistics, seed 1, then `args`); throws with the end of its stderr. */
export function dbBench(args: string[]): void {
  const r = spawnSync("db_bench", ["--statistics=0", "--seed=1", ...args], {
    encoding: "utf8",
    stdio: ["ignore", "ignore", "pipe"],
  });
  if (r.status !== 0) throw new Error(`db_bench failed: ${r.stderr.slice(-500)}`);
}

/**
 * db_bench flags for an L0 pile-up: random writes where every flushed memtable stays its own L0 table
 * (no compactions, no write stalls however many tables L0 holds, no WAL). Add the store's size flags.
 */
export const L0_PILEUP: readonly string[] = [
  "--benchmarks=fillrandom",
  "--disable_auto_compactions=1",
  "--level0_slowdown_writes_trigger=10000000",
  "--level0_stop_writes_trigger=10000000",
  "--max_write_buffer_number=16",
  "--max_background_flushes=2",
  "--disable_wal=1",
];

/**
 * The L0 pile-up's tables (shapes.ts, scaling.ts): tiny uncompressed ones, 4 KiB blocks, bloom 10, one
 * per 24 KiB memtable of 16-byte keys and 20-byte values. Add `--db` and `--num`.
 */
export const TINY_L0_TABLES: readonly string[] = [
  ...L0_PILEUP,
  "--key_size=16",
  "--value_size=20",
  "--compression_type=none",
  "--block_size=4096",
  "--bloom_bits=10",
  "--write_buffer_size=24576",
];

/** The table files in a store's directory, as paths. */
export const sstPaths = (dir: string): string[] =>
  readdirSync(dir)
    .filter((f) => f.endsWith(".sst"))
    .map((f) => join(dir, f));

/** How many table files a store's directory holds. */
export const sstCount = (dir: string): number => sstPaths(dir).length;

/**
 * Entries per flushed table of TINY_L0_TABLES to start from: the fewest seen (~990 in a short run here,
 * 1,290 to 1,900 in the benches' runs), so that the first write stays under the count asked for.
 */
const TINY_ENTRIES_PER_TABLE_FIRST = 1000;

/**
 * An L0 pile-up of about `tables` tables written into `dir` by db_bench with `flags` (L0_PILEUP and the
 * tables' own), starting from `firstEntriesPerTable`; the tables written. How many entries a flushed
 * table holds depends on how far the flushes lag the writes (a flush takes every memtable waiting),
 * which grows with the run and differs by machine: 6.45 M writes asked for 5,000 tiny tables made 3,572
 * and 3,735 in session 34's `bench shapes`. Short of 95% of `tables`, more random writes over the same
 * key range (db_bench's overwrite into the same store under another seed) top it up, at the entries per
 * table written so far; three times at most.
 */
export function writeL0Pileup(
  dir: string,
  tables: number,
  flags: readonly string[],
  firstEntriesPerTable: number,
): number {
  const num = Math.ceil(tables * firstEntriesPerTable);
  dbBench([...flags, `--db=${dir}`, `--num=${num}`]);
  let written = num;
  let count = sstCount(dir);
  for (let seed = 2; seed <= 4 && count < 0.95 * tables; seed++) {
    const more = Math.ceil((tables - count) * (written / Math.max(1, count)));
    dbBench([
      ...flags,
      `--db=${dir}`,
      "--use_existing_db=1",
      "--benchmarks=overwrite",
      `--num=${num}`,
      `--writes=${more}`,
      `--seed=${seed}`,
    ]);
    written += more;
    count = sstCount(dir);
  }
  return count;
}

/** writeL0Pileup of tiny tables (TINY_L0_TABLES, then `extra`). */
export function writeTinyL0Pileup(dir: string, tables: number, extra: readonly string[] = []): number {
  return writeL0Pileup(dir, tables, [...TINY_L0_TABLES, ...extra], TINY_ENTRIES_PER_TABLE_FIRST);
}
