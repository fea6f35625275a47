/**
 * LevelDB tables written by classic-level (LevelDB 1.20: its footer, Snappy, the block-based
 * filter.leveldb.BuiltinBloomFilter2). sst_dump 7.8.3 does not read them, so the oracle is the data we
 * wrote: every key and value back, in order. A file apart from engines.test.ts, whose tables
 * @nxtedition/rocksdb writes in the suite's process (a project of its own, after the others): this
 * one runs with the rest.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { join } from "node:path";
import { openTable } from "../../src/format/index.js";
import { makeTempDir, removeDir, tablesIn } from "./oracle.js";
import { checkTable } from "./check.js";
import { expectWrittenData, writeWithClassicLevel } from "./writers.js";

const N = 20000;
let root: string;
beforeAll(() => {
  root = makeTempDir("leveldb-tables");
});
afterAll(() => removeDir(root));

describe("classic-level (LevelDB 1.20) tables", () => {
  it("reads .ldb tables: LevelDB footer, Snappy, filter.leveldb.BuiltinBloomFilter2", async () => {
    const dir = join(root, "leveldb");
    await writeWithClassicLevel(dir, N);
    const files = tablesIn(dir, ".ldb");
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) {
      const r = checkTable(f, {
        format: "leveldb",
        formatVersion: 0,
        checksum: "crc32c",
        filterKind: "bloom",
        noSstDump: true,
      });
      expect(r.absentChecked).toBeGreaterThan(19900);
      const t = openTable(f);
      try {
        expect(t.filter.blockBased).toBe(true);
        expect(t.filter.policy).toBe("leveldb.BuiltinBloomFilter2");
        expect(t.compression).toBe("Snappy");
      } finally {
        t.close();
      }
    }
    expectWrittenData(files, N);
  });
});
