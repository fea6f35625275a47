/**
 * The newest-version merge on a store written by the engine addon (RocksDB 7.8.3) with overwrites in
 * newer files, point deletions, a range deletion (ldb deleterange) and writes left in the WAL: live keys
 * and sizes equal what RocksDB itself iterates (ldb scan), obsolete entries are accounted by kind.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import { computeSizes, type SizesReport } from "../../src/sizes/index.js";
import { engineAvailable, openDb } from "../../src/engine/index.js";
import { ldbScanCount, removeDir, tempDir } from "./helpers.js";

const key = (i: number) => Buffer.from(`k${String(i).padStart(5, "0")}`);
let dir: string;
let one: SizesReport;
let two: SizesReport;

describe.skipIf(!engineAvailable())("newest-version merge", () => {
  beforeAll(async () => {
    dir = tempDir();
    const db = openDb(dir, {
      createIfMissing: true,
      dbOptions: "avoid_flush_during_shutdown=true",
      columnFamilies: [
        {
          name: "default",
          options: "compression=kLZ4Compression;block_based_table_factory={block_size=4096;format_version=5}",
        },
      ],
    });
    try {
      for (let i = 0; i < 2000; i++) db.put("default", key(i), Buffer.alloc(100, i % 251));
      db.flush();
      for (let i = 0; i < 300; i++) db.put("default", key(i), Buffer.alloc(50, 7)); // overwrites, newer file
      db.flush();
      for (let i = 300; i < 400; i++) db.delete("default", key(i)); // tombstones
      db.flush();
      for (let i = 2000; i < 2100; i++) db.put("default", key(i), Buffer.alloc(30, 1)); // WAL only
    } finally {
      db.close();
    }
    one = await computeSizes(dir, { workers: 1 });
    execFileSync("ldb", [`--db=${dir}`, "deleterange", key(1000).toString(), key(1100).toString()]);
    two = await computeSizes(dir, {
      workers: 2,
      splitMinBytes: 1,
      rangesPerThread: 4,
      mainThreadScans: false,
    });
  }, 60_000);
  afterAll(() => removeDir(dir));

  it("overwrites, tombstones and WAL writes", () => {
    const cf = one.columnFamilies.find((c) => c.name === "default")!;
    expect(cf.liveKeys).toBe(2000 - 100 + 100);
    expect(cf.walEntries).toBe(100);
    expect(cf.shadowedVersions).toBe(300 + 100);
    expect(cf.tombstones).toBe(100);
    expect(cf.obsoleteEntries).toBe(500);
    expect(cf.entriesRead).toBe(2000 + 300 + 100 + 100);
    // 300 overwritten values of 50 bytes, 100 WAL values of 30 bytes, the rest 100 bytes
    const h = new Map(cf.valueSize.histogram.map((b) => [b.le, b.count]));
    expect(h.get(32)).toBe(100);
    expect(h.get(64)).toBe(300);
    expect(h.get(128)).toBe(1600);
    expect(cf.valueSize.totalBytes).toBe(100 * 30 + 300 * 50 + 1600 * 100);
  });

  it("a range deletion hides the keys it covers; the count equals ldb scan", () => {
    const cf = two.columnFamilies.find((c) => c.name === "default")!;
    expect(cf.rangeDeleted).toBe(100);
    expect(cf.liveKeys).toBe(2000 - 100 - 100 + 100);
    expect(cf.liveKeys).toBe(ldbScanCount(dir));
  });
});
