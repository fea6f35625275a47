/**
 * One placement figure and the L0 pile-up, on a store RocksDB's own db_bench wrote with auto-compaction
 * off and a 64 KiB write buffer (every table stays in L0, dozens of them overlapping over the whole key
 * range): inspect's model, the inspect report, check's placement-overlay evidence and compact's plan
 * state the same placement; the layout's tables per lookup agree with what probe measures for absent
 * keys; check makes the pile-up an error.
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

const { tempDir, cleanupTemps } = trackedTempDirs("lsmscope-placement-");
let db: string;

beforeAll(() => {
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
afterAll(cleanupTemps);

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
    expect(layout.filesPerLookup).toBe(maxOverlap(l0.files));
    expect(layout.filesPerLookup).toBeGreaterThan(l0.files.length * 0.9);
    const pile = layout.flags.find((f) => f.id === "l0-pileup")!;
    expect(pile.severity).toBe("error");
    expect(report.flagCounts.error).toBeGreaterThanOrEqual(1);

    const check = await runCheck(db, { overlaySample: 500 });
    const overlay = check.findings.find((f) => f.rule === "placement-overlay")!;
    for (const [k, v] of Object.entries(p)) expect(overlay.evidence[k], k).toEqual(v);
    const l0Finding = check.findings.find((f) => f.rule === "l0-pileup")!;
    expect(l0Finding.severity).toBe("error");
    expect(l0Finding.evidence.filesPerLookup).toBe(layout.filesPerLookup);
    expect(exitCodeFor(check)).toBe(2);

    const plan = await planCompaction(db);
    expect(plan.columnFamilies.find((c) => c.nameHex === cf.nameHex)!.placement).toEqual(p);

    // the reader path walks lookups the way RocksDB does: absent keys consult about every L0 table
    const probe = await runProbe(db, { cf: "default", keys: "absent", counts: [100], path: "reader" });
    const measured = probe.points[0]!.filesPerLookup!;
    expect(measured).toBeLessThanOrEqual(layout.filesPerLookup);
    expect(measured).toBeGreaterThan(layout.filesPerLookup * 0.9);
    expect(snapshotTree(db)).toEqual(before);
  }, 180_000);
});
