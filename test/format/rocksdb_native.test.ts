/**
 * A store RocksDB 10.5.1 wrote (test/fixtures/rocksdb-native: the npm package rocksdb-native, table
 * format_version 7, a column family with blob files, writes left in the WAL), read against that
 * program's own view of it (view.json: its iterator's live keys and values, counted and hashed, printed
 * by the script that wrote the store). RocksDB 7.8.3's tools cannot read format_version 7, so the writer
 * is the oracle here. Until session 52 `inspect` showed the tables' compression as the property's raw
 * ";;" (format 7 writes `<compression manager>;<types used>;`) and flagged it against the OPTIONS.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { inspectDatadir } from "../../src/datadir/inspect.js";
import { computeSizes } from "../../src/sizes/compute.js";
import { tableCompressionName } from "../../src/base/compression_type.js";
import { REPO, snapshotTree } from "../helpers/index.js";
import { liveView, probeFound } from "../helpers/live_view.js";

const STORE = join(REPO, "test", "fixtures", "rocksdb-native", "fv7-blob");
interface CfView {
  entries: number;
  keyBytes: number;
  valueBytes: number;
  sha256: string;
}
const view = JSON.parse(readFileSync(join(STORE, "..", "view.json"), "utf8")) as Record<string, CfView>;

describe("the compression a table states (rocksdb.compression)", () => {
  it("format 7's `<manager>;<types>;` read as the types used; older formats' names as they stand", () => {
    expect(tableCompressionName(";;", 7)).toBe("NoCompression");
    expect(tableCompressionName("BuiltinV2;;", 7)).toBe("NoCompression");
    expect(tableCompressionName("BuiltinV2;04;", 7)).toBe("LZ4");
    expect(tableCompressionName("BuiltinV2;0407;future;", 7)).toBe("LZ4+ZSTD");
    expect(tableCompressionName("LZ4", 6)).toBe("LZ4");
    expect(tableCompressionName(undefined, 7)).toBeUndefined();
    // not of the form: given as it stands
    for (const v of ["LZ4", ";4;", ";zz;", "x;04"]) expect(tableCompressionName(v, 7)).toBe(v);
  });
});

describe("a RocksDB 10.5.1 store (format_version 7, blob files, a live WAL)", () => {
  const before = snapshotTree(STORE);

  it("inspect: written by RocksDB 10.5.1, every table format 7 and NoCompression, no error or warning", async () => {
    const m = await inspectDatadir(STORE, { tableDetails: "cheap" });
    const inst = m.instances[0]!;
    expect(inst.options?.rocksdbVersion).toBe("10.5.1");
    const problems = [...m.findings, ...inst.findings].filter((f) => f.severity !== "info");
    expect(problems).toEqual([]);
    const tables = inst.columnFamilies.flatMap((cf) => cf.levels.flatMap((l) => l.files));
    expect(tables.length).toBeGreaterThan(0);
    for (const t of tables) {
      expect(t.details?.formatVersion, t.fileName).toBe(7);
      expect(t.details?.compression, t.fileName).toBe("NoCompression");
    }
    expect(inst.columnFamilies.find((c) => c.displayName === "state")!.blobFiles.length).toBeGreaterThan(0);
  });

  it("sizes --full: each column family's live keys, key bytes and value bytes as the writer counted them", async () => {
    const r = await computeSizes(STORE, { mode: "full" });
    for (const name of ["default", "state"]) {
      const cf = r.columnFamilies.find((c) => c.name === name)!;
      expect(cf.liveKeys, name).toBe(view[name]!.entries);
      expect(cf.keySize.totalBytes, name).toBe(view[name]!.keyBytes);
      expect(cf.valueSize.totalBytes, name).toBe(view[name]!.valueBytes);
    }
    expect(r.incomplete ?? []).toEqual([]);
  });

  it("the live keys and values (tables, blob files and the WAL merged) hash as the writer's iterator's", async () => {
    const inst = (await inspectDatadir(STORE, { tableDetails: "cheap" })).instances[0]!;
    for (const name of ["default", "state"]) {
      const cf = inst.columnFamilies.find((c) => c.displayName === name)!;
      expect(liveView(inst, cf).sha256, name).toBe(view[name]!.sha256);
    }
  });

  it("probe's reader path finds every live key of the blob column family; nothing is written", async () => {
    const inst = (await inspectDatadir(STORE, { tableDetails: "cheap" })).instances[0]!;
    const { keys } = liveView(
      inst,
      inst.columnFamilies.find((x) => x.displayName === "state")!,
    );
    expect(keys.length).toBe(view.state!.entries);
    expect(probeFound(STORE, "state", keys)).toEqual({ lookups: keys.length, found: keys.length });
    expect(snapshotTree(STORE)).toEqual(before);
  });
});
