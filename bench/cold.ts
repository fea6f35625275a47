/**
 * Cold rows (shapes.ts, realistic.ts): `inspect` and `inspect --deep --json` against `sst_dump
 * --show_properties` with the page cache emptied before every run of each (target >= 1.5x), and for
 * reference `inspect` with the tails read ahead through Node's fs, as where the read-ahead helper is not
 * built (LSMSCOPE_READAHEAD_HELPER=0; src/util/tail_read_ahead.ts).
 * LSMSCOPE_BENCH_COLD: "1", the store's files evicted from the page cache (a copy of a store given to
 * the bench, which stays untouched), as a datadir no process has read since boot would be; "drop", the
 * whole page cache dropped (root only; slows every other process on the machine, and Node's and the
 * CLI's own files are read from the disk too). LSMSCOPE_BENCH_COLD_RUNS: their rounds (default 3).
 */
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { bin, lsm, measure, paired, type Measure, type Paired } from "./common.js";

export type ColdHow = "1" | "drop";

/** The cold rows asked for, if any. */
export const COLD: ColdHow | undefined =
  process.env.LSMSCOPE_BENCH_COLD === "1" || process.env.LSMSCOPE_BENCH_COLD === "drop"
    ? process.env.LSMSCOPE_BENCH_COLD
    : undefined;
const COLD_RUNS = Number(process.env.LSMSCOPE_BENCH_COLD_RUNS ?? 3);

/** Drop the page cache (root only): every file read next comes from the disk. */
function dropCaches(): void {
  spawnSync("sync");
  writeFileSync("/proc/sys/vm/drop_caches", "3");
}

/**
 * Evict every file of `dir` from the page cache (fsync, then posix_fadvise DONTNEED: pages still dirty
 * are not dropped), without touching any other process's pages. Node has no fadvise: python3 does it.
 * Directory entries and inodes stay cached.
 */
function evictStore(dir: string): void {
  const py = `import os, sys
for root, _, files in os.walk(sys.argv[1]):
    for f in files:
        fd = os.open(os.path.join(root, f), os.O_RDONLY)
        os.fsync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        os.close(fd)`;
  const r = spawnSync("python3", ["-c", py, dir], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`evicting ${dir} failed: ${r.stderr || r.error?.message}`);
}

/** The note printed beside a cold row's ratio. */
const TARGET = "target >= 1.5x";
const REFERENCE = "for reference: without the helper";

/**
 * The cold rows on `dir`, each printed by `row` as a paired comparison against sst_dump, with its note
 * (a target, or "for reference"). `given`: the store was handed to the bench (read only), so "1"
 * evicts a copy of it made under `root`. `throughFs`: the reference row too (a store of hundreds of
 * tables or more: below 32 the read-ahead does not start).
 */
export function coldRows(
  dir: string,
  given: boolean,
  root: string,
  how: ColdHow,
  row: (label: string, p: Paired, note: string) => void,
  throughFs = false,
): void {
  let store = dir;
  if (how === "1" && given) {
    store = join(root, "cold-copy");
    spawnSync("cp", ["-r", dir, store]);
  }
  const evict = how === "1" ? () => evictStore(store) : dropCaches;
  const cold = (c: [string, string[]]): Measure => {
    evict();
    return measure(...c);
  };
  const what =
    how === "1"
      ? "the store's pages evicted (posix_fadvise) before each run; programs and inodes stay cached"
      : "page cache dropped before each run";
  const props: [string, string[]] = ["sst_dump", [`--file=${store}`, "--show_properties"]];
  for (const [label, args] of [
    [`inspect, ${what}`, ["inspect", store]],
    ["inspect --deep --json, the same", ["inspect", "--deep", "--json", store]],
  ] as const)
    row(label, paired(props, lsm([...args]), COLD_RUNS, cold), TARGET);
  if (!throughFs) return;
  const viaFs: [string, string[]] = ["env", ["LSMSCOPE_READAHEAD_HELPER=0", bin, "inspect", store]];
  row(
    "inspect, the same, tails read ahead through Node's fs",
    paired(props, viaFs, COLD_RUNS, cold),
    REFERENCE,
  );
}
