/**
 * One placement figure and the L0 pile-up, on a store RocksDB's own db_bench wrote with auto-compaction
 * off and a 64 KiB write buffer (every table stays in L0, dozens of them overlapping over the whole key
 * range): inspect's model, the inspect report, check's placement-overlay evidence and compact's plan
 * and the TUI's layout pane state the same placement; the layout's tables per lookup agree with what
 * probe measures for absent keys, and probe states both and judges the pile-up on what it measured;
 * check makes the pile-up an error and names the probe command that measures it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { join } from "node:path";
import { inspectDatadir } from "../../src/datadir/inspect.js";
import { buildInspectReport } from "../../src/report/build.js";
import { runCheck, exitCodeFor } from "../../src/check/runner.js";
import { planCompaction } from "../../src/compact/plan.js";
import { runProbe } from "../../src/probe/probe.js";
import { maxOverlap } from "../../src/analysis/layout.js";
import { dbBench, snapshotTree, trackedTempDirs } from "../helpers/index.js";
import { render, cleanup } from "ink-testing-library";
import { LayoutPane } from "../../src/tui/panes/layout.js";
import { renderProbeReport } from "../../src/probe/render.js";
import { formatBytes } from "../../src/util/bytes.js";
import { runInspect } from "../../src/report/deep.js";

const { tempDir, cleanupTemps } = trackedTempDirs("lsmscope-placement-");
let db: string;

let sequential: string;

beforeAll(() => {
  // fillseq with auto-compaction off: as many L0 tables, but each flush holds the next key range
  sequential = join(tempDir(), "seq");
  dbBench(sequential, [
    "--benchmarks=fillseq",
    "--num=30000",
    "--value_size=100",
    "--disable_auto_compactions=1",
    "--write_buffer_size=65536",
    "--compression_type=none",
  ]);
  db = join(tempDir(), "db");
  dbBench(db, [
    "--benchmarks=fillrandom",
    "--num=30000",
    "--value_size=100",
    "--disable_auto_compactions=1",
    "--write_buffer_size=65536",
    "--compression_type=none",
  ]);
}, 120_000);
afterAll(() => {
  cleanup();
  cleanupTemps();
});

describe("a store all in L0 (db_bench, auto-compaction off)", () => {
  it("states one placement in inspect, check and compact's plan, and makes the pile-up an error", async () => {
    const before = snapshotTree(db);
    const model = await inspectDatadir(db, { tableDetails: "cheap" });
    const cf = model.instances[0]!.columnFamilies.find((c) => c.name === "default")!;
    const l0 = cf.levels.find((l) => l.level === 0)!;
    expect(cf.levels.every((l) => l.level === 0 || l.files.length === 0)).toBe(true);
    expect(l0.files.length).toBeGreaterThan(36);
    const p = cf.placement!;
    expect(p.oldestL0AsBottom).toBe(true);
    expect(p.filesAboveBottom).toBe(l0.files.length - 1);
    expect(p.filesInBottom).toBe(1);
    expect(p.bytesAboveBottom + p.bytesInBottom).toBe(l0.bytes);

    const report = buildInspectReport(model);
    const layout = report.instances[0]!.cfs.find((c) => c.cf === cf)!.layout;
    expect(layout.placement).toEqual(p);
    // fillrandom spreads every memtable over the whole key range: all L0 tables overlap
    expect(layout.maxFilesPerLookup).toBe(maxOverlap(l0.files));
    expect(layout.maxFilesPerLookup).toBeGreaterThan(l0.files.length * 0.9);
    const pile = layout.flags.find((f) => f.id === "l0-pileup")!;
    expect(pile.severity).toBe("error");
    expect(report.flagCounts.error).toBeGreaterThanOrEqual(1);

    const check = await runCheck(db, { overlaySample: 500 });
    const overlay = check.findings.find((f) => f.rule === "placement-overlay")!;
    for (const [k, v] of Object.entries(p)) expect(overlay.evidence[k], k).toEqual(v);
    const l0Finding = check.findings.find((f) => f.rule === "l0-pileup")!;
    expect(l0Finding.severity).toBe("error");
    expect(l0Finding.evidence.maxFilesPerLookup).toBe(layout.maxFilesPerLookup);
    expect(l0Finding.evidence.probeCommand).toBe(
      `lsmscope probe ${db} --cf default --keys absent --count 1000 --path reader`,
    );
    expect(l0Finding.message).toContain("measure: lsmscope probe");
    expect(exitCodeFor(check)).toBe(2);

    const plan = await planCompaction(db);
    expect(plan.columnFamilies.find((c) => c.nameHex === cf.nameHex)!.placement).toEqual(p);

    // the reader path walks lookups the way RocksDB does: absent keys consult about every L0 table
    const probe = await runProbe(db, { cf: "default", keys: "absent", counts: [100], path: "reader" });
    const measured = probe.points[0]!.filesPerLookup!;
    expect(measured).toBeLessThanOrEqual(layout.maxFilesPerLookup);
    expect(measured).toBeGreaterThan(layout.maxFilesPerLookup * 0.9);
    // probe states the layout's figure beside the measured one and judges the pile-up on the latter
    const ra = probe.readAmplification;
    expect(ra.layout.maxFilesPerLookup).toBe(layout.maxFilesPerLookup);
    expect(ra.measured!.filesPerLookup).toBe(measured);
    expect(ra.measured!.maxFilesPerLookup).toBe(probe.points[0]!.maxFilesPerLookup);
    expect(ra.measured!.maxFilesPerLookup).toBeLessThanOrEqual(layout.maxFilesPerLookup);
    expect(ra.measured!.maxFilesPerLookup).toBeGreaterThanOrEqual(Math.ceil(measured));
    expect(ra.l0Pileup).toEqual({ severity: "error", from: "measured" });
    const text = renderProbeReport(probe, 80);
    expect(text).toContain(
      `tables per lookup: at most ${layout.maxFilesPerLookup} by the layout (inspect's maxFilesPerLookup);`,
    );
    expect(text).toMatch(new RegExp(`measured at most ${ra.measured!.maxFilesPerLookup}, mean`));
    expect(text).toContain("l0-pileup (error)");

    // the TUI's layout pane states the same placement (the report the app builds from its result)
    const result = await runInspect(db);
    const tuiReport = buildInspectReport(result.model, result.mode, result.deep);
    const tuiInstance = tuiReport.instances[0]!;
    const tuiCf = tuiInstance.cfs.find((c) => c.cf.nameHex === cf.nameHex)!;
    expect(tuiCf.layout.placement).toEqual(p);
    const { lastFrame } = render(
      <LayoutPane
        result={result}
        report={tuiReport}
        instance={tuiInstance}
        cf={tuiCf}
        width={200}
        height={30}
        focused={false}
      />,
    );
    expect(lastFrame()).toContain(
      `above the oldest L0 table: ${p.filesAboveBottom} files, ${formatBytes(p.bytesAboveBottom)}`,
    );
    expect(snapshotTree(db)).toEqual(before);
  }, 180_000);

  it("severity follows the tables a lookup consults: disjoint L0 tables are info, as probe measures", async () => {
    const model = await inspectDatadir(sequential, { tableDetails: "cheap" });
    const inst = model.instances[0]!;
    const cf = inst.columnFamilies.find((c) => c.name === "default")!;
    const report = buildInspectReport(model);
    const layout = report.instances[0]!.cfs.find((c) => c.cf === cf)!.layout;
    expect(layout.l0Files).toBeGreaterThanOrEqual(layout.l0SlowdownTrigger);
    expect(layout.maxFilesPerLookup).toBe(maxOverlap(cf.levels.find((l) => l.level === 0)!.files));
    expect(layout.maxFilesPerLookup).toBeLessThan(layout.l0SlowdownTrigger);
    expect(layout.flags.find((f) => f.id === "l0-pileup")!.severity).toBe("info");
    const probe = await runProbe(sequential, {
      cf: "default",
      keys: "absent",
      counts: [300],
      path: "reader",
    });
    const ra = probe.readAmplification;
    expect(ra.measured!.maxFilesPerLookup).toBeLessThanOrEqual(layout.maxFilesPerLookup);
    expect(ra.l0Pileup).toEqual({ severity: "info", from: "measured" });
  }, 120_000);
});
