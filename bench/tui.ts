/**
 * The TUI's time to its first screen, measured from outside as a person sees it: tmux runs
 * `lsmscope DIR` in a detached 100×30 terminal (its own server, -L) and the screen is read with
 * capture-pane every 20 ms from the moment the session is started. "First screen": the tab bar
 * ("lsmscope [1l Layout] …") is on the terminal; "details read": the status line no longer says
 * "reading tables" (on a store of many tables the TUI opens on the MANIFEST's outline and fills each
 * table's details in as they are read). The anchor, paired in each round: `inspect DIR` as a whole
 * process, the time the TUI took to its first screen before it opened on the outline (it read every
 * table first). Target: first screen within ~1 s on ~5,000 tables.
 *
 * Run by shapes.ts on its L0 pile-up; alone: LSMSCOPE_BENCH_TUI_DIR=/path/to/store npm run bench -- tui.
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { bin, lsm, measure, median, printLoadAverage, sstCount } from "./common.js";

const RUNS = Number(process.env.LSMSCOPE_BENCH_RUNS ?? 3);
/** Give up on a screen after this long (a broken build never draws). */
const TIMEOUT_MS = 60_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface TuiTimes {
  firstScreen: number;
  detailsRead: number;
}

/** One TUI start in tmux: seconds to the first screen and until every table's details are read. */
async function tuiTimes(dir: string): Promise<TuiTimes> {
  const server = `lsmscope-bench-${process.pid}`;
  const tmux = (...args: string[]) => spawnSync("tmux", ["-L", server, ...args], { encoding: "utf8" });
  const t0 = process.hrtime.bigint();
  const since = () => Number(process.hrtime.bigint() - t0) / 1e9;
  const cmd = `'${bin}' '${dir}'; sleep 60`;
  const r = tmux("new-session", "-d", "-s", "bench", "-x", "100", "-y", "30", cmd);
  if (r.status !== 0) throw new Error(`tmux new-session failed: ${r.stderr}`);
  try {
    let firstScreen: number | undefined;
    while (since() * 1000 < TIMEOUT_MS) {
      const screen = tmux("capture-pane", "-t", "bench", "-p").stdout ?? "";
      const lines = screen.split("\n");
      if (firstScreen === undefined && lines[0]?.startsWith("lsmscope ")) firstScreen = since();
      if (firstScreen !== undefined && !lines[1]?.includes("reading tables"))
        return { firstScreen, detailsRead: since() };
      await sleep(20);
    }
    throw new Error(`the TUI drew no screen within ${TIMEOUT_MS / 1000} s`);
  } finally {
    tmux("kill-server");
  }
}

/** The row: paired rounds of `inspect DIR` (whole process) and the TUI's first screen. */
export async function tuiFirstScreenRow(dir: string, tables: number): Promise<void> {
  if (spawnSync("tmux", ["-V"]).status !== 0) {
    console.log("  TUI first screen: skipped (no tmux)");
    return;
  }
  const inspect: number[] = [];
  const tui: TuiTimes[] = [];
  for (let i = 0; i < RUNS; i++) {
    inspect.push(measure(...lsm(["inspect", dir])).wall);
    tui.push(await tuiTimes(dir));
  }
  const first = median(tui.map((t) => t.firstScreen));
  const details = median(tui.map((t) => t.detailsRead));
  console.log(`  TUI (lsmscope DIR in tmux, 100x30) on ${tables} tables, ${RUNS} paired rounds`);
  console.log(`    first screen          ${first.toFixed(2)} s  (target ~1 s)`);
  console.log(`    every table's details ${details.toFixed(2)} s`);
  console.log(`    inspect (whole)       ${median(inspect).toFixed(2)} s`);
  console.log(
    `    ratio inspect/first screen (paired median): ${median(inspect.map((s, i) => s / tui[i]!.firstScreen)).toFixed(2)}x`,
  );
}

export async function run(): Promise<void> {
  const dir = process.env.LSMSCOPE_BENCH_TUI_DIR;
  if (!dir) {
    console.log("  TUI first screen: runs in shapes (its L0 pile-up), or set LSMSCOPE_BENCH_TUI_DIR");
    return;
  }
  await tuiFirstScreenRow(dir, sstCount(dir));
  printLoadAverage();
}

// run directly: node dist/bench/tui.js
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await run();
