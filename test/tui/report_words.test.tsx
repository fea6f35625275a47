/**
 * The TUI says what the reports say: the Datadir pane prints the identity and freezer lines of inspect's
 * renderers and the summary's own cells, a file's detail is `sst FILE`'s text at the pane's width, the
 * column-family list uses the report's "holds something" test, and the WAL pane the report's words.
 * Through ink-testing-library (no tmux) on the committed samples.
 */
import { afterEach, describe, expect, it } from "vitest";
import { render, cleanup } from "ink-testing-library";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { App, listItems } from "../../src/tui/app.js";
import { datadirLines } from "../../src/tui/panes/datadir.js";
import { fileDetailLines } from "../../src/tui/panes/files.js";
import { walLines } from "../../src/tui/panes/wal.js";
import { runInspect, type InspectResult } from "../../src/report/deep.js";
import { buildInspectReport, type InspectReport } from "../../src/report/build.js";
import { addDatadirViews } from "../../src/report/views.js";
import { identityLines } from "../../src/identity/render.js";
import { freezerLines } from "../../src/freezer/render.js";
import { buildSummary } from "../../src/summary/index.js";
import { bytes8, entriesCell } from "../../src/summary/render.js";
import { describeTable, renderTableText } from "../../src/report/sst.js";

const samplesDir = new URL("../../samples/", import.meta.url).pathname;
const have = (s: string) => existsSync(join(samplesDir, s));
const tick = (ms = 120) => new Promise((r) => setTimeout(r, ms));
afterEach(() => cleanup());

async function load(sample: string): Promise<[InspectResult, InspectReport]> {
  const result = await runInspect(join(samplesDir, sample));
  addDatadirViews(result.model);
  return [result, buildInspectReport(result.model)];
}

/** `part` appears in `whole` as a run of consecutive lines. */
function containsRun(whole: readonly string[], part: readonly string[]): boolean {
  for (let i = 0; i + part.length <= whole.length; i++)
    if (part.every((l, k) => whole[i + k] === (l === "" ? " " : l))) return true;
  return false;
}

/** At 80 columns the pane is 55 wide (a 24-column list and a gap). */
const PANE_W = 55;

describe.skipIf(!have("geth-leveldb"))("Datadir pane on geth-leveldb", () => {
  it("prints the identity and freezer lines of inspect's renderers, within the pane", async () => {
    const [result, report] = await load("geth-leveldb");
    const id = result.model.identity!;
    const freezers = result.model.freezers!;
    expect(id.chainHead).toBeDefined();
    expect(freezers.length).toBeGreaterThan(0);
    const lines = datadirLines({ result, report, width: PANE_W });
    for (const l of lines) expect(l.length, l).toBeLessThanOrEqual(PANE_W);
    const t = report.totals;
    expect(containsRun(lines, identityLines(id, PANE_W))).toBe(true);
    expect(
      containsRun(lines, freezerLines(freezers, t.sstBytes + t.blobFileBytes + t.walBytes, PANE_W)),
    ).toBe(true);
    // LevelDB writes no OPTIONS: the summary has no "written by" line, nor has the pane
    expect(id.writtenBy).toBeUndefined();
    expect(lines.some((l) => l.startsWith("written by"))).toBe(false);
    expect(lines.join("\n")).toContain("of the datadir's store and freezer bytes");
    // the whole hash, wrapped under its start
    expect(lines.join("").replace(/ +/g, "")).toContain(id.chainHead!.hash);
  });

  it("prints the summary's cells (inspect --summary's formatters)", async () => {
    const [result, report] = await load("geth-leveldb");
    const lines = datadirLines({ result, report, width: PANE_W });
    const s = buildSummary(result.model);
    const total = lines.find((l) => l.startsWith("  Total"))!;
    expect(
      total
        .trim()
        .split(/\s{2,}/)
        .slice(1),
    ).toEqual([entriesCell(s.total), bytes8(s.total.totalBytes), bytes8(s.total.bytesAboveBottom)]);
    // a row with nothing above the bottom reads "0" as in the summary, not "0 B"
    const wal = lines.find((l) => l.trim().startsWith("(WAL)"))!;
    expect(
      wal
        .trim()
        .split(/\s{2,}/)
        .pop(),
    ).toBe("0");
  });

  it("renders at 80 columns with every line within the width", async () => {
    const [result] = await load("geth-leveldb");
    const { lastFrame } = render(<App result={result} width={80} height={60} initialPane="datadir" />);
    await tick();
    const f = lastFrame()!;
    for (const l of f.split("\n")) expect([...l].length).toBeLessThanOrEqual(80);
    expect(f).toContain("of the datadir's store and freezer bytes");
    expect(f).not.toContain("written by: -");
  });
});

describe.skipIf(!have("geth-leveldb"))("file detail on geth-leveldb", () => {
  it("is sst FILE's report at the pane's width: a LevelDB filter is legacy block-based", async () => {
    const [result] = await load("geth-leveldb");
    const f = result.model.instances[0]!.columnFamilies.flatMap((c) => c.levels.flatMap((l) => l.files))[0]!;
    const lines = fileDetailLines(f, Math.floor(Date.now() / 1000), PANE_W);
    const sst = renderTableText({ ...describeTable(f.path), file: f.fileName }, PANE_W)
      .replace(/\n$/, "")
      .split("\n");
    expect(containsRun(lines, sst)).toBe(true);
    for (const l of sst) expect(l.length, l).toBeLessThanOrEqual(PANE_W);
    const text = lines.join("\n");
    expect(text).toMatch(/filter: bloom, legacy block-based/);
    expect(text).not.toMatch(/whole key (true|false)/);
  });
});

describe.skipIf(!have("besu-snapshot"))("column-family list", () => {
  it("a column family holding only unflushed WAL writes is not 'empty' (the report shows its section)", async () => {
    const [, report] = await load("besu-snapshot");
    const cf = report.instances[0]!.cfs[0]!;
    cf.layout = { ...cf.layout, files: 0, blob: { ...cf.layout.blob, files: 0 }, unflushedWrites: 7 };
    const item = listItems(report).find((i) => i.cf === cf)!;
    expect(item.size).not.toBe("empty");
    expect(item.size).toBe("unflushed");
    cf.layout = { ...cf.layout, unflushedWrites: 0 };
    expect(listItems(report).find((i) => i.cf === cf)!.size).toBe("empty");
  });

  it("the WAL pane says 'not needed for recovery' as the report does", async () => {
    const [result, report] = await load("besu-snapshot");
    const inst = report.instances[0]!;
    const w = inst.instance.wal[0]!;
    const saved = { live: w.live, livenessUnknown: w.livenessUnknown };
    Object.assign(w, { live: false, livenessUnknown: false });
    try {
      const lines = walLines({
        result,
        report,
        instance: inst,
        width: 80,
        height: 24,
        focused: false,
      } as never);
      expect(lines[0]).toContain("not needed for recovery");
    } finally {
      Object.assign(w, saved);
    }
  });
});
