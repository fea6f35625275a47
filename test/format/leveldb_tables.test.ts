/**
 * LevelDB tables written by classic-level (LevelDB 1.20: its footer, Snappy, the block-based
 * filter.leveldb.BuiltinBloomFilter2). sst_dump 7.8.3 does not read them, so the oracle is the data we
 * wrote: every key and value back, in order. A file apart from engines.test.ts, whose tables
 * @nxtedition/rocksdb writes in the suite's process (a project of its own, after the others): this
 * one runs with the rest.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { copyFileSync, readFileSync, writeFileSync } from "node:fs";
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

  it("describes the filter from the metaindex alone; its block is read for the probes or a lookup", async () => {
    const dir = join(root, "leveldb-filter");
    await writeWithClassicLevel(dir, 2000);
    const file = tablesIn(dir, ".ldb")[0]!;
    // a copy whose filter block is damaged: describing the filter must not read it (inspect reads
    // every table's tail and nothing more; a third of its table reads on 576 LevelDB tables)
    const copy = join(root, "damaged-filter.ldb");
    copyFileSync(file, copy);
    const t0 = openTable(file);
    const handle = t0.meta("filter.leveldb.BuiltinBloomFilter2")!;
    t0.close();
    const bytes = readFileSync(copy);
    bytes[handle.offset + 1]! ^= 0xff;
    writeFileSync(copy, bytes);
    const t = openTable(copy, { verifyChecksums: true });
    try {
      expect(t.filter).toMatchObject({ kind: "bloom", blockBased: true, filterBytes: handle.size });
      expect(t.filter.numProbes).toBeUndefined();
      expect(() => t.filterInFull).toThrow(/checksum/i);
    } finally {
      t.close();
    }
    // the intact table: LevelDB's bloom(10) probes 6 times (bits_per_key × ln 2, truncated)
    const ok = openTable(file);
    try {
      expect(ok.filterInFull.numProbes).toBe(6);
      expect(ok.filter.numProbes).toBe(6);
    } finally {
      ok.close();
    }
  });
});
