/**
 * Text output fits an 80-column terminal: inspect on every sample (and at 60 and 120 columns), the
 * compact plan, sst on every table (with its blocks) and probe, rendered in-process at a width; every
 * line within it, and nothing cut: every finding and flag text is whole once whitespace is squashed.
 * The real binary in tmux at 80 columns for inspect on besu-snapshot (as test/check/width.test.ts).
 */
import { afterAll, describe, expect, it } from "vitest";
import { execFileSync, spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { inspectForReport } from "../../src/cli/commands/inspect.js";
import { buildInspectReport, shownFindings, type InspectReport } from "../../src/report/build.js";
import { renderInspectReport } from "../../src/report/render.js";
import { describeTable, renderTableText } from "../../src/report/sst.js";
import { planCompaction } from "../../src/compact/plan.js";
import { renderPlanText } from "../../src/compact/render.js";
import { runProbe } from "../../src/probe/probe.js";
import { renderProbeReport } from "../../src/probe/render.js";
import { diffDatadirs } from "../../src/diff/index.js";
import { renderDiffText } from "../../src/diff/render.js";
import { escapeText } from "../../src/util/bytes.js";
import { fitTable } from "../../src/util/text_table.js";
import { fitLine, fitLineKeepingTail, wrap } from "../../src/util/words.js";
import * as engine from "../../src/engine/index.js";
import { REPO, SAMPLES, tableFilesUnder } from "../helpers/index.js";

const SAMPLE_DIRS = readdirSync(SAMPLES, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name)
  .sort();
const squash = (s: string) => s.replace(/\s+/g, " ");
const hasTmux = spawnSync("tmux", ["-V"]).status === 0;
const session = `lsmscope-width-${process.pid}`;
afterAll(() => void spawnSync("tmux", ["kill-session", "-t", session]));

/** Lines over `width`: none, except one word longer than a line (a path), which wrap leaves whole. */
function overWidth(text: string, width: number): string[] {
  return text.split("\n").filter((l) => [...l].length > width && /\s/.test(l.trim()));
}

async function inspectReport(name: string): Promise<InspectReport> {
  const r = await inspectForReport(join(SAMPLES, name), { progress: false });
  return buildInspectReport(r.model, r.mode, r.deep);
}

describe("fitting text to a width", () => {
  it("wraps a line with a hanging indent, keeping a unit with its number and ×N with its name", () => {
    expect(fitLine("  ab cd ef", 80)).toEqual(["  ab cd ef"]);
    expect(fitLine("  aaaa bbbb cccc", 11)).toEqual(["  aaaa bbbb", "    cccc"]);
    expect(fitLine("  !  rule: aaaa bbbb", 12, 3)).toEqual(["  !  rule:", "     aaaa", "     bbbb"]);
    expect(wrap("read 112 KiB now", 9)).toEqual(["read", "112 KiB", "now"]);
    expect(wrap("LZ4 ×2, Snappy ×7", 8)).toEqual(["LZ4 ×2,", "Snappy ×7"]);
    // a hex key is cut across lines only when asked; nothing of it is lost
    const hex = "ab".repeat(30);
    expect(fitLine(`  key ${hex}`, 20)).toEqual(["  key", `    ${hex}`]);
    const cut = fitLine(`  key ${hex}`, 20, 2, true);
    expect(cut.every((l) => l.length <= 20)).toBe(true);
    expect(cut.map((l) => l.trim()).join("")).toBe(`key${hex}`);
  });

  it("keeps a verdict whole on the last line", () => {
    expect(fitLineKeepingTail("total: a b", " · incomplete", 80)).toEqual(["total: a b · incomplete"]);
    const lines = fitLineKeepingTail("total: aaaa bbbb cccc", " · picture incomplete", 24);
    expect(lines.at(-1)).toBe("  · picture incomplete");
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(24);
  });

  it("a table too wide splits into column groups repeating the first column, then wraps cells", () => {
    const rows = [
      ["level", "files", "filters", "compression"],
      ["L0", "12", "12 with, 0 without", "LZ4 ×10, Snappy ×2"],
      ["L6", "3", "3 with, 0 without", "ZSTD ×3"],
    ];
    expect(fitTable(rows, 200)).toHaveLength(3);
    const narrow = fitTable(rows, 34, new Set([1]));
    for (const l of narrow) expect(l.length, l).toBeLessThanOrEqual(34);
    expect(narrow.filter((l) => l.trim().startsWith("level"))).toHaveLength(2);
    for (const cell of rows.flat()) expect(squash(narrow.join(" "))).toContain(cell.split(" ")[0]);
    const cells = fitTable(
      [
        ["knob", "files carry"],
        ["filter", "L0: fastbloom ×1 · L6: fastbloom ×1"],
      ],
      24,
    );
    for (const l of cells) expect(l.length, l).toBeLessThanOrEqual(24);
    expect(squash(cells.slice(1).join(" "))).toContain("fastbloom ×1 ·");
  });
});

describe("inspect text within the width", () => {
  it.each(SAMPLE_DIRS)(
    "%s at 60, 80 and 120 columns: lines fit, every finding and flag whole",
    async (name) => {
      const report = await inspectReport(name);
      const texts = [
        ...report.instances.flatMap((i) => shownFindings(i.findings).slice(0, 50)),
        ...report.findings.filter((f) => !report.instances.some((i) => i.findings.includes(f))),
      ].map((f) => escapeText(f.message));
      const flags = report.instances.flatMap((i) =>
        i.cfs.flatMap((c) => c.flags.map((f) => escapeText(f.message))),
      );
      for (const width of [60, 80, 120]) {
        const text = renderInspectReport(report, { width });
        expect(overWidth(text, width), `${name} at ${width}`).toEqual([]);
        for (const t of [...texts, ...flags]) expect(squash(text), t).toContain(squash(t));
      }
      // wide enough, the level table keeps one row per level
      const wide = renderInspectReport(report, { width: 200 });
      if (/^ {2}level {2}files/m.test(wide)) expect(wide).toMatch(/^ {2}level {2}files .* {2}bits\/key/m);
    },
  );
});

describe("other commands' text within 80 columns", () => {
  it.each(SAMPLE_DIRS)("sst --blocks --scan on every table of %s", (name) => {
    for (const t of tableFilesUnder(join(SAMPLES, name))) {
      const text = renderTableText(describeTable(t, { blocks: true, scan: true }), 80);
      expect(overWidth(text, 80), t).toEqual([]);
      // hex keys may be cut across lines: their lines are not words
      expect(
        text.split("\n").filter((l) => [...l].length > 80),
        t,
      ).toEqual([]);
    }
  });

  it.skipIf(!engine.engineAvailable())("the compact plan of every single-store sample", async () => {
    let planned = 0;
    for (const name of SAMPLE_DIRS) {
      const plan = await planCompaction(join(SAMPLES, name)).catch(() => undefined);
      if (!plan) continue; // several stores, or one that cannot be compacted: refused before any text
      planned++;
      expect(overWidth(renderPlanText(plan, 80), 80), name).toEqual([]);
    }
    expect(planned).toBeGreaterThanOrEqual(3);
  });

  it("diff of two different stores: long column family names wrap in their column", async () => {
    const r = await diffDatadirs(join(SAMPLES, "geth-leveldb"), join(SAMPLES, "besu-snapshot"));
    const text = renderDiffText(r, 80);
    expect(overWidth(text, 80)).toEqual([]);
    expect(squash(text)).toContain("database/cf08 ACCOUNT_STORAGE_STORAGE (B only)");
  });

  it("probe on besu-snapshot: the table in column groups, prose wrapped", async () => {
    const report = await runProbe(join(SAMPLES, "besu-snapshot"), {
      cf: "cf06",
      keys: "present",
      counts: [20],
      path: "reader",
      seed: "1",
    });
    const text = renderProbeReport(report, 80);
    expect(overWidth(text, 80)).toEqual([]);
    expect(text.match(/^count {2}path/gm)!.length).toBeGreaterThan(1);
  });
});

describe("inspect in a terminal", () => {
  it.skipIf(!hasTmux)("the binary in tmux at 80 columns: no line longer than the terminal", async () => {
    const bin = join(REPO, "bin", "lsmscope.js");
    const cmd = `${process.execPath} ${bin} inspect ${join(SAMPLES, "besu-snapshot")}; echo "EXITED rc=$?"; sleep 60`;
    execFileSync("tmux", ["new-session", "-d", "-s", session, "-x", "80", "-y", "50", cmd]);
    execFileSync("tmux", ["set-option", "-t", session, "history-limit", "5000"]);
    let screen = "";
    for (let i = 0; i < 300 && !screen.includes("EXITED rc="); i++) {
      await new Promise((r) => setTimeout(r, 100));
      // -J joins lines the terminal wrapped: a line longer than 80 columns shows as one; -S - from history
      screen = execFileSync("tmux", ["capture-pane", "-t", session, "-p", "-J", "-S", "-"], {
        encoding: "utf8",
      });
    }
    expect(screen).toContain("EXITED rc=0");
    expect(screen).toContain("small-files-above-bottom");
    // (a path longer than the terminal, where the checkout sits deep, is one word: it stays whole)
    expect(overWidth(screen, 80)).toEqual([]);
  });
});
