/**
 * The real binary in a real terminal: tmux runs `lsmscope DIR` (the default command opens the TUI on a
 * terminal) at 80×24 on a sample; send-keys drives it, capture-pane reads the screen; q exits with 0.
 */
import { afterAll, describe, expect, it } from "vitest";
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";

const repoRoot = new URL("../../", import.meta.url).pathname;
const sample = join(repoRoot, "samples", "besu-snapshot");
const hasTmux = spawnSync("tmux", ["-V"]).status === 0;
const session = `lsmscope-test-${process.pid}`;

const tmux = (...args: string[]) => execFileSync("tmux", args, { encoding: "utf8" });
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

async function keys(...k: string[]) {
  for (const x of k) {
    tmux("send-keys", "-t", session, x);
    await sleep(150);
  }
}

afterAll(() => {
  spawnSync("tmux", ["kill-session", "-t", session]);
});

describe.skipIf(!hasTmux || !existsSync(sample))("lsmscope DIR in tmux", () => {
  it("opens the TUI, navigates, shows a file's detail and exits cleanly on q", async () => {
    const cmd = `${process.execPath} ${join(repoRoot, "bin", "lsmscope.js")} ${sample}; echo "EXITED rc=$?"; sleep 60`;
    tmux("new-session", "-d", "-s", session, "-x", "80", "-y", "24", cmd);
    let s = await waitFor((x) => x.includes("[1l Layout]"));
    expect(s).toContain("database › cf01 BLOCKCHAIN");
    for (const line of s.split("\n")) expect([...line].length).toBeLessThanOrEqual(80);

    await keys("Down");
    s = await waitFor((x) => x.includes("› cf06 ACCOUNT_INFO_STATE"));
    expect(s).toMatch(/L0\s+█/);

    await keys("f", "Tab");
    s = await waitFor((x) => x.includes("sort: level"));
    await keys("s");
    s = await waitFor((x) => x.includes("sort: size"));
    await keys("Enter");
    s = await waitFor((x) => x.includes("Esc back"));
    expect(s).toMatch(/checksum: xxh3/);
    expect(s).toMatch(/compression: LZ4/);
    await keys("Escape", "o");
    s = await waitFor((x) => x.includes("[3o Options]"));
    expect(s).toMatch(/filter\s+bloomfilter:10/);

    await keys("q");
    s = await waitFor((x) => x.includes("EXITED rc="));
    expect(s).toContain("EXITED rc=0");
    // the alternate screen is gone: the TUI's frame does not remain on the terminal
    expect(s).not.toContain("q quit · Tab focus");
  });

  it("Ctrl-C exits cleanly too", async () => {
    spawnSync("tmux", ["kill-session", "-t", session]);
    const cmd = `${process.execPath} ${join(repoRoot, "bin", "lsmscope.js")} tui ${sample}; echo "EXITED rc=$?"; sleep 60`;
    tmux("new-session", "-d", "-s", session, "-x", "80", "-y", "24", cmd);
    await waitFor((x) => x.includes("[1l Layout]"));
    await keys("C-c");
    const s = await waitFor((x) => x.includes("EXITED rc="));
    expect(s).toContain("EXITED rc=0");
  });
});
