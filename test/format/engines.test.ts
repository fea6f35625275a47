/**
 * Format 6 tables (XXH3 with context checksums, ZSTD with dictionary, Ribbon, data-block hash index)
 * written by @nxtedition/rocksdb. sst_dump 7.8.3 does not read them, so the oracle is the data we
 * wrote: every key and value back, in order. LevelDB's tables, written by classic-level:
 * leveldb_tables.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { join } from "node:path";
import { openTable } from "../../src/format/index.js";
import { makeTempDir, removeDir, tablesIn } from "./oracle.js";
import { checkTable } from "./check.js";
import { expectWrittenData, writeWithNxtedition } from "./writers.js";

const N = 20000;
let root: string;
beforeAll(() => {
  root = makeTempDir("engines");
});
afterAll(() => removeDir(root));

describe("@nxtedition/rocksdb (RocksDB 9.7.4) tables", () => {
  it("format 6, XXH3, ZSTD with dictionary, FastLocalBloom", async () => {
    const dir = join(root, "nx-bloom");
    await writeWithNxtedition(dir, N);
    const files = tablesIn(dir);
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) {
      checkTable(f, {
        formatVersion: 6,
        checksum: "xxh3",
        compression: "ZSTD",
        filterKind: "fastbloom",
        noSstDump: true,
      });
      const t = openTable(f);
      try {
        expect(t.footer.baseContextChecksum).not.toBe(0);
        expect(t.footer.indexHandle).toBeUndefined();
        expect(t.meta("rocksdb.index")).toBeDefined();
        expect(t.meta("rocksdb.compression_dict")).toBeDefined();
      } finally {
        t.close();
      }
    }
    expectWrittenData(files, N);
  });

  it("format 6 with Ribbon everywhere and the data-block hash index", async () => {
    const dir = join(root, "nx-ribbon");
    await writeWithNxtedition(dir, N, { filterPolicy: "ribbonfilter:10:-1", optimize: "point-lookup" });
    const files = tablesIn(dir);
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) {
      checkTable(f, { formatVersion: 6, filterKind: "ribbon", noSstDump: true });
      const t = openTable(f);
      try {
        const first = t.indexEntries()[0]!;
        expect(t.readDataBlock(first.handle).hasHashIndex).toBe(true);
      } finally {
        t.close();
      }
    }
    expectWrittenData(files, N);
  });
});
