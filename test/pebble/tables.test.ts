/**
 * Pebble's own tables (test/fixtures/pebble/tables, copied from Pebble's testdata and its history):
 * totals against each table's properties, the format against its footer, the Hamlet tables against
 * h.txt (1,710 words, one entry each), and Pebble's expected `sstable properties|check` outputs.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openTable } from "../../src/format/index.js";
import { describeTable } from "../../src/report/sst.js";
import { LsmscopeError } from "../../src/util/errors.js";
import { compareProperties, sstDumpPropertiesAndScan } from "../format/oracle.js";
import { PEBBLE_FIXTURES, pebbleOutput, propertiesSummary } from "./expected.js";

const TABLES = join(PEBBLE_FIXTURES, "tables");
const tablesIn = (dir: string) =>
  readdirSync(join(TABLES, dir))
    .sort()
    .map((f) => join(TABLES, dir, f));

/** The 1,710 words of h.txt ("count word" lines): the Hamlet tables' keys, counts as values. */
const HAMLET = readFileSync(join(PEBBLE_FIXTURES, "h.txt"), "latin1")
  .split("\n")
  .filter((l) => l.trim() !== "")
  .map((l) => {
    const [count, word] = l.trim().split(/\s+/);
    return { word: word!, count: count! };
  });

/** Footer version of a table file: the 4 bytes before the 8-byte magic. */
function footerVersion(file: string): number {
  const b = readFileSync(file);
  return b.readUInt32LE(b.length - 12);
}

const num = (v: unknown) => (typeof v === "number" ? v : 0);

function checkTotals(file: string) {
  const t = openTable(file, { verifyChecksums: true });
  try {
    const s = t.scan();
    const p = t.properties;
    expect(s.entries).toBe(p["rocksdb.num.entries"]);
    expect(s.rawKeyBytes).toBe(p["rocksdb.raw.key.size"]);
    expect(s.rawValueBytes).toBe(p["rocksdb.raw.value.size"]);
    expect(s.rangeDeletions).toBe(num(p["rocksdb.num.range-deletions"]));
    expect(s.deletions).toBe(p["rocksdb.deleted.keys"]);
    expect(s.mergeOperands).toBe(num(p["rocksdb.merge.operands"]));
    expect(s.dataBlocks).toBe(p["rocksdb.num.data.blocks"]);
    expect(s.dataBlockBytes + s.dataBlocks * 5).toBe(p["rocksdb.data.size"]);
    const rk = s.rangeKeys ?? { sets: 0, unsets: 0, deletes: 0 };
    expect(rk.sets).toBe(num(p["pebble.num.range-key-sets"] ?? p["rocksdb.num.range-key-sets"]));
    expect(rk.unsets).toBe(num(p["pebble.num.range-key-unsets"] ?? p["rocksdb.num.range-key-unsets"]));
    expect(rk.deletes).toBe(num(p["pebble.num.range-key-dels"] ?? p["rocksdb.num.range-key-dels"]));
    t.verifyAllBlocks();
    return { t, s };
  } finally {
    t.close();
  }
}

describe("Pebble row tables", () => {
  for (const file of [...tablesIn("pebblev1"), ...tablesIn("pebblev4")]) {
    it(`${file.slice(TABLES.length + 1)}: format from the footer, totals equal the properties`, () => {
      const { t } = checkTotals(file);
      expect(t.format).toBe("pebble");
      expect(t.formatVersion).toBe(footerVersion(file));
      expect(t.pebbleFormat).toBe(`(Pebble,v${footerVersion(file)})`);
    });
  }
  for (const file of tablesIn("rocksdbv2")) {
    it(`${file.slice(TABLES.length + 1)} (RocksDB format version 2): totals equal the properties`, () => {
      const { t } = checkTotals(file);
      expect(t.format).toBe("block-based");
      expect(t.formatVersion).toBe(2);
    });
  }
  it("leveldb/h.ldb (LevelDB format written by Pebble): totals equal the properties", () => {
    const { t } = checkTotals(join(TABLES, "leveldb", "h.ldb"));
    expect(t.footer.magic).toBe("legacy");
  });
});

describe("Pebble's RocksDB-format Hamlet tables against sst_dump (properties, scan)", () => {
  // (RocksDB 7.8.3's sst_dump does not open the LevelDB-format h.ldb: "not a valid SST file")
  for (const file of tablesIn("rocksdbv2")) {
    it(file.slice(TABLES.length + 1), () => {
      const t = openTable(file);
      try {
        const dumped = sstDumpPropertiesAndScan(file);
        expect(compareProperties(t, dumped.props)).toEqual([]);
        const s = t.scan();
        const d = dumped.scan;
        expect(s.dataEntries).toBe(d.entries);
        expect(s.firstKey?.toString("hex")).toBe(d.firstKey);
        expect(s.lastKey?.toString("hex")).toBe(d.lastKey);
      } finally {
        t.close();
      }
    });
  }
});

describe("Hamlet tables hold h.txt: 1,710 words, one entry each", () => {
  const hamlet = [
    ...tablesIn("pebblev1").filter((f) => /h-|hamlet/.test(f)),
    ...tablesIn("rocksdbv2"),
    join(TABLES, "leveldb", "h.ldb"),
  ];
  for (const file of hamlet) {
    it(file.slice(TABLES.length + 1), () => {
      const t = openTable(file);
      try {
        const words: string[] = [];
        const values: string[] = [];
        const s = t.scan(
          (e) => {
            words.push(e.key.toString("latin1", 0, e.userKeyLength));
            values.push(e.data.toString("latin1", e.valueOffset, e.valueOffset + e.valueLength));
          },
          { rangeDeletions: false },
        );
        expect(s.dataEntries).toBe(1710);
        expect(words).toEqual(HAMLET.map((h) => h.word));
        expect(values).toEqual(HAMLET.map((h) => h.count));
        // every word passes the table's filter (no false negatives), and point lookups find it
        for (const h of HAMLET.slice(0, 200)) {
          expect(t.mayContain(Buffer.from(h.word))).not.toBe(false);
          const g = t.get(Buffer.from(h.word));
          expect(g.found).toBe(true);
          expect(g.value?.toString("latin1")).toBe(h.count);
        }
      } finally {
        t.close();
      }
    });
  }
});

describe("against Pebble's `sstable properties` and `sstable check` outputs", () => {
  const cases: [string, string][] = [
    ["../sstable/testdata/hamlet-sst/000002.sst", "pebblev1/hamlet-sst_000002.sst"],
    [
      "../sstable/testdata/h-no-compression-two-level-index-sst/000003.sst",
      "pebblev1/h-no-compression-two-level-index-sst_000003.sst",
    ],
    ["testdata/mixed/000005.sst", "pebblev4/mixed_000005.sst"],
  ];
  for (const [pebblePath, fixture] of cases) {
    it(`${fixture}: format, records by kind, blocks and compression as Pebble printed them`, () => {
      const want = propertiesSummary(
        pebbleOutput("sstable_properties.txt", "sstable properties", pebblePath),
      );
      const r = describeTable(join(TABLES, fixture), { scan: true });
      const s = r.scan!;
      expect(r.pebbleFormat).toBe(want.get("format"));
      expect(String(s.entries)).toBe(want.get("records"));
      expect(String(s.dataEntries - s.deletions + s.rangeDeletions - s.mergeOperands)).toBe(
        want.get("records.set"),
      );
      expect(String(s.rangeDeletions)).toBe(want.get("records.range-delete"));
      expect(String(s.mergeOperands)).toBe(want.get("records.merge"));
      expect(String(s.rangeKeys?.sets ?? 0)).toBe(want.get("records.range-key-set"));
      expect(String(s.rangeKeys?.unsets ?? 0)).toBe(want.get("records.range-key-unset"));
      expect(String(s.rangeKeys?.deletes ?? 0)).toBe(want.get("records.range-key-delete"));
      expect(String(s.dataBlocks)).toBe(want.get("size.data.blocks"));
      expect(r.compression).toBe(want.get("compression"));
      expect(r.properties["rocksdb.comparator"]).toBe(want.get("index.key")?.split(/\s+/).pop());
    });
  }

  it("two-level index table: every property Pebble lists (-v) under its on-disk name and value", () => {
    const out = pebbleOutput(
      "sstable_properties.txt",
      "sstable properties",
      "../sstable/testdata/h-no-compression-two-level-index-sst/000003.sst",
      ["-v"],
    );
    const r = describeTable(join(TABLES, "pebblev1", "h-no-compression-two-level-index-sst_000003.sst"));
    const lines = out.split("\n").slice(1);
    expect(lines.length).toBeGreaterThan(10);
    for (const line of lines) {
      const [name, value] = line.split(/: (.*)/);
      const ours = r.properties[name!];
      if (name === "rocksdb.block.based.table.index.type") {
        expect(r.indexType).toBe("two-level"); // Pebble prints the fixed32 as a number (2)
        expect(value).toBe("2");
      } else expect(String(ours)).toBe(value);
    }
  });

  it("the hamlet table passes Pebble's check and ours (checksums and key order)", () => {
    expect(
      pebbleOutput("sstable_check.txt", "sstable check", "../sstable/testdata/hamlet-sst/000002.sst"),
    ).toBe("000002.sst");
    const r = describeTable(join(TABLES, "pebblev1", "hamlet-sst_000002.sst"), { verify: true });
    expect(r.verify).toMatchObject({ ok: true, checksums: true, keyOrderChecked: true, errors: [] });
  });

  it("out-of-order keys: Pebble warns, --verify fails naming a Pebble table's entries", () => {
    const want = pebbleOutput("sstable_check.txt", "sstable check", "testdata/out-of-order-sst/000001.sst");
    expect(want).toContain("c#0,SET >= b#0,SET");
    const file = join(TABLES, "damaged", "out-of-order.sst");
    // --verify reports the damage (exit 2 in the CLI) instead of throwing: the data block at offset 0
    const v = describeTable(file, { verify: true }).verify;
    expect(v?.ok).toBe(false);
    expect(v?.errors).toEqual([
      expect.objectContaining({ offset: 0, kind: "data", message: expect.stringMatching(/out of order/) }),
    ]);
    expect(describeTable(file, { scan: true }).scan?.entries).toBe(3); // without --verify it reads
  });

  it("a flipped block: the same block, offset and checksums as Pebble's check", () => {
    const want = pebbleOutput("sstable_check.txt", "sstable check", "testdata/corrupted-sst/000003.sst");
    const m = /block (\d+)\/(\d+): crc32c checksum mismatch ([0-9a-f]+) != ([0-9a-f]+)/.exec(want)!;
    let err: LsmscopeError | undefined;
    try {
      describeTable(join(TABLES, "damaged", "corrupted.sst"), { verify: true });
    } catch (e) {
      err = e as LsmscopeError;
    }
    expect(err).toBeInstanceOf(LsmscopeError);
    expect(err!.offset).toBe(Number(m[1]));
    expect(err!.message).toContain("Pebble table");
    expect(err!.message).toContain(
      `stored ${parseInt(m[3]!, 16)}, computed ${parseInt(m[4]!, 16)}, size ${m[2]}`,
    );
  });

  it("a bad magic number is refused as Pebble refuses it", () => {
    const want = pebbleOutput("sstable_check.txt", "sstable check", "testdata/bad-magic-sst/000015.sst");
    const magic = /bad magic number: 0x([0-9a-f]+)/.exec(want)![1]!;
    // Pebble prints the magic's bytes in file order; lsmscope the little-endian number
    const le = Buffer.from(magic, "hex").reverse().toString("hex");
    expect(() => openTable(join(TABLES, "damaged", "bad-magic.sst"))).toThrow(`0x${le}`);
  });
});

// columnar tables ((Pebble,v5)+): columnar.test.ts
