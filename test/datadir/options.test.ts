/**
 * OPTIONS parsing: the file db_bench/RocksDB writes, escaped and raw-byte column family names, nested
 * option maps, the filter policy spellings of different RocksDB versions, and bad lines.
 */
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseFilterPolicy, parseOptionMap, parseOptionsFile } from "../../src/datadir/index.js";
import { dbBench, removeDir, tempDir } from "./helpers.js";

let dir: string;
beforeAll(() => {
  dir = tempDir();
});
afterAll(() => removeDir(dir));

describe("OPTIONS files", () => {
  it("reads what RocksDB wrote: DB options, every CF with its table options, raw strings kept", () => {
    const db = join(dir, "bench");
    dbBench(db, [
      "--benchmarks=fillseq",
      "--num=100",
      "--num_column_families=2",
      "--compression_type=zstd",
      "--bloom_bits=12",
      "--block_size=8192",
      "--format_version=4",
      "--partition_index_and_filters=true",
      "--optimize_filters_for_hits=true",
      "--enable_blob_files=true",
      "--min_blob_size=512",
    ]);
    const opt = readdirSync(db)
      .filter((n) => n.startsWith("OPTIONS-"))
      .sort()
      .pop()!;
    const { model, findings } = parseOptionsFile(join(db, opt), opt);
    expect(findings).toEqual([]);
    expect(model.rocksdbVersion).toBe("7.8.3");
    expect(model.db.raw["create_if_missing"]).toBe("true");
    expect(model.columnFamilies.map((c) => c.name)).toEqual(["default", "column_family_name_000001"]);
    for (const cf of model.columnFamilies) {
      expect(cf.compression).toBe("kZSTD");
      expect(cf.optimizeFiltersForHits).toBe(true);
      expect(cf.blob.enableBlobFiles).toBe(true);
      expect(cf.blob.minBlobSize).toBe(512);
      expect(cf.compressionOpts?.["level"]).toBeDefined();
      const t = cf.table!;
      expect(t.factory).toBe("BlockBasedTable");
      expect(t.filterPolicy.kind).toBe("bloom");
      expect(t.filterPolicy.bitsPerKey).toBe(12);
      expect(t.blockSize).toBe(8192);
      expect(t.formatVersion).toBe(4);
      expect(t.indexType).toBe("kTwoLevelIndexSearch");
      expect(t.partitionFilters).toBe(true);
      expect(t.wholeKeyFiltering).toBe(true);
      expect(t.checksum).toMatch(/^k/);
      expect(t.raw["block_size"]).toBe("8192");
    }
  });

  it("unescapes section names, keeps raw bytes, strips comments, reports bad lines with offsets", () => {
    const text =
      "# comment\n[Version]\n  rocksdb_version=8.1.1\n  options_file_version=1.1\n\n" +
      "[DBOptions]\n  max_open_files=1024 # trailing comment\n  recycle_log_file_num=16\n\n" +
      '[CFOptions "default"]\n  compression=kLZ4Compression\n  compression_per_level=kNoCompression:kLZ4Compression:kZSTD\n  bottommost_compression=kZSTD\n\n' +
      '[CFOptions "a\\:b\\#c"]\n  num_levels=7\n\n' +
      '[CFOptions "\x06"]\n  write_buffer_size=1\n\n' +
      '[TableOptions/BlockBasedTable "\x06"]\n  filter_policy=ribbonfilter:10:3\n  block_size=32768\n' +
      "garbage line without equals\n";
    const p = join(dir, "OPTIONS-000042");
    writeFileSync(p, Buffer.from(text, "latin1"));
    const { model, findings } = parseOptionsFile(p, "OPTIONS-000042");
    expect(model.rocksdbVersion).toBe("8.1.1");
    expect(model.db.maxOpenFiles).toBe(1024);
    expect(model.db.recycleLogFileNum).toBe(16);
    expect(model.columnFamilies.map((c) => c.nameHex)).toEqual([
      Buffer.from("default").toString("hex"),
      Buffer.from("a:b#c").toString("hex"),
      "06",
    ]);
    expect(model.columnFamilies[1]!.name).toBe("a:b#c");
    expect(model.columnFamilies[2]!.name).toBe("06");
    const d = model.columnFamilies[0]!;
    expect(d.compressionPerLevel).toEqual(["kNoCompression", "kLZ4Compression", "kZSTD"]);
    expect(d.bottommostCompression).toBe("kZSTD");
    const t = model.columnFamilies[2]!.table!;
    expect(t.filterPolicy).toEqual({
      raw: "ribbonfilter:10:3",
      kind: "ribbon",
      bitsPerKey: 10,
      bloomBeforeLevel: 3,
    });
    expect(findings).toHaveLength(1);
    expect(findings[0]!.offset).toBe(text.indexOf("garbage line"));
    expect(findings[0]!.severity).toBe("error");
  });

  it("filter policy spellings", () => {
    expect(parseFilterPolicy("nullptr").kind).toBe("none");
    expect(parseFilterPolicy(undefined).kind).toBe("none");
    expect(parseFilterPolicy("bloomfilter:10:false")).toMatchObject({
      kind: "bloom",
      bitsPerKey: 10,
      blockBased: false,
    });
    expect(parseFilterPolicy("bloomfilter:10:true")).toMatchObject({ kind: "bloom", blockBased: true });
    expect(parseFilterPolicy("rocksdb.BuiltinBloomFilter").kind).toBe("bloom");
    expect(parseFilterPolicy("rocksdb.internal.Standard128RibbonFilter:9.5")).toMatchObject({
      kind: "ribbon",
      bitsPerKey: 9.5,
    });
    expect(parseFilterPolicy("{id=ribbonfilter:8;}")).toMatchObject({ kind: "ribbon", bitsPerKey: 8 });
    expect(parseOptionMap("{a=1;b={c=2;d=3};e=x}")).toEqual({ a: "1", b: "c=2;d=3", e: "x" });
  });
});
