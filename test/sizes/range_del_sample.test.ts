/**
 * Range deletions in sample mode: a db_bench store written with range tombstones (and point deletions)
 * into L0 tables (auto-compaction off: a compaction into the bottom level drops them with what they
 * cover), then more range tombstones that stay in the WAL over keys the tables hold. A sampled record a
 * newer range deletion covers is not a live key, as full mode and RocksDB's own iteration (ldb scan)
 * say: with every block drawn, sample mode's live keys equal them exactly (without the WAL's range
 * deletions it counted twice as many).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { join } from "node:path";
import { computeSizes } from "../../src/sizes/index.js";
import { planCf, type CfPlan } from "../../src/sizes/plan.js";
import { inspectDatadir } from "../../src/datadir/index.js";
import { dbBench, trackedTempDirs } from "../helpers/index.js";
import { ldbValueLengths } from "./helpers.js";

const { tempDir, cleanupTemps } = trackedTempDirs("lsmscope-rangedel-");
let db: string;

beforeAll(() => {
  db = join(tempDir(), "db");
  dbBench(db, [
    "--benchmarks=fillrandom,deleterandom",
    "--num=20000",
    "--deletes=2000",
    "--value_size=100",
    "--writes_per_range_tombstone=100",
    "--max_num_range_tombstones=150",
    "--range_tombstone_width=200",
    "--write_buffer_size=262144",
    // a compaction into the bottom level drops range tombstones with what they cover: keep them in L0
    "--disable_auto_compactions=1",
  ]);
  // then range deletions that stay in the WAL, over keys the tables hold
  dbBench(db, [
    "--use_existing_db=1",
    "--benchmarks=overwrite",
    "--num=20000",
    "--writes=2000",
    "--value_size=100",
    "--writes_per_range_tombstone=20",
    "--max_num_range_tombstones=100",
    "--range_tombstone_width=200",
    "--write_buffer_size=67108864",
    "--disable_auto_compactions=1",
  ]);
}, 120_000);
afterAll(cleanupTemps);

describe("range deletions in sample mode", () => {
  it("covered records are not live keys: every block drawn equals full mode and ldb scan", async () => {
    const live = ldbValueLengths(db, tempDir()).length;
    const full = await computeSizes(db, { workers: 1 });
    const f = full.columnFamilies.find((c) => c.name === "default")!;
    expect(f.rangeDeleted).toBeGreaterThan(0);
    expect(f.liveKeys).toBe(live);
    const all = await computeSizes(db, { mode: "sample", sampleBlocks: 1_000_000 });
    const s = all.columnFamilies.find((c) => c.name === "default")!;
    expect(s.liveKeys).toBe(live);
    expect(s.valueSize.count).toBe(f.valueSize.count);
  });

  it("planned from the model's reading of the tables (check's samples): the same plan and figures", async () => {
    const live = ldbValueLengths(db, tempDir()).length;
    const model = await inspectDatadir(db, { tableDetails: "cheap" });
    const inst = model.instances[0]!;
    const cf = inst.columnFamilies.find((c) => c.name === "default")!;
    const files = cf.levels.flatMap((l) => l.files);
    const rangeDeleting = files.filter(
      (f) => Number(f.details?.properties?.["rocksdb.num.range-deletions"]) > 0,
    );
    // tables planned from their properties in the model, and tables opened for their range deletions
    expect(rangeDeleting.length).toBeGreaterThan(0);
    expect(rangeDeleting.length).toBeLessThan(files.length);
    const figures = (p: CfPlan) => ({
      dataBytes: p.dataBytes,
      dataBlocks: p.dataBlocks,
      valueRecords: p.valueRecords,
      entries: p.entries,
      dataBytesExact: p.dataBytesExact,
      rangeDels: p.rangeDels,
      fileBlocks: [...p.tableFigures].map(([path, t]) => [path, t.numDataBlocks]),
    });
    const opened = figures(planCf(inst, cf, true));
    expect(figures(planCf(inst, cf, true, undefined, undefined, true))).toEqual(opened);
    expect(opened.fileBlocks).toHaveLength(files.length);
    const all = await computeSizes(db, { mode: "sample", sampleBlocks: 1_000_000, model });
    expect(all.columnFamilies.find((c) => c.name === "default")!.liveKeys).toBe(live);
  });
});
