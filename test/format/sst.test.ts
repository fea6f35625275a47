/**
 * Tables written by RocksDB 7.8.3's db_bench with many option combinations, read by the pure-TS reader
 * and compared against sst_dump.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { dbBench, ldbLoad, makeTempDir, removeDir } from "./oracle.js";
import { checkTable, type Expectations } from "./check.js";

let root: string;
beforeAll(() => {
  root = makeTempDir("sst");
});
afterAll(() => removeDir(root));

interface Case {
  name: string;
  flags: string[];
  want: Expectations;
  options?: string;
}

/** An OPTIONS file for db_bench (--options_file replaces its table and compression flags). */
function optionsFile(cf: string, table: string): string {
  return `[Version]
  rocksdb_version=7.8.3
  options_file_version=1.1
[DBOptions]
  create_if_missing=true
[CFOptions "default"]
${cf}
[TableOptions/BlockBasedTable "default"]
${table}
`;
}

const cases: Case[] = [
  {
    name: "lz4 f5 bloom",
    flags: ["--compression_type=lz4", "--format_version=5", "--bloom_bits=10"],
    want: {
      compression: "LZ4",
      formatVersion: 5,
      checksum: "xxh3",
      filterKind: "fastbloom",
      indexType: "binary-search",
    },
  },
  // RocksDB's ribbon policy builds Bloom for flushes (bloom_before_level 0): the marker byte tells
  {
    name: "ribbon policy, flushed: FastLocalBloom",
    flags: ["--compression_type=snappy", "--use_ribbon_filter=1", "--bloom_bits=10"],
    want: { compression: "Snappy", filterKind: "fastbloom" },
  },
  {
    name: "snappy ribbon (bloom_before_level -1)",
    flags: [],
    options: optionsFile(
      "  compression=kSnappyCompression",
      "  filter_policy=ribbonfilter:10:-1\n  format_version=5",
    ),
    want: { compression: "Snappy", filterKind: "ribbon" },
  },
  {
    name: "zlib f2 crc32c legacy bloom",
    flags: ["--compression_type=zlib", "--format_version=2", "--checksum_type=1", "--bloom_bits=10"],
    want: { compression: "Zlib", formatVersion: 2, checksum: "crc32c", filterKind: "bloom" },
  },
  {
    name: "lz4 f3 xxhash",
    flags: ["--compression_type=lz4", "--format_version=3", "--checksum_type=2", "--bloom_bits=10"],
    want: { formatVersion: 3, checksum: "xxhash", filterKind: "bloom" },
  },
  {
    name: "none f4 xxhash64",
    flags: ["--compression_type=none", "--format_version=4", "--checksum_type=3", "--bloom_bits=10"],
    want: { compression: "NoCompression", formatVersion: 4, checksum: "xxhash64", filterKind: "bloom" },
  },
  {
    name: "zstd partitioned index and filters",
    flags: [
      "--compression_type=zstd",
      "--partition_index_and_filters=1",
      "--bloom_bits=10",
      "--block_size=1024",
      "--metadata_block_size=512",
    ],
    want: { compression: "ZSTD", indexType: "two-level", partitionedFilter: true, filterKind: "fastbloom" },
  },
  {
    name: "zstd partitioned ribbon",
    flags: [],
    options: optionsFile(
      "  compression=kZSTD",
      "  filter_policy=ribbonfilter:12:-1\n  index_type=kTwoLevelIndexSearch\n  partition_filters=true\n  metadata_block_size=1024\n  block_size=2048\n  format_version=5",
    ),
    want: { compression: "ZSTD", indexType: "two-level", partitionedFilter: true, filterKind: "ribbon" },
  },
  {
    name: "zstd dictionary",
    flags: [
      "--compression_type=zstd",
      "--compression_max_dict_bytes=16384",
      "--compression_zstd_max_train_bytes=65536",
      "--bloom_bits=10",
    ],
    want: { compression: "ZSTD" },
  },
  {
    name: "lz4 dictionary",
    flags: ["--compression_type=lz4", "--compression_max_dict_bytes=8192", "--bloom_bits=10"],
    want: { compression: "LZ4" },
  },
  {
    name: "data block hash index",
    flags: ["--compression_type=lz4", "--use_data_block_hash_index=1", "--bloom_bits=10"],
    want: {},
  },
  {
    name: "16 KiB blocks no filter",
    flags: ["--compression_type=lz4", "--block_size=16384", "--bloom_bits=0"],
    want: { filterKind: "none" },
  },
  {
    name: "blob files",
    flags: ["--enable_blob_files=1", "--min_blob_size=32", "--value_size=100", "--bloom_bits=10"],
    want: { blobIndexes: true },
  },
  {
    name: "deletions merges range tombstones",
    flags: [
      "--benchmarks=fillrandom,deleterandom,mergerandom",
      "--merge_operator=put",
      "--deletes=3000",
      "--writes_per_range_tombstone=200",
      "--max_num_range_tombstones=30",
      "--range_tombstone_width=20",
      "--compression_type=lz4",
      "--bloom_bits=10",
    ],
    want: {},
  },
  {
    name: "checksum none, zlib, format 3, 2 KiB blocks (OPTIONS file)",
    flags: [],
    options: optionsFile(
      "  compression=kZlibCompression",
      "  filter_policy=bloomfilter:10:false\n  format_version=3\n  checksum=kNoChecksum\n  block_size=2048",
    ),
    want: { checksum: "none", compression: "Zlib", formatVersion: 3, filterKind: "bloom" },
  },
  {
    name: "hash-search index, prefix-only filter (OPTIONS file)",
    flags: [],
    options: optionsFile(
      "  compression=kLZ4Compression\n  prefix_extractor=rocksdb.FixedPrefix.7",
      "  index_type=kHashSearch\n  filter_policy=bloomfilter:10:false\n  whole_key_filtering=false\n  format_version=5",
    ),
    want: { indexType: "hash-search", filterKind: "fastbloom" },
  },
  {
    name: "format 2 partitioned: internal-key separators in index and filter partitions",
    flags: [
      "--format_version=2",
      "--compression_type=zlib",
      "--partition_index_and_filters=1",
      "--bloom_bits=10",
      "--block_size=1024",
      "--metadata_block_size=512",
    ],
    want: { formatVersion: 2, indexType: "two-level", partitionedFilter: true, filterKind: "bloom" },
  },
  {
    name: "delta-encoded index values (index restart interval 16), data restart interval 4",
    flags: [
      "--compression_type=lz4",
      "--block_size=512",
      "--index_block_restart_interval=16",
      "--block_restart_interval=4",
      "--bloom_bits=10",
    ],
    want: { indexType: "binary-search" },
  },
  {
    name: "partitioned, delta-encoded index and filter-index values",
    flags: [
      "--compression_type=snappy",
      "--block_size=512",
      "--partition_index_and_filters=1",
      "--metadata_block_size=1024",
      "--index_block_restart_interval=8",
      "--bloom_bits=10",
    ],
    want: { indexType: "two-level", partitionedFilter: true },
  },
  {
    name: "index with first key (OPTIONS file)",
    flags: [],
    options: optionsFile(
      "  compression=kLZ4Compression",
      "  index_type=kBinarySearchWithFirstKey\n  filter_policy=bloomfilter:10:false\n  format_version=5\n  checksum=kCRC32c",
    ),
    want: { indexType: "binary-search-with-first-key", checksum: "crc32c", compression: "LZ4" },
  },
];

describe("db_bench tables vs sst_dump", () => {
  for (const c of cases) {
    it(c.name, () => {
      const dir = join(root, c.name.replace(/\W+/g, "_"));
      const flags = [...c.flags];
      if (c.options) {
        const opt = join(root, c.name.replace(/\W+/g, "_") + ".ini");
        writeFileSync(opt, c.options);
        flags.push(`--options_file=${opt}`);
      }
      const files = dbBench(dir, flags);
      expect(files.length).toBeGreaterThan(0);
      for (const f of files) checkTable(f, c.want);
    });
  }
});

describe("ldb-written tables vs sst_dump", () => {
  it("ldb load of keys of 1-40 random bytes into a format 4 store (legacy Bloom, signed hash tails)", () => {
    const dir = join(root, "ldb-load");
    const opt = join(root, "ldb-load.ini");
    writeFileSync(
      opt,
      optionsFile(
        "  compression=kLZ4Compression",
        "  filter_policy=bloomfilter:10:false\n  format_version=4\n  checksum=kxxHash",
      ),
    );
    let x = 7;
    const byte = () => ((x = (Math.imul(x, 1103515245) + 12345) >>> 0), x >>> 24);
    const pairs: [Buffer, Buffer][] = [];
    for (let i = 0; i < 5000; i++) {
      const k = Buffer.alloc(1 + (byte() % 40));
      for (let j = 0; j < k.length; j++) k[j] = byte();
      const v = Buffer.alloc(30);
      for (let j = 0; j < v.length; j++) v[j] = byte();
      pairs.push([k, v]);
    }
    const files = ldbLoad(dir, opt, pairs);
    expect(files.length).toBeGreaterThanOrEqual(2);
    let entries = 0;
    for (const f of files)
      entries += checkTable(f, {
        formatVersion: 4,
        checksum: "xxhash",
        filterKind: "bloom",
        compression: "LZ4",
      }).entries;
    expect(entries).toBeGreaterThan(4900); // minus duplicate random keys, plus db_bench's one seed key
  });
});
