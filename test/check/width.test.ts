/**
 * check's table fits the terminal: every line within the width, every finding's text whole (wrapped under
 * its column, or as blocks when narrow), and one `lsmscope compact` per store naming every column family
 * with an overlay. In-process at several widths, and the real binary in tmux at 80 columns.
 */
import { afterAll, describe, expect, it } from "vitest";
import { execFileSync, spawnSync } from "node:child_process";
import { join } from "node:path";
import { runCheck } from "../../src/check/index.js";
import { compactCommands, renderTable, shortText, wrap } from "../../src/check/render.js";
import { REPO, SAMPLES } from "../helpers/index.js";

const hasTmux = spawnSync("tmux", ["-V"]).status === 0;
const session = `lsmscope-check-${process.pid}`;
const squash = (s: string) => s.replace(/\s+/g, " ");
afterAll(() => void spawnSync("tmux", ["kill-session", "-t", session]));

/**
 * A line with more than one word: a single word longer than the width (the store's path, where the
 * checkout sits deep) stays whole on its own line, as wrap leaves it.
 */
const isProse = (line: string): boolean => /\s/.test(line.trim());

describe("check table width", () => {
  it("wraps words within a width", () => {
    expect(wrap("aa bb cc dd", 5)).toEqual(["aa bb", "cc dd"]);
    expect(wrap("aa bb cc", 6, "> ", "  ")).toEqual(["> aa", "  bb", "  cc"]);
    expect(wrap("averyveryverylongword x", 6)).toEqual(["averyveryverylongword", "x"]);
  });

  it("besu-snapshot at 60, 80, 120 and 200 columns: lines fit, findings whole, one compact command", async () => {
    const report = await runCheck(join(SAMPLES, "besu-snapshot"));
    const overlays = report.findings.filter((f) => f.rule === "placement-overlay" && f.severity !== "info");
    expect(overlays.length).toBeGreaterThan(1);
    const commands = compactCommands(report);
    expect(commands).toHaveLength(1);
    for (const f of overlays) expect(commands[0]).toContain(`--cf ${f.evidence.compactCf as string}`);
    for (const width of [60, 80, 120, 200]) {
      const text = renderTable(report, 0, width);
      for (const line of text.split("\n").filter(isProse))
        expect([...line].length, `${width}: ${line}`).toBeLessThanOrEqual(width);
      expect(text).not.toContain("…");
      for (const f of report.findings) expect(squash(text)).toContain(squash(shortText(f)));
      expect(squash(text).match(/lsmscope compact /g)).toHaveLength(1);
      // wide: a table with a FINDING column; narrow: blocks
      expect(text.includes("FINDING")).toBe(width >= 120);
    }
  });

  it.skipIf(!hasTmux)("the binary in tmux at 80 columns: no line longer than the terminal", async () => {
    const bin = join(REPO, "bin", "lsmscope.js");
    const cmd = `${process.execPath} ${bin} check ${join(SAMPLES, "besu-snapshot")}; echo "EXITED rc=$?"; sleep 60`;
    execFileSync("tmux", ["new-session", "-d", "-s", session, "-x", "80", "-y", "60", cmd]);
    let screen = "";
    for (let i = 0; i < 300 && !screen.includes("EXITED rc="); i++) {
      await new Promise((r) => setTimeout(r, 100));
      // -J joins lines the terminal wrapped: a line longer than 80 columns shows as one
      screen = execFileSync("tmux", ["capture-pane", "-t", session, "-p", "-J"], { encoding: "utf8" });
    }
    expect(screen).toContain("EXITED rc=0");
    expect(screen).toContain("placement-overlay");
    for (const line of screen.split("\n").filter(isProse))
      expect([...line].length, line).toBeLessThanOrEqual(80);
    expect(squash(screen).match(/lsmscope compact /g)).toHaveLength(1);
  });
});
