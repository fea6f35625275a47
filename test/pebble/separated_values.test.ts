/**
 * Values a Pebble table keeps outside its data blocks, read through the columnar tables: value blocks
 * of a (Pebble,v7) table (tool/testdata/cr-schema-sst/000014.sst, 11 of its 20 values in a value block)
 * and values separated into blob files (tool/testdata/find-val-sep-db). Oracles: Pebble's `sstable
 * scan` (the values it prints, with `--load-blobs-from` the blob values), its `manifest dump` (the value
 * bytes each blob file holds) and `blob layout` (the values of 000012.blob).
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { inspectDatadir } from "../../src/datadir/inspect.js";
import { openTable } from "../../src/format/table.js";
import { LiveCursor, readLiveValue } from "../../src/lsm/live.js";
import { TableRun } from "../../src/lsm/merge.js";
import { PebbleBlobStore, withBlobValues } from "../../src/lsm/pebble_blob_values.js";
import { uncachedTables } from "../../src/lsm/table_cache.js";
import { computeSizes } from "../../src/sizes/compute.js";
import { PEBBLE_FIXTURES, pebbleCases, pebbleOutput, printedValues } from "./expected.js";
import { scanValues } from "./table_values.js";

const V7 = join(PEBBLE_FIXTURES, "tables", "columnar", "cr-schema.v7.sst");
const VAL_SEP = join(PEBBLE_FIXTURES, "stores", "find-val-sep-db");

describe("value blocks of a columnar table", () => {
  it("cr-schema-sst/000014.sst: every value, those in the value block resolved, as Pebble's `sstable scan` printed", () => {
    const want = printedValues(
      pebbleOutput("sstable_scan.txt", "sstable scan", "./testdata/cr-schema-sst/000014.sst"),
    );
    expect(want).toHaveLength(20);
    const { values, inValueBlocks } = scanValues(V7);
    expect(values).toEqual(want);
    const t = openTable(V7);
    try {
      expect(inValueBlocks).toBe(t.properties["pebble.num.values.in.value-blocks"]);
      expect(inValueBlocks).toBe(11);
    } finally {
      t.close();
    }
  });
});

describe("values separated into blob files (find-val-sep-db)", () => {
  it("the store's live values are the blob values Pebble loads (`sstable scan --load-blobs-from`)", async () => {
    const m = await inspectDatadir(VAL_SEP, { tableDetails: "cheap" });
    const inst = m.instances[0]!;
    const c = new LiveCursor(inst, inst.columnFamilies[0]!);
    const got = new Map<string, string>();
    try {
      for (let e = c.next(); e; e = c.next())
        got.set(Buffer.from(e.key).toString("latin1"), Buffer.from(e.value).toString("hex"));
    } finally {
      c.close();
    }
    expect(got.size).toBe(36);
    for (const table of ["000005.sst", "000008.sst"]) {
      const k = pebbleCases("sstable_scan.txt").find(
        (x) =>
          x.args[0] === `./testdata/find-val-sep-db/${table}` &&
          x.args.includes("--load-blobs-from=find-val-sep-db"),
      )!;
      for (const l of k.output.split("\n").slice(1)) {
        const r = /^(.*)\\x00#\d+,SET \[([0-9a-f]*)\]$/.exec(l)!;
        expect(got.get(`${r[1]}\0`)).toBe(r[2]);
      }
    }
    // 000011.sst's keys gggN hold chickenN (blob layout of 000012.blob)
    for (let n = 0; n < 30; n++)
      expect(got.get(`ggg${n}\0`)).toBe(Buffer.from(`chicken${n}`).toString("hex"));
  });

  it("a point lookup (readLiveValue: Version.get over the tables) reads a separated value from its blob file", async () => {
    const m = await inspectDatadir(VAL_SEP, { tableDetails: "cheap" });
    const inst = m.instances[0]!;
    const cf = inst.columnFamilies[0]!;
    expect(readLiveValue(inst, cf, Buffer.from("aaa\0"))?.toString()).toBe("yuumi");
    expect(readLiveValue(inst, cf, Buffer.from("ggg29\0"))?.toString()).toBe("chicken29");
    expect(readLiveValue(inst, cf, Buffer.from("ddd\0"))?.toString()).toBe("6");
  });

  it("a lean merge run (its own table opens, small read-ahead) resolves them too", async () => {
    const m = await inspectDatadir(VAL_SEP, { tableDetails: "cheap" });
    const cf = m.instances[0]!.columnFamilies[0]!;
    const t11 = cf.levels.flatMap((l) => l.files).find((f) => f.fileName === "000011.sst")!;
    const store = new PebbleBlobStore(cf);
    const run = new TableRun(
      [{ path: t11.path }],
      undefined,
      undefined,
      { block() {} },
      withBlobValues(uncachedTables(), store),
      4096,
    );
    const got: string[] = [];
    try {
      while (run.advance())
        got.push(Buffer.from(run.data.subarray(run.vOff, run.vOff + run.vLen)).toString());
    } finally {
      run.close();
      store.close();
    }
    expect(got).toHaveLength(30);
    expect(got.slice(0, 3)).toEqual(["chicken0", "chicken1", "chicken10"]);
  });

  it("`sizes` sizes each value by the length a Get returns: the blob files' value bytes plus the one in place", async () => {
    const r = await computeSizes(VAL_SEP, { mode: "full" });
    const cf = r.columnFamilies[0]!;
    // manifest dump: vals 18 + 13 + 260 in the three blob files; `sstable scan`: ddd's value 36 ("6") in place
    expect(cf.liveKeys).toBe(36);
    expect(cf.valueSize.count).toBe(36);
    expect(cf.valueSize.totalBytes).toBe(18 + 13 + 260 + 1);
  });
});
