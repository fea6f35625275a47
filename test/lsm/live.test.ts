/**
 * One key's live value (readLiveValue: the WAL's writes first, then Version.get over the tables) against
 * the live contents of the whole column family (LiveCursor: the newest-version merge of every run) and
 * against `ldb scan` on a private copy, on a store db_bench writes: a compacted level with L0 tables on
 * top (compactions off), overwrites, point and range deletions, values in blob files, and its last
 * writes (range deletions too) left in the WAL (db_bench closes the store without flushing them). The
 * ways must agree on every key any table or the WAL holds.
 */
import { spawnSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inspectDatadir } from "../../src/datadir/inspect.js";
import type { ColumnFamilyModel, InstanceModel } from "../../src/datadir/model.js";
import { loadMemLayer, memCount, memKey } from "../../src/datadir/memtable.js";
import { openTable } from "../../src/format/table.js";
import { LiveCursor, readLiveValue } from "../../src/lsm/live.js";
import { WalLayers } from "../../src/lsm/wal_layers.js";
import { TableCache } from "../../src/lsm/table_cache.js";
import { copyInto, dbBench, trackedTempDirs } from "../helpers/index.js";

const { tempDir, cleanupTemps } = trackedTempDirs("lsmscope-live-");
let db: string;
let inst: InstanceModel;
let cf: ColumnFamilyModel;

beforeAll(async () => {
  db = `${tempDir()}/db`;
  const common = [
    "--num=2000",
    "--value_size=100",
    "--write_buffer_size=32768",
    "--target_file_size_base=32768",
    "--max_bytes_for_level_base=65536",
    "--enable_blob_files=1",
    "--min_blob_size=90",
    "--compression_type=snappy",
    "--bloom_bits=10",
    "--threads=1",
  ];
  // one compacted level, then L0 tables on top (compactions off: the shape does not depend on timing)
  dbBench(db, ["--benchmarks=fillrandom,compact", ...common]);
  dbBench(db, [
    "--use_existing_db=1",
    "--benchmarks=overwrite,deleterandom",
    "--writes=1000",
    "--deletes=200",
    "--disable_auto_compactions=1",
    "--writes_per_range_tombstone=200",
    "--range_tombstone_width=20",
    "--max_num_range_tombstones=5",
    ...common,
  ]);
  // a last round that stays in the WAL (small enough for one memtable)
  dbBench(db, [
    "--use_existing_db=1",
    "--benchmarks=overwrite,deleterandom",
    "--writes=50",
    "--deletes=20",
    "--disable_auto_compactions=1",
    "--writes_per_range_tombstone=10",
    "--range_tombstone_width=20",
    "--max_num_range_tombstones=3",
    ...common,
    "--write_buffer_size=4194304",
  ]);
  const model = await inspectDatadir(db, {});
  inst = model.instances[0]!;
  cf = inst.columnFamilies[0]!;
});

afterAll(cleanupTemps);

describe("readLiveValue", () => {
  it("answers every key as the merge of all runs and ldb scan do", () => {
    const keys = new Set<string>();
    for (const lv of cf.levels)
      for (const f of lv.files) {
        const t = openTable(f.path);
        try {
          t.scan((e) => void keys.add(e.userKeyCopy().toString("hex")));
        } finally {
          t.close();
        }
      }
    const wal = loadMemLayer(inst.wal, cf.id, { minLogNumber: cf.logNumber });
    for (let i = wal.entries.from; i < wal.entries.to; i++) keys.add(memKey(wal.entries, i).toString("hex"));
    // the shape this test needs: writes in the WAL, tables in more than one level, blob values
    expect(memCount(wal.entries)).toBeGreaterThan(0);
    expect(wal.rangeDels.length).toBeGreaterThan(0);
    expect(cf.levels.filter((l) => l.files.length > 0).length).toBeGreaterThan(1);
    expect(cf.blobFiles.length).toBeGreaterThan(0);

    const merged = new Map<string, string>();
    const c = new LiveCursor(inst, cf);
    try {
      for (let e = c.next(); e; e = c.next())
        merged.set(Buffer.from(e.key).toString("hex"), Buffer.from(e.value).toString("hex"));
    } finally {
      c.close();
    }
    const copy = copyInto(db, tempDir(), "db");
    const ldb = spawnSync("ldb", [`--db=${copy}`, "--hex", "scan"], { encoding: "utf8", timeout: 60_000 });
    const scanned = new Map<string, string>();
    for (const line of ldb.stdout.split("\n")) {
      const m = /^0x([0-9A-F]+) : 0x([0-9A-F]*)$/.exec(line.trim());
      if (m) scanned.set(m[1]!.toLowerCase(), m[2]!.toLowerCase());
    }
    expect(scanned.size).toBeGreaterThan(100);
    expect(merged).toEqual(scanned);

    const tables = new TableCache({ verifyChecksums: true });
    // the WAL replayed once for every read (identity's head is three reads of one column family)
    const layers = new WalLayers();
    let deleted = 0;
    try {
      for (const hex of keys) {
        const v = readLiveValue(inst, cf, Buffer.from(hex, "hex"), tables);
        expect(v?.toString("hex"), hex).toBe(merged.get(hex));
        expect(readLiveValue(inst, cf, Buffer.from(hex, "hex"), tables, layers)?.toString("hex"), hex).toBe(
          merged.get(hex),
        );
        if (v === undefined) deleted++;
      }
      expect(layers.of(inst, cf)).toBe(layers.of(inst, cf));
      // layers for some keys alone (the head's reads): those keys' writes, the same answers for them
      const even = (k: Uint8Array) => k.reduce((a, b) => a + b, 0) % 2 === 0;
      const some = new WalLayers({ keys: even });
      let odd: Buffer | undefined;
      for (const hex of keys) {
        const key = Buffer.from(hex, "hex");
        if (!even(key)) odd = key;
        else expect(readLiveValue(inst, cf, key, tables, some)?.toString("hex"), hex).toBe(merged.get(hex));
      }
      expect(() => readLiveValue(inst, cf, odd!, tables, some)).toThrow(/other keys/);
      expect(memCount(some.of(inst, cf).entries)).toBeGreaterThan(0);
      expect(memCount(some.of(inst, cf).entries)).toBeLessThan(memCount(layers.of(inst, cf).entries));
    } finally {
      tables.close();
    }
    expect(deleted).toBeGreaterThan(0);
    expect(keys.size - deleted).toBe(merged.size);
    expect(readLiveValue(inst, cf, Buffer.from("ff".repeat(20), "hex"))).toBeUndefined();
  });
});
