/**
 * Format 6 tables (XXH3 with context checksums, ZSTD with dictionary, Ribbon, data-block hash index)
 * written by @nxtedition/rocksdb, and LevelDB tables written by classic-level. sst_dump 7.8.3 reads
 * neither, so the oracle is the data we wrote: every key and value back, in order.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { join } from "node:path";
import { openTable } from "../../src/format/index.js";
import { makeTempDir, removeDir, tablesIn } from "./oracle.js";
import { checkTable } from "./check.js";
import { sampleEntries, writeWithClassicLevel, writeWithNxtedition } from "./writers.js";

const N = 20000;
let root: string;
beforeAll(() => {
  root = makeTempDir("engines");
});
afterAll(() => removeDir(root));

/** Every table's entries together equal what was written (newest version per key). */
function expectWrittenData(files: string[]): void {
  const want = new Map(sampleEntries(N).map((e) => [e.key.toString("hex"), e.value.toString("hex")]));
  const got = new Map<string, string>();
  for (const f of files) {
    const t = openTable(f);
    try {
      let prev: Buffer | undefined;
      t.scan((e) => {
        const k = e.userKeyCopy();
        if (prev) expect(Buffer.compare(prev, k)).toBeLessThanOrEqual(0);
        prev = k;
        if (!got.has(k.toString("hex"))) got.set(k.toString("hex"), e.valueCopy().toString("hex"));
      });
    } finally {
      t.close();
    }
  }
  expect(got.size).toBe(want.size);
  for (const [k, v] of want) expect(got.get(k)).toBe(v);
}

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
    expectWrittenData(files);
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
    expectWrittenData(files);
  });
});

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
    expectWrittenData(files);
  });
});
