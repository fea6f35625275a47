/**
 * Pebble's value blocks ((Pebble,v3)/v4 row tables): values of older key versions stored in value
 * blocks behind a handle in the data block. The only row table with value blocks in Pebble's testdata
 * is tool/testdata/cr-schema-db/000005.sst ((Pebble,v4), 24 of its 50 values in one value block); the
 * oracle is Pebble's own `db scan ./testdata/cr-schema-db` (tool/testdata/db_scan), which prints every
 * value of that store, and the table's properties.
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openTable } from "../../src/format/index.js";
import { verifyTable } from "../../src/format/verify.js";
import { computeSizes } from "../../src/sizes/compute.js";
import { PEBBLE_FIXTURES, pebbleOutput, printedValues } from "./expected.js";
import { scanValues } from "./table_values.js";

const TABLE = join(PEBBLE_FIXTURES, "tables", "pebblev4", "cr-schema-db_000005.sst");
const STORE_TABLE = join(PEBBLE_FIXTURES, "stores", "cr-schema-db", "000005.sst");

/** The values Pebble's `db scan` printed for the store, in its order. */
const pebbleScanValues = (): string[] =>
  printedValues(pebbleOutput("db_scan.txt", "db scan", "./testdata/cr-schema-db"));

describe("Pebble value blocks: cr-schema-db/000005.sst ((Pebble,v4))", () => {
  const tmp = mkdtempSync(join(tmpdir(), "lsmscope-valblk-"));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it("the fixture is the store's table, byte for byte", () => {
    expect(readFileSync(TABLE).equals(readFileSync(STORE_TABLE))).toBe(true);
  });

  it("every value, those in the value block resolved, is the one Pebble's `db scan` printed", () => {
    const want = pebbleScanValues();
    expect(want).toHaveLength(50);
    const { values, inValueBlocks } = scanValues(TABLE);
    expect(values).toEqual(want);
    const t = openTable(TABLE);
    try {
      expect(inValueBlocks).toBe(t.properties["pebble.num.values.in.value-blocks"]);
      expect(inValueBlocks).toBe(24);
    } finally {
      t.close();
    }
  });

  it("verification reads the value index and block, resolves every handle and sums the real lengths", () => {
    const t = openTable(TABLE);
    try {
      const v = verifyTable(t);
      expect(v.errors).toEqual([]);
      expect(v.ok).toBe(true);
      expect(v.summary.rawValueBytes).toBe(t.properties["rocksdb.raw.value.size"]);
      expect(v.summary.valuesInValueBlocks).toBe(24);
      // data, metaindex, index, properties, value index, value block
      expect(v.blocksVerified).toBe(6);
    } finally {
      t.close();
    }
  });

  it("a flipped byte in the value block is damage located at that block", () => {
    const t = openTable(TABLE);
    const vb = t.pebbleEntries!.valueBlocks!;
    const at = vb.handleOf(0);
    t.close();
    expect(vb.count).toBe(1);
    const bad = join(tmp, "flipped.sst");
    copyFileSync(TABLE, bad);
    const b = readFileSync(bad);
    b[at.offset + 3]! ^= 0x40;
    writeFileSync(bad, b);
    const d = openTable(bad);
    try {
      const v = verifyTable(d);
      expect(v.ok).toBe(false);
      expect(v.errors.some((e) => e.offset === at.offset && /value/.test(e.kind))).toBe(true);
      expect(() => d.scan(() => undefined)).toThrow(/value block: crc32c checksum mismatch/);
    } finally {
      d.close();
    }
  });

  it("`sizes` counts each value by the length a Get returns (16 bytes each, as `db scan` shows), not its handle", async () => {
    const want = pebbleScanValues();
    // the store's comparator is CockroachDB's, so sizes runs in sample mode (every block of 1 drawn)
    const r = await computeSizes(join(PEBBLE_FIXTURES, "stores", "cr-schema-db"), {
      mode: "sample",
      sampleBlocks: 10,
    });
    const cf = r.columnFamilies[0]!;
    expect(cf.valueSize.count).toBe(want.length);
    expect(cf.valueSize.totalBytes).toBe(want.reduce((n, v) => n + v.length / 2, 0));
    expect(cf.valueSize.min).toBe(16);
  });
});
