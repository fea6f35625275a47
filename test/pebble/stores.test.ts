/**
 * Pebble's own stores (test/fixtures/pebble/stores, from Pebble's testdata): the live files per level
 * against Pebble's expected `manifest dump` and `db lsm` outputs and RocksDB's `ldb manifest_dump`
 * where it can parse the MANIFEST; WAL records against Pebble's `wal dump`; geth recognition only with
 * geth evidence; nothing written.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inspectDatadir } from "../../src/datadir/inspect.js";
import type { DatadirModel, InstanceModel } from "../../src/datadir/model.js";
import { copyInto, snapshotTree, trackedTempDirs } from "../helpers/index.js";
import { ldbManifest } from "../datadir/helpers.js";
import { dumpedVersion, PEBBLE_FIXTURES, pebbleCases, pebbleOutput } from "./expected.js";
import { loadLiveWal, WalLayers } from "../../src/lsm/wal_layers.js";
import { memCount } from "../../src/datadir/memtable.js";
import { ValueType } from "../../src/base/internal_key.js";

const STORES = join(PEBBLE_FIXTURES, "stores");
const { tempDir, cleanupTemps } = trackedTempDirs("lsmscope-pebble-");
afterAll(cleanupTemps);

const only = (m: DatadirModel): InstanceModel => {
  expect(m.instances).toHaveLength(1);
  return m.instances[0]!;
};

const models: Record<string, DatadirModel> = {};
const NAMES = ["db-stage-2", "db-stage-4", "find-db", "mixed", "find-val-sep-db", "cr-schema-db"];
beforeAll(async () => {
  for (const n of NAMES) models[n] = await inspectDatadir(join(STORES, n), { tableDetails: "cheap" });
});

function liveTables(inst: InstanceModel) {
  return inst.columnFamilies
    .flatMap((cf) => cf.levels)
    .flatMap((l) =>
      l.files.map((f) => ({
        level: l.level,
        fileNumber: f.fileNumber,
        size: f.fileSize,
        smallestSeqno: f.smallestSeqno,
        largestSeqno: f.largestSeqno,
      })),
    )
    .sort((a, b) => a.fileNumber - b.fileNumber);
}

describe("Pebble stores: the version Pebble's `manifest dump` prints", () => {
  const cases: [string, string][] = [
    ["db-stage-2", "../testdata/db-stage-2/MANIFEST-000001"],
    ["db-stage-4", "../testdata/db-stage-4/MANIFEST-000006"],
    ["find-db", "./testdata/find-db/MANIFEST-000001"],
    ["mixed", "./testdata/mixed/MANIFEST-000001"],
    ["find-val-sep-db", "./testdata/find-val-sep-db/MANIFEST-000001"],
  ];
  for (const [name, pebblePath] of cases) {
    it(`${name}: live tables per level, sizes, seqnos; last sequence, next file, log number`, () => {
      const want = dumpedVersion(pebbleOutput("manifest_dump.txt", "manifest dump", pebblePath));
      const inst = only(models[name]!);
      expect(inst.engine).toBe("pebble");
      expect(inst.readable).toBe(true);
      expect(inst.current).toBe(pebblePath.split("/").pop());
      expect(liveTables(inst)).toEqual([...want.tables].sort((a, b) => a.fileNumber - b.fileNumber));
      expect(inst.manifest!.lastSequence).toBe(want.lastSeqNum);
      expect(inst.manifest!.nextFileNumber).toBe(want.nextFileNum);
      expect(inst.manifest!.logNumber).toBe(want.logNum);
      expect(inst.columnFamilies[0]!.comparator).toBe(want.comparer);
      expect(inst.findings.filter((f) => f.severity === "error" && f.code.startsWith("manifest"))).toEqual(
        [],
      );
    });
  }

  it("find-val-sep-db: the blob files Pebble lists are the ones the MANIFEST keeps", () => {
    const out = pebbleOutput(
      "manifest_dump.txt",
      "manifest dump",
      "./testdata/find-val-sep-db/MANIFEST-000001",
    );
    const version = out.slice(out.indexOf("\nEOF\n"));
    const blobs = [...version.matchAll(/B\d+ physical:\{\d+ size:\[(\d+) /g)].map((m) => Number(m[1]));
    const inst = only(models["find-val-sep-db"]!);
    expect(inst.totals.blobFiles).toBe(blobs.length);
    expect(inst.totals.blobFileBytes).toBe(blobs.reduce((a, b) => a + b, 0));
    expect(inst.unreferencedBlobFiles).toEqual([]);
  });

  it("mixed: the table with range keys keeps its overall bounds (NewFile5)", () => {
    const f = only(models["mixed"]!).columnFamilies[0]!.levels[0]!.files[0]!;
    // "000005:[a#38,RANGEKEYDEL-z@1#35,SET]": smallest is the range key a#38, largest the point z@1#35
    expect(Buffer.from(f.smallestKey, "hex").toString()).toBe("a");
    expect(f.smallest.seqno).toBe(38);
    expect(Buffer.from(f.largestKey, "hex").toString()).toBe("z@1");
    expect(f.largest.seqno).toBe(35);
  });
});

describe("Pebble stores: `db lsm` and `ldb manifest_dump`", () => {
  it("db-stage-4: tables and bytes per level as `db lsm` prints them", () => {
    const out = pebbleOutput("db_lsm.txt", "db lsm", "../testdata/db-stage-4");
    const rows = [...out.matchAll(/^\s+L(\d)\s+(\d+)B \|\s+(\d+)\s+(\d+)B/gm)].map((m) => ({
      level: Number(m[1]),
      tables: Number(m[3]),
      bytes: Number(m[4]),
    }));
    expect(rows.length).toBeGreaterThan(0);
    const levels = only(models["db-stage-4"]!).columnFamilies[0]!.levels;
    for (const r of rows) {
      expect(levels[r.level]!.files.length).toBe(r.tables);
      expect(levels[r.level]!.bytes).toBe(r.bytes);
    }
  });

  // RocksDB 7.8.3 still parses these three (not mixed: NewFile5; not find-val-sep-db: blob references)
  for (const [name, manifest] of [
    ["db-stage-4", "MANIFEST-000006"],
    ["find-db", "MANIFEST-000001"],
    ["cr-schema-db", "MANIFEST-000001"],
  ]) {
    it(`${name}: the same live files as ldb manifest_dump (run on a copy)`, () => {
      const copy = copyInto(join(STORES, name!), tempDir());
      const oracle = ldbManifest({ path: join(copy, manifest!) });
      const inst = only(models[name!]!);
      expect(inst.manifest!.lastSequence).toBe(oracle.lastSequence);
      const cf = inst.columnFamilies[0]!;
      expect(cf.logNumber).toBe(oracle.cfs[0]!.logNumber);
      const mine = cf.levels.flatMap((l) =>
        l.files.map((f) => ({
          level: l.level,
          fileNumber: f.fileNumber,
          fileSize: f.fileSize,
          smallestKey: f.smallestKey,
          largestKey: f.largestKey,
          smallestSeqno: f.smallestSeqno,
          largestSeqno: f.largestSeqno,
        })),
      );
      expect(mine).toEqual(
        oracle.cfs[0]!.files.map((f) => ({
          level: f.level,
          fileNumber: f.fileNumber,
          fileSize: f.fileSize,
          smallestKey: f.smallestKey,
          largestKey: f.largestKey,
          smallestSeqno: f.smallestSeqno,
          largestSeqno: f.largestSeqno,
        })),
      );
    });
  }
});

describe("Pebble stores: format major version, OPTIONS, tables", () => {
  it("the format-version marker and Pebble's OPTIONS are read", () => {
    const inst = only(models["find-val-sep-db"]!);
    // marker.format-version.000011.024
    expect(inst.pebble!.formatMajorVersion).toBe(24);
    expect(inst.pebble!.formatMajorVersionName).toBe("FormatV2BlobFiles");
    expect(inst.pebble!.options!.pebbleVersion).toBe("0.1");
    expect(inst.pebble!.options!.options["format_major_version"]).toBe("24");
    expect(inst.pebble!.options!.levels[6]!["compression"]).toBe("Snappy");
  });

  it("row and columnar tables are read (formats and entries as their footers and properties say)", () => {
    const rows = only(models["cr-schema-db"]!).columnFamilies[0]!.levels.flatMap((l) => l.files);
    expect(rows.map((f) => f.details?.error)).toEqual([undefined]);
    const inst = only(models["find-val-sep-db"]!);
    expect(inst.findings.filter((f) => f.code === "sst-unreadable")).toEqual([]);
    const col = inst.columnFamilies[0]!.levels.flatMap((l) => l.files);
    // (Pebble,v7) columnar tables; entries per Pebble's `sstable scan` of the store: 4, 2 and 30
    expect(col.map((f) => [f.fileName, f.details?.formatVersion, f.details?.numEntries]).sort()).toEqual([
      ["000005.sst", 7, 4],
      ["000008.sst", 7, 2],
      ["000011.sst", 7, 30],
    ]);
  });
});

describe("Pebble WALs against Pebble's `wal dump`", () => {
  const cases: [string, string, string][] = [
    ["db-stage-2", "000002.log", "../testdata/db-stage-2/000002.log"],
    ["db-stage-4", "000005.log", "../testdata/db-stage-4/000005.log"],
    ["mixed", "000004.log", "./testdata/mixed/000004.log"],
  ];
  for (const [store, file, pebblePath] of cases) {
    it(`${store} ${file}: records, sequence numbers, sets and deletes`, () => {
      // the first case that dumps this WAL (some cases add key/value formatting flags)
      const out = pebbleCases("wal_dump.txt").find(
        (k) => k.command === "wal dump" && k.args[0] === pebblePath,
      )!.output;
      const recs = [...out.matchAll(/^\d+\(\d+\) seq=(\d+) count=(\d+)/gm)].map((m) => ({
        seq: Number(m[1]),
        count: Number(m[2]),
      }));
      const w = only(models[store]!).wal.find((x) => x.file === file)!;
      expect(w.records).toBe(recs.length);
      expect(w.firstSeq).toBe(recs[0]!.seq);
      const last = recs[recs.length - 1]!;
      expect(w.lastSeq).toBe(last.seq + last.count - 1);
      expect(w.ops.put).toBe((out.match(/^\s+SET\(/gm) ?? []).length);
      expect(w.ops.delete).toBe((out.match(/^\s+DEL\(/gm) ?? []).length);
    });
  }
  // the live layer that diff, compact's digests and the chain head's reads go through (lsm/wal_layers.ts)
  // replayed Pebble's WALs as RocksDB's: mixed's threw on its range-key kinds ("unknown WriteBatch tag
  // 0x14"), and find-val-sep-db's WAL-sync chunks gave no writes at all
  for (const [store, file, pebblePath] of cases) {
    it(`${store} ${file}: the live WAL layer holds the sets and deletes \`wal dump\` lists`, () => {
      const out = pebbleCases("wal_dump.txt").find(
        (k) => k.command === "wal dump" && k.args[0] === pebblePath,
      )!.output;
      const inst = only(models[store]!);
      expect(inst.wal.find((x) => x.file === file)!.live).toBe(true);
      const layer = loadLiveWal(inst, inst.columnFamilies[0]!);
      expect(layer.undecodable).toBe(0);
      const e = layer.entries;
      const types = Array.from(e.type.subarray(e.from, e.to));
      expect(types.filter((t) => t === ValueType.Value).length).toBe((out.match(/^\s+SET\(/gm) ?? []).length);
      expect(types.filter((t) => t === ValueType.Deletion).length).toBe(
        (out.match(/^\s+DEL\(/gm) ?? []).length,
      );
      expect(types.length).toBe((out.match(/^\s+(SET|DEL)\(/gm) ?? []).length);
    });
  }
  it("find-val-sep-db 000007.log: its WAL-sync chunks' 30 writes, in a layer that takes that WAL", () => {
    const inst = only(models["find-val-sep-db"]!);
    const layers = new WalLayers({ wants: (_cf, w) => w.file === "000007.log" });
    const layer = layers.of(inst, inst.columnFamilies[0]!);
    // the model's scan of it (30 records) and the table it was flushed to (000011.sst, 30 entries)
    expect(memCount(layer.entries)).toBe(30);
    expect(layer.undecodable).toBe(0);
  });
  it("mixed: Pebble's range-key batch kinds decode, every record's count matches", () => {
    expect(only(models["mixed"]!).findings.filter((f) => f.code.startsWith("wal-batch"))).toEqual([]);
  });
  it("find-val-sep-db 000007.log: WAL-sync chunks (format major version 24) read without damage", () => {
    const inst = only(models["find-val-sep-db"]!);
    expect(inst.wal.find((x) => x.file === "000007.log")!.records).toBe(30);
    expect(inst.findings.filter((f) => f.code.startsWith("wal-") && f.severity !== "info")).toEqual([]);
  });
});

describe("a Pebble store is geth only with geth evidence", () => {
  it("without evidence: generic (and the datadir is not called geth)", () => {
    const m = models["db-stage-4"]!;
    expect(only(m).client).toBe("generic");
    expect(m.client.kind).toBe("generic");
  });
  it("placed as geth/chaindata with ancient/ inside: geth", async () => {
    const root = tempDir();
    const chain = copyInto(join(STORES, "db-stage-4"), join(root, "geth"), "chaindata");
    mkdirSync(join(chain, "ancient", "chain"), { recursive: true });
    const m = await inspectDatadir(root);
    expect(only(m).client).toBe("geth");
    expect(m.client.kind).toBe("geth");
  });
  it("as geth/chaindata beside ancient/: geth; as geth/chaindata without ancient/: generic", async () => {
    const a = tempDir();
    copyInto(join(STORES, "db-stage-4"), join(a, "geth"), "chaindata");
    expect(only(await inspectDatadir(a)).client).toBe("generic");
    mkdirSync(join(a, "geth", "ancient"));
    expect(only(await inspectDatadir(a)).client).toBe("geth");
  });
});

describe("read-only", () => {
  it("inspect, on every store, writes nothing", async () => {
    const before = snapshotTree(STORES);
    for (const n of NAMES) await inspectDatadir(join(STORES, n), { tableDetails: "cheap" });
    expect(snapshotTree(STORES)).toEqual(before);
  });
});
