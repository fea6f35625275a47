/**
 * Tables that vanish while lsmscope reads a store, as beside a live node: RocksDB itself (`ldb compact`,
 * run from inspect's progress callback part-way through reading the tables) installs a new version and
 * deletes the tables inspect has not read yet. Those are `sst-vanished` warnings, not errors; a table
 * deleted while the current MANIFEST still lists it stays an error.
 */
import { afterAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { copyInto, dbBench, trackedTempDirs } from "../helpers/index.js";
import { inspectDatadir } from "../../src/datadir/inspect.js";
import { computeSizes } from "../../src/sizes/index.js";
import { runInspect } from "../../src/report/deep.js";

const { tempDir, cleanupTemps } = trackedTempDirs("lsmscope-vanished-");
afterAll(cleanupTemps);

/**
 * The pile db_bench writes of `num` entries, written once in this file (~0.7 s a run): every test
 * changes its store, so each gets a private copy of it (pile below).
 */
const written = new Map<number, string>();
function pileOf(num: number): string {
  let db = written.get(num);
  if (db === undefined) {
    db = join(tempDir(), "db");
    dbBench(db, [
      "--benchmarks=fillrandom",
      `--num=${num}`,
      "--value_size=100",
      "--write_buffer_size=65536",
      "--disable_auto_compactions=1",
      "--level0_file_num_compaction_trigger=100000",
      "--level0_slowdown_writes_trigger=100000",
      "--level0_stop_writes_trigger=100000",
    ]);
    written.set(num, db);
  }
  return db;
}

/** A private pile of L0 tables, at least `min` (db_bench's flushes vary: write more until there are). */
function pile(min: number): string {
  for (let num = 100_000; ; num *= 2) {
    const db = pileOf(num);
    if (readdirSync(db).filter((n) => n.endsWith(".sst")).length >= min) return copyInto(db, tempDir());
  }
}

describe("tables that vanish during the read", () => {
  it("a compaction part-way through inspect: the deleted tables are sst-vanished warnings, the model complete", async () => {
    const db = pile(130);
    let compacted = false;
    const model = await inspectDatadir(db, {
      tableDetails: "cheap",
      onProgress: (done) => {
        if (compacted || done < 64) return;
        const r = spawnSync("ldb", [`--db=${db}`, "compact"], { encoding: "utf8" });
        expect(r.status, r.stderr).toBe(0);
        compacted = true;
      },
    });
    expect(compacted).toBe(true);
    const findings = model.instances[0]!.findings;
    const vanished = findings.filter((f) => f.code === "sst-vanished");
    expect(vanished.length).toBeGreaterThan(0);
    expect(vanished[0]!.severity).toBe("warn");
    expect(vanished[0]!.message).toMatch(/current MANIFEST no longer lists it/);
    expect(findings.filter((f) => f.severity === "error")).toEqual([]);
    expect(model.complete).toBe(true);
  }, 300_000);

  it("a listed table deleted (not replaced): still an error", async () => {
    const db = pile(2);
    const victim = readdirSync(db).find((n) => n.endsWith(".sst"))!;
    rmSync(join(db, victim));
    const model = await inspectDatadir(db, { tableDetails: "cheap" });
    const f = model.instances[0]!.findings.find((x) => x.file.endsWith(victim))!;
    expect(f.severity).toBe("error");
    expect(f.code).toBe("sst-missing");
    expect(model.complete).toBe(false);
  }, 300_000);

  it("sizes over a version a compaction replaced: the deleted tables and WALs are skipped with a note, not an error", async () => {
    const db = pile(4);
    const model = await inspectDatadir(db, { tableDetails: "cheap" });
    const before = model.instances[0]!.columnFamilies[0]!.levels.flatMap((l) => l.files.map((f) => f.path));
    const r = spawnSync("ldb", [`--db=${db}`, "compact"], { encoding: "utf8" });
    expect(r.status, r.stderr).toBe(0);
    const gone = before.filter((p) => !existsSync(p));
    expect(gone.length).toBeGreaterThan(0);
    const rep = await computeSizes(db, { model, workers: 1 });
    expect(rep.incomplete).toEqual([]);
    for (const p of gone) expect(rep.vanishedFiles).toContain(p);
    expect(rep.notes.join(" ")).toMatch(
      /deleted during the scan and no longer needed by the current version/,
    );
    // what was still there was read: every table left, and nothing from the ones deleted
    const left = before.length - gone.length;
    expect(rep.columnFamilies[0]!.sstFiles).toBe(before.length);
    if (left === 0) expect(rep.columnFamilies[0]!.dataBlocks).toBe(0);
  }, 300_000);

  it("sizes: a table deleted that the current MANIFEST still lists leaves the picture incomplete", async () => {
    const db = pile(2);
    const model = await inspectDatadir(db, { tableDetails: "cheap" });
    const victim = model.instances[0]!.columnFamilies[0]!.levels.flatMap((l) => l.files)[0]!.path;
    rmSync(victim);
    const rep = await computeSizes(db, { model, workers: 1 });
    expect(rep.incomplete).toEqual([
      `${victim}: the table was deleted during the scan and the current MANIFEST still lists it`,
    ]);
    expect(rep.vanishedFiles).toBeUndefined();
  }, 300_000);

  it("inspect --deep: the same, for the tables its index walk finds gone", async () => {
    const db = pile(130);
    let compacted = false;
    const r = await runInspect(db, {
      mode: "deep",
      threads: 1,
      onProgress: (done) => {
        if (compacted || done < 64) return;
        expect(spawnSync("ldb", [`--db=${db}`, "compact"]).status).toBe(0);
        compacted = true;
      },
    });
    expect(compacted).toBe(true);
    const findings = r.model.instances[0]!.findings;
    expect(findings.filter((f) => f.code === "sst-vanished").length).toBeGreaterThan(0);
    expect(findings.filter((f) => f.severity === "error")).toEqual([]);
  }, 300_000);
});
