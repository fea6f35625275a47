/**
 * The real binary in a real terminal: tmux runs `lsmscope DIR` (the default command opens the TUI on a
 * terminal) at 80×24 on a sample; send-keys drives it, capture-pane reads the screen; q exits with 0.
 */
import { afterAll, describe, expect, it } from "vitest";
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { dbBench, removeDir, tempDir } from "../helpers/index.js";
import { ONE_TABLE_PER_MEMTABLE, TINY_L0_PILEUP } from "../datadir/helpers.js";
import { runInspect } from "../../src/report/deep.js";
import { buildInspectReport } from "../../src/report/build.js";
import { OUTLINE_FIRST_MIN_TABLES } from "../../src/cli/commands/tui.js";

const repoRoot = new URL("../../", import.meta.url).pathname;
const sample = join(repoRoot, "samples", "besu-snapshot");
const hasTmux = spawnSync("tmux", ["-V"]).status === 0;
const session = `lsmscope-test-${process.pid}`;

// a server of this test's own (-L): other programs' tmux sessions on the machine cannot disturb it
const socket = `lsmscope-test-${process.pid}`;
const tmux = (...args: string[]) => execFileSync("tmux", ["-L", socket, ...args], { encoding: "utf8" });
const capture = () => tmux("capture-pane", "-t", session, "-p");
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Poll the screen until `pred` holds (the binary needs a moment to start and to redraw). */
async function waitFor(pred: (screen: string) => boolean, timeoutMs = 15_000): Promise<string> {
  const end = Date.now() + timeoutMs;
  let screen = "";
  while (Date.now() < end) {
    screen = capture();
    if (pred(screen)) return screen;
    await sleep(100);
  }
  throw new Error(`screen never matched; last screen:\n${screen}`);
}

/**
 * Send keys one at a time with a pause: Ink reads a burst of keys that arrive in one read as one unknown
 * sequence (under load the binary may be busy drawing when the next key comes), so give each its own read.
 */
async function keys(...k: string[]) {
  for (const x of k) {
    tmux("send-keys", "-t", session, x);
    await sleep(400);
  }
}

/**
 * One key and the screen it should lead to; a key lost in a burst (above) is sent again, a key that was
 * read is not (the screen has already changed when it is checked again).
 */
async function step(key: string, pred: (screen: string) => boolean): Promise<string> {
  for (let attempt = 0; attempt < 5; attempt++) {
    tmux("send-keys", "-t", session, key);
    try {
      return await waitFor(pred, 4000);
    } catch {
      // lost: send it again
    }
  }
  return waitFor(pred, 1);
}

/**
 * Start the session; retried, since the tmux server exits with its last session and a new-session
 * racing that exit (or another session's server start under load) fails now and then.
 */
async function newSession(width: string, height: string, cmd: string): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    spawnSync("tmux", ["-L", socket, "kill-session", "-t", session]);
    const r = spawnSync(
      "tmux",
      ["-L", socket, "new-session", "-d", "-s", session, "-x", width, "-y", height, cmd],
      {
        encoding: "utf8",
      },
    );
    if (r.status === 0) return;
    if (attempt >= 5) throw new Error(`tmux new-session failed: ${r.stderr}`);
    await sleep(300);
  }
}

afterAll(() => {
  spawnSync("tmux", ["-L", socket, "kill-server"]);
});

describe.skipIf(!hasTmux || !existsSync(sample))("lsmscope DIR in tmux", () => {
  it("opens the TUI, navigates, shows a file's detail and exits cleanly on q", async () => {
    const cmd = `${process.execPath} ${join(repoRoot, "bin", "lsmscope.js")} ${sample}; echo "EXITED rc=$?"; sleep 60`;
    await newSession("80", "24", cmd);
    let s = await waitFor((x) => x.includes("[1l Layout]"));
    expect(s).toContain("database › cf01 BLOCKCHAIN");
    for (const line of s.split("\n")) expect([...line].length).toBeLessThanOrEqual(80);

    s = await step("Down", (x) => x.includes("› cf06 ACCOUNT_INFO_STATE"));
    expect(s).toMatch(/L0\s+█/);

    await step("f", (x) => x.includes("sort: level"));
    await step("Tab", (x) => x.includes("list [pane]"));
    s = await step("s", (x) => x.includes("sort: size"));
    s = await step("Enter", (x) => x.includes("Esc back"));
    // sst FILE's report at the pane's 55 columns: the compression's name goes to the next line
    expect(s).toMatch(/format: block-based v5, checksum xxh3, compression/);
    expect(s).toMatch(/LZ4, index /);
    await step("Escape", (x) => x.includes("sort: size"));
    s = await step("o", (x) => x.includes("[3o Options]"));
    expect(s).toMatch(/filter\s+bloomfilte/); // at 80 columns the OPTIONS side is cut first

    await keys("q");
    s = await waitFor((x) => x.includes("EXITED rc="));
    expect(s).toContain("EXITED rc=0");
    // the alternate screen is gone: the TUI's frame does not remain on the terminal
    expect(s).not.toContain("q quit · Tab focus");
  });

  it("Ctrl-C exits cleanly too", async () => {
    spawnSync("tmux", ["-L", socket, "kill-session", "-t", session]);
    const cmd = `${process.execPath} ${join(repoRoot, "bin", "lsmscope.js")} tui ${sample}; echo "EXITED rc=$?"; sleep 60`;
    await newSession("80", "24", cmd);
    await waitFor((x) => x.includes("[1l Layout]"));
    await keys("C-c");
    const s = await waitFor((x) => x.includes("EXITED rc="));
    expect(s).toContain("EXITED rc=0");
  });

  it("at 80 columns: Options shows what the files carry, Files scrolls with ←→ and opens with ⏎, the footer marks the focus", async () => {
    spawnSync("tmux", ["-L", socket, "kill-session", "-t", session]);
    const cmd = `${process.execPath} ${join(repoRoot, "bin", "lsmscope.js")} tui ${sample}; echo "EXITED rc=$?"; sleep 60`;
    await newSession("80", "30", cmd);
    let s = await waitFor((x) => x.includes("[1l Layout]"));
    expect(s).toContain("Tab focus: [list] pane");
    // the focused side is set off from the reverse-video bar (bold, not reversed)
    const styled = tmux("capture-pane", "-t", session, "-p", "-e");
    expect(styled).toMatch(/\x1b\[[0-9;]*1[;m][^\n]*\[list\]/);

    await step("Down", (x) => x.includes("› cf06"));
    s = await step("o", (x) => x.includes("[3o Options]"));
    expect(s).toMatch(/knob +OPTIONS +files carry/);
    expect(s).toMatch(/compression +LZ4 +LZ4 ×2/);
    for (const line of s.split("\n")) expect([...line].length).toBeLessThanOrEqual(80);

    await step("f", (x) => x.includes("sort: level"));
    s = await step("Tab", (x) => x.includes("Tab focus: list [pane]"));
    expect(s).toContain("←→ more columns");
    expect(s).not.toMatch(/compr\.\s+age/);
    await step("Right", (x) => x.includes("(+8)"));
    await step("Right", (x) => x.includes("(+16)"));
    s = await step("Right", (x) => /compr\.\s+age/.test(x));
    expect(s).toMatch(/LZ4\s+\S+\s*$/m); // a row's compression and age are on screen
    expect(s).not.toContain("Esc back"); // → scrolls, it does not open the detail
    s = await step("Enter", (x) => x.includes("Esc back"));
    expect(s).toMatch(/checksum xxh3/);
    await step("Escape", (x) => x.includes("sort: level"));
    await keys("q");
    s = await waitFor((x) => x.includes("EXITED rc="));
    expect(s).toContain("EXITED rc=0");
  });

  for (const width of [80, 160])
    it(`the probe table is not cut at the right at ${width} columns`, async () => {
      spawnSync("tmux", ["-L", socket, "kill-session", "-t", session]);
      const cmd = `${process.execPath} ${join(repoRoot, "bin", "lsmscope.js")} tui ${sample}; echo "EXITED rc=$?"; sleep 60`;
      await newSession(String(width), "50", cmd);
      await waitFor((x) => x.includes("[1l Layout]"));
      await step("Down", (x) => x.includes("› cf06"));
      await step("p", (x) => x.includes("[7p Probe]"));
      await step("Tab", (x) => x.includes("Tab focus: list [pane]"));
      await step("e", (x) => x.includes("running present probe") || /reader\s+no/.test(x));
      const s = await waitFor((x) => /1000\s+reader\s+no\s+1000\/1000/.test(x), 30_000);
      for (const h of [
        "files/lk",
        "filt rej/lk",
        "data/lk",
        "bytes/lk",
        "distinct B",
        "block-layer B",
        "answered at",
      ])
        expect(s, h).toContain(h);
      const table = s.split("\n").filter((l) => /count\s+path|\d+\s+reader\s/.test(l));
      expect(table.length).toBeGreaterThanOrEqual(2);
      for (const line of table) expect(line).not.toMatch(/…\s*$/);
      for (const line of s.split("\n")) expect([...line].length).toBeLessThanOrEqual(width);
      await keys("q");
      await waitFor((x) => x.includes("EXITED rc="));
    });
  it("at 80×24: the Datadir pane (i) shows the identity, the summary rows and geth's freezer tables", async () => {
    spawnSync("tmux", ["-L", socket, "kill-session", "-t", session]);
    const geth = join(repoRoot, "samples", "geth-leveldb");
    const truth = JSON.parse(readFileSync(`${geth}.truth.json`, "utf8"));
    const cmd = `${process.execPath} ${join(repoRoot, "bin", "lsmscope.js")} tui ${geth}; echo "EXITED rc=$?"; sleep 60`;
    await newSession("80", "24", cmd);
    await waitFor((x) => x.includes("[1l Layout]"));
    let s = await step("i", (x) => x.includes("[8i Datadir]"));
    expect(s).toContain(`chain head: #${truth.identity.chainHead.number.toLocaleString("en-US")}`);
    // the hashes wrap at the pane's width (55 columns), the rest under their start
    const head = truth.identity.chainHead.hash as string;
    expect(s).toContain(`hash       ${head.slice(0, 42)}`);
    expect(s).toContain(`           ${head.slice(42)}`);
    expect(s).toMatch(/summary \(inspect --summary\)/);
    // LevelDB tables carry no entry count: the total's is unknown
    expect(s).toMatch(/Total\s+-\s+[\d.]+ MiB/);
    expect(s).toMatch(/headers\s+50\s+[\d.]+ KiB/);
    for (const line of s.split("\n")) expect([...line].length).toBeLessThanOrEqual(80);
    await step("Tab", (x) => x.includes("Tab focus: list [pane]"));
    s = await step("PageDown", (x) => x.includes("freezer geth/chaindata/ancient/chain (chain)"));
    // inspect's freezer lines at the pane's width: the table in two column groups
    expect(s).toContain("of the datadir's store and freezer bytes");
    for (const t of truth.freezers[0].tables) {
      const n = (x: number) => x.toLocaleString("en-US");
      expect(s).toMatch(
        new RegExp(`${t.name}\\s+${n(t.items)}\\s+${n(t.tail)}\\s+${n(t.items - t.tail)}\\s`),
      );
      expect(s).toMatch(new RegExp(`${t.name}\\s+\\d+\\s+${t.compressed ? "snappy" : "raw"}`));
    }
    for (const line of s.split("\n")) expect([...line].length).toBeLessThanOrEqual(80);
    await keys("q");
    expect(await waitFor((x) => x.includes("EXITED rc="))).toContain("EXITED rc=0");
  });
});

const hasDbBench = spawnSync("db_bench", ["--help"]).status !== null;

describe.skipIf(!hasTmux || !hasDbBench)("lsmscope DIR in tmux on an L0 pile-up (db_bench)", () => {
  let root = "";
  afterAll(() => root && removeDir(root));

  it("opens on the outline, fills the tables in and ends with inspect's figures; q exits 0", async () => {
    root = tempDir("lsmscope-tui-outline-");
    const db = join(root, "db");
    // ~700 tables, more than the outline-first threshold under any load (db_bench takes the last of a
    // repeated flag; with memtables merged into flushes, 2,500,000 entries once gave only 489 tables)
    dbBench(db, [...TINY_L0_PILEUP, ...ONE_TABLE_PER_MEMTABLE, "--num=700000"]);
    const r = await runInspect(db);
    const report = buildInspectReport(r.model, r.mode);
    expect(report.totals.sstFiles).toBeGreaterThanOrEqual(OUTLINE_FIRST_MIN_TABLES);
    const { error, warn, info } = report.flagCounts;

    spawnSync("tmux", ["-L", socket, "kill-session", "-t", session]);
    const cmd = `${process.execPath} ${join(repoRoot, "bin", "lsmscope.js")} ${db}; echo "EXITED rc=$?"; sleep 60`;
    await newSession("100", "30", cmd);
    const first = await waitFor((x) => x.includes("[1l Layout]"));
    expect(first).toContain(`${report.totals.sstFiles.toLocaleString("en-US")} SSTs`);
    // once every table is read the status line is inspect's: the same flags, no "reading tables"
    const done = await waitFor((x) => x.includes("[1l Layout]") && !x.includes("reading tables"), 60_000);
    expect(done).toContain(`flags ${error}E ${warn}W ${info}I`);
    await keys("q");
    expect(await waitFor((x) => x.includes("EXITED rc="))).toContain("EXITED rc=0");
  }, 120_000);
});
