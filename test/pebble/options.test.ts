/**
 * Pebble's OPTIONS in the knob model RocksDB's OPTIONS feed: the files Pebble wrote into its testdata
 * stores (tool/testdata/*-db/OPTIONS-*) and a CockroachDB store's OPTIONS from Pebble's
 * testdata/copy_checkpoint_options (bloom filters, 32 KiB blocks, a [WAL Failover] section). The text
 * of those files, as Pebble wrote it, is the oracle; `inspect` and `check` must show it, not "no
 * OPTIONS entry" / "unknown".
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { analyzeKnobs } from "../../src/analysis/knobs.js";
import { inspectDatadir } from "../../src/datadir/inspect.js";
import { pebbleOptionsModel } from "../../src/datadir/pebble_options.js";
import { parsePebbleOptions } from "../../src/datadir/pebble_store.js";
import { runCheck } from "../../src/check/index.js";
import { buildInspectReport } from "../../src/report/build.js";
import { renderInspectReport } from "../../src/report/render.js";
import { PEBBLE_FIXTURES } from "./expected.js";

const STORES = join(PEBBLE_FIXTURES, "stores");

describe("Pebble OPTIONS as RocksDB's typed options", () => {
  it("find-val-sep-db: every level's knobs, L0 triggers, value separation", () => {
    const o = parsePebbleOptions(join(STORES, "find-val-sep-db", "OPTIONS-000003"), "OPTIONS-000003");
    const m = pebbleOptionsModel(o);
    expect(m.optionsFileVersion).toBe("0.1");
    expect(m.columnFamilies).toHaveLength(1);
    const cf = m.columnFamilies[0]!;
    expect(cf.name).toBe("default");
    expect(cf.comparator).toBe("leveldb.BytewiseComparator");
    expect(cf.mergeOperator).toBe("pebble.concatenate");
    expect(cf.compression).toBe("Snappy");
    expect(cf.compressionPerLevel).toBeUndefined(); // every level Snappy: no per-level override
    expect(cf.numLevels).toBe(7);
    expect(cf.level0FileNumCompactionTrigger).toBe(4);
    expect(cf.level0StopWritesTrigger).toBe(12);
    expect(cf.writeBufferSize).toBe(4194304);
    expect(cf.targetFileSizeBase).toBe(2097152);
    expect(cf.maxBytesForLevelBase).toBe(67108864);
    expect(cf.blob).toEqual({ enableBlobFiles: true, minBlobSize: 3 });
    expect(cf.table?.filterPolicy).toEqual({ raw: "none", kind: "none" });
    expect(cf.table?.blockSize).toBe(100);
    expect(cf.table?.blockRestartInterval).toBe(16);
    expect(cf.table?.partitionFilters).toBe(false);
    expect(cf.raw['Level "6".target_file_size']).toBe("134217728");
    expect(m.db.maxOpenFiles).toBe(1000);
    expect(m.db.walDir).toBeUndefined();
  });

  it("a CockroachDB store's OPTIONS: bloom filter policy on every level, 32 KiB blocks, other sections kept", () => {
    const o = parsePebbleOptions(join(PEBBLE_FIXTURES, "options", "cockroach-OPTIONS"), "OPTIONS");
    expect(o.sections["WAL Failover"]?.["secondary_dir"]).toBe(
      "/mnt/data2/cockroach/auxiliary/wals-among-stores",
    );
    const cf = pebbleOptionsModel(o).columnFamilies[0]!;
    expect(cf.table?.filterPolicy).toMatchObject({ raw: "rocksdb.BuiltinBloomFilter", kind: "bloom" });
    expect(cf.table?.filterPolicy.bitsPerKey).toBeUndefined();
    expect(cf.table?.blockSize).toBe(32768);
    expect(cf.table?.metadataBlockSize).toBe(262144);
    expect(cf.comparator).toBe("cockroach_comparator");
    expect(cf.level0FileNumCompactionTrigger).toBe(2);
    expect(cf.level0StopWritesTrigger).toBe(1000);
    expect(cf.blob.enableBlobFiles).toBeUndefined();
  });

  it('RocksDB\'s [CFOptions "default"] is read as [Options], with comparator and merge_operator renamed', () => {
    // Pebble's options.go parseOptions, and options_test.go's CheckCompatibility case
    const dir = join(PEBBLE_FIXTURES, "options");
    const o = parsePebbleOptions(join(dir, "cfoptions-default-OPTIONS"), "OPTIONS");
    expect(o.options["comparer"]).toBe("rocksdb-comparer");
    expect(o.options["merger"]).toBe("rocksdb-merger");
  });
});

describe("inspect and check on Pebble stores read Pebble's OPTIONS", () => {
  for (const name of ["find-db", "find-val-sep-db", "mixed", "cr-schema-db", "db-stage-4"]) {
    it(`${name}: configured knobs beside the files', no drift Pebble did not cause`, async () => {
      const model = await inspectDatadir(join(STORES, name), { tableDetails: "cheap" });
      const inst = model.instances[0]!;
      expect(inst.options?.file).toMatch(/^OPTIONS-\d+$/);
      const k = analyzeKnobs(model)[0]!;
      expect(k.configured?.filter.kind).toBe("none");
      expect(k.configured?.compression).toBe("Snappy");
      // every Pebble fixture's tables were written with these options: nothing disagrees. Block size
      // aside where the tables are columnar: the fixtures' 100-byte blocks are mostly column headers,
      // so their raw key and value bytes fall below 60% of block_size (the estimate is no upper bound
      // for columnar blocks)
      const columnar = name === "find-val-sep-db";
      expect(
        k.disagreements.filter((d) => d.severity !== "info" && !(columnar && d.id === "block-size")),
      ).toEqual([]);
      const text = renderInspectReport(buildInspectReport(model));
      expect(text).not.toContain("no OPTIONS entry");
      expect(text).toMatch(/filter {2,}none /);
    });
  }

  it("check names the filter policy the OPTIONS configure (not unknown)", async () => {
    const r = await runCheck(join(STORES, "find-db"));
    const f = r.findings.find((x) => x.rule === "filters-missing")!;
    expect(f.message).toContain("OPTIONS filter_policy: none");
    expect(f.evidence["configuredFilter"]).toBe("none");
  });
});
