/**
 * Probes against RocksDB itself: the reader path's per-lookup data-block reads must equal what the engine
 * (librocksdb 7.8.3, opened with the store's OPTIONS) reports, on the committed samples and on stores
 * written by db_bench. Engine-dependent tests are skipped, with the reason printed, when the addon is missing.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cpSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { runProbe } from "../../src/probe/probe.js";
import { coldMethodAvailable } from "../../src/probe/cold.js";
import { engineAvailable, engineUnavailableReason, openDb } from "../../src/engine/index.js";
import type { ProbeReport } from "../../src/probe/types.js";
import { BIN, dbBench, removeDir, SAMPLES, tempDir, snapshotTree } from "./helpers.js";

const engine = engineAvailable();
if (!engine) console.warn(`engine probe tests skipped: ${engineUnavailableReason()}`);
const itEngine = engine ? it : it.skip;

let tmp: string;
let bloom: string; // bloom 10, compacted to one level
let plain: string; // no filter, compacted
let layered: string; // bloom 10, L0..L2 with overwrites, deletes and unflushed WAL writes
let partitioned: string; // partitioned index and filters, ten overlapping L0 files, memtable
let ribbon: string; // ribbon filter, L0..L2 after overwrites
let blobs: string; // values in blob files
let prefixOnly: string; // whole_key_filtering=false, fixed 12-byte prefix extractor: prefix filter
let hashIndex: string; // kHashSearch index over an 8-byte prefix, no filter

beforeAll(() => {
  tmp = tempDir();
  bloom = dbBench(join(tmp, "bloom"), ["--benchmarks=fillrandom,compact", "--num=20000", "--bloom_bits=10"]);
  plain = dbBench(join(tmp, "plain"), ["--benchmarks=fillrandom,compact", "--num=20000", "--bloom_bits=-1"]);
  layered = dbBench(join(tmp, "layered"), [
    "--benchmarks=fillrandom,overwrite,deleterandom",
    "--num=20000",
    "--bloom_bits=10",
    "--compression_type=snappy",
    "--write_buffer_size=200000",
    "--target_file_size_base=200000",
    "--max_bytes_for_level_base=1000000",
  ]);
  partitioned = dbBench(join(tmp, "partitioned"), [
    "--benchmarks=fillrandom",
    "--num=20000",
    "--bloom_bits=10",
    "--partition_index_and_filters=1",
    "--metadata_block_size=512",
    "--cache_index_and_filter_blocks=1",
    "--write_buffer_size=300000",
    "--disable_auto_compactions=1",
  ]);
  ribbon = dbBench(join(tmp, "ribbon"), [
    "--benchmarks=fillrandom,overwrite",
    "--num=20000",
    "--bloom_bits=10",
    "--use_ribbon_filter=1",
    "--write_buffer_size=200000",
    "--target_file_size_base=200000",
    "--max_bytes_for_level_base=800000",
    "--level0_file_num_compaction_trigger=8",
  ]);
  blobs = dbBench(join(tmp, "blobs"), [
    "--benchmarks=fillrandom,compact",
    "--num=5000",
    "--value_size=400",
    "--bloom_bits=10",
    "--enable_blob_files=1",
    "--min_blob_size=200",
  ]);
  prefixOnly = dbBench(join(tmp, "prefix"), [
    "--benchmarks=fillrandom,compact",
    "--num=20000",
    "--bloom_bits=10",
    "--whole_key_filtering=0",
    "--prefix_size=12",
  ]);
  hashIndex = dbBench(join(tmp, "hash"), [
    "--benchmarks=fillrandom,compact",
    "--num=20000",
    "--bloom_bits=-1",
    "--use_hash_search=1",
    "--prefix_size=8",
  ]);
});

afterAll(() => removeDir(tmp));

function expectAgreement(r: ProbeReport): void {
  const reader = r.points.find((p) => p.path === "reader")!;
  const eng = r.points.find((p) => p.path === "engine")!;
  const c = r.comparisons![0]!;
  expect(c.lookups).toBe(reader.lookups);
  // the proof: data-block reads per lookup within 2% (here: lookup for lookup)
  expect(c.relativeDifference).toBeLessThanOrEqual(0.02);
  expect(Math.abs(reader.dataBlocksPerLookup - eng.dataBlocksPerLookup)).toBeLessThanOrEqual(
    0.02 * Math.max(eng.dataBlocksPerLookup, 0.01),
  );
  expect(reader.found).toBe(eng.found);
  expect(reader.answeredAtLevel).toEqual(eng.answeredAtLevel);
  expect(reader.filterChecksPerLookup).toBeCloseTo(eng.filterChecksPerLookup, 6);
  expect(reader.filterRejectionsPerLookup).toBeCloseTo(eng.filterRejectionsPerLookup, 6);
}

describe("reader path against the engine's own counters", () => {
  const sampleCases: [string, string, string?][] = [
    ["besu-snapshot", "cf06"],
    ["besu-snapshot", "cf01"], // blob files
    ["besu-snapshot", "cf07"],
    ["besu-snapshot", "cf08"],
    ["besu-generated", "cf06"],
    ["nethermind", "flat/Account"],
    ["nethermind", "flat/Storage"],
    ["nethermind", "state"], // two-level index, partitioned bloom, optimize_filters_for_hits
    ["nethermind", "code"], // no filter
  ];
  for (const [sample, cf] of sampleCases) {
    for (const keys of ["present", "absent"] as const) {
      itEngine(`${sample} ${cf} ${keys}`, async () => {
        const r = await runProbe(join(SAMPLES, sample), { cf, keys, counts: [300], path: "both" });
        expectAgreement(r);
        if (keys === "present") expect(r.points[0]!.found).toBe(300);
        else expect(r.points[0]!.found).toBe(0);
      });
    }
  }

  for (const [name, get] of [
    ["bloom", () => bloom],
    ["plain", () => plain],
    ["layered", () => layered],
    ["partitioned", () => partitioned],
    ["ribbon", () => ribbon],
    ["blobs", () => blobs],
    ["prefix-filter", () => prefixOnly],
    ["hash-index", () => hashIndex],
  ] as const) {
    for (const keys of ["present", "absent"] as const) {
      itEngine(`db_bench ${name} ${keys}`, async () => {
        const r = await runProbe(get(), { cf: "default", keys, counts: [1500], path: "both" });
        expectAgreement(r);
        // what block_read_count includes: every block read from a file (data, index, filter, dictionary);
        // with a block cache, data blocks alone are the rocksdb.block.cache.data.miss ticker
        const e = r.points.find((p) => p.path === "engine")!.engine!;
        expect(
          e.perf["block_read_count"]! -
            e.perf["index_block_read_count"]! -
            e.perf["filter_block_read_count"]! -
            e.perf["compression_dict_block_read_count"]!,
        ).toBe(e.tickers["rocksdb.block.cache.data.miss"]);
        if (name === "blobs" && keys === "present")
          expect(r.points.find((p) => p.path === "reader")!.blobReadsPerLookup).toBeGreaterThan(0.9);
      });
    }
  }

  itEngine("memtable answers (unflushed WAL writes) agree: besu-snapshot sample addresses", async () => {
    const r = await runProbe(join(SAMPLES, "besu-snapshot"), {
      cf: "cf06",
      keys: {
        file: join(import.meta.dirname, "..", "..", "probes", "sample-addresses.txt"),
        addresses: "besu",
      },
      counts: [20],
      path: "both",
    });
    expectAgreement(r);
    expect(r.points[0]!.answeredAtLevel["memtable"]).toBeGreaterThan(0);
  });
});

describe("filters: absent keys", () => {
  it("bloom 10: >= 98% rejected at the filter, about 0.01 data blocks per lookup", async () => {
    const r = await runProbe(bloom, {
      cf: "default",
      keys: "absent",
      counts: [4000],
      path: "reader",
      perLookup: true,
    });
    const p = r.points[0]!;
    expect(p.filesPerLookup).toBe(1);
    const rejected = p.perLookup!.filter((t) => t.filterRejections > 0 && t.dataBlocks === 0).length;
    expect(rejected / p.lookups).toBeGreaterThanOrEqual(0.98);
    expect(p.dataBlocksPerLookup).toBeGreaterThan(0.002);
    expect(p.dataBlocksPerLookup).toBeLessThan(0.025);
  });

  it("draws present and absent keys from the tables the reader opened, opening none again", async () => {
    const { LsmReader } = await import("../../src/probe/reader_path.js");
    const { absentKeys, presentKeys } = await import("../../src/probe/keys.js");
    const { buildTarget, resolveColumnFamily } = await import("../../src/probe/probe.js");
    const { inspectDatadir } = await import("../../src/datadir/inspect.js");
    const { tableDescriptorsOpened } = await import("../../src/format/table_file.js");
    // the store of ~10 L0 tables (auto-compaction off): the layered store's table count depends on
    // what background compactions finished before db_bench closed it (3 in a CI run on a loaded
    // machine, 4-8 in runs side by side here), too few for this test now and then
    const model = await inspectDatadir(partitioned);
    const { instance, cf } = resolveColumnFamily(model.instances, "default");
    const target = buildTarget(instance, cf);
    expect(target.files.length).toBeGreaterThan(3);
    const reader = new LsmReader(target);
    try {
      const before = tableDescriptorsOpened();
      expect(presentKeys(target, reader, 50).keys.length).toBe(50);
      expect(absentKeys(target, reader, 50).keys.length).toBe(50);
      // each table once per key set when they were opened again (2 x target.files.length)
      expect(tableDescriptorsOpened() - before).toBe(0);
    } finally {
      reader.close();
    }
  });

  it("without filters: about one data block per lookup", async () => {
    const r = await runProbe(plain, { cf: "default", keys: "absent", counts: [2000], path: "reader" });
    const p = r.points[0]!;
    expect(p.filterChecksPerLookup).toBe(0);
    expect(p.dataBlocksPerLookup).toBeGreaterThanOrEqual(0.98);
    expect(p.dataBlocksPerLookup).toBeLessThan(1.1);
  });

  itEngine(
    "default options (no filter_policy) read data blocks for absent keys; the probe refuses them",
    async () => {
      // the trap: the bloom store opened with RocksDB's defaults has no filter policy, so its filters are never read
      const keys = (
        await runProbe(bloom, {
          cf: "default",
          keys: "absent",
          counts: [500],
          path: "reader",
          perLookup: true,
        })
      ).points[0]!;
      expect(keys.dataBlocksPerLookup).toBeLessThan(0.03);
      const hexKeys = (await import("../../src/probe/keys.js")).absentKeys;
      const { LsmReader } = await import("../../src/probe/reader_path.js");
      const { buildTarget, resolveColumnFamily } = await import("../../src/probe/probe.js");
      const { inspectDatadir } = await import("../../src/datadir/inspect.js");
      const model = await inspectDatadir(bloom);
      const { instance, cf } = resolveColumnFamily(model.instances, "default");
      const target = buildTarget(instance, cf);
      const gen = new LsmReader(target);
      const absent = hexKeys(target, gen, 500).keys;
      gen.close();
      const db = openDb(bloom, { readOnly: true, statistics: true }); // defaults: no useLatestOptionsFile
      try {
        const r = db.getManyWithStats("default", absent, { fillCache: false });
        expect(r.found.every((f) => !f)).toBe(true);
        const dataReads = r.stats.tickers["rocksdb.block.cache.data.miss"] ?? 0;
        expect(dataReads / absent.length).toBeGreaterThanOrEqual(0.95);
        expect(r.stats.tickers["rocksdb.bloom.filter.useful"] ?? 0).toBe(0);
      } finally {
        db.close();
      }
      // with the OPTIONS file the same keys stop at the filter
      const opened = openDb(bloom, { readOnly: true, statistics: true, useLatestOptionsFile: true });
      try {
        const r = opened.getManyWithStats("default", absent, { fillCache: false });
        expect((r.stats.tickers["rocksdb.block.cache.data.miss"] ?? 0) / absent.length).toBeLessThan(0.03);
      } finally {
        opened.close();
      }
      // a store whose OPTIONS file is gone would be opened with defaults: the probe refuses
      const copy = join(tmp, "no-options");
      cpSync(bloom, copy, { recursive: true });
      for (const n of readdirSync(copy)) if (n.startsWith("OPTIONS-")) rmSync(join(copy, n));
      await expect(
        runProbe(copy, { cf: "default", keys: "absent", counts: [10], path: "engine" }),
      ).rejects.toThrow(/engine path refused: no OPTIONS file/);
      await expect(
        runProbe(copy, { cf: "default", keys: "absent", counts: [10], path: "both" }),
      ).rejects.toThrow(/refusing|refused/);
      // the CLI says so in one line, exit 3
      const cli = spawnSync(
        process.execPath,
        [BIN, "probe", copy, "--cf", "default", "--keys", "absent", "--count", "10", "--path", "engine"],
        {
          encoding: "utf8",
        },
      );
      expect(cli.status).toBe(3);
      expect(cli.stderr.trim().split("\n")).toHaveLength(1);
      expect(cli.stderr).toContain("engine path refused: no OPTIONS file");
    },
  );

  itEngine(
    "refuses LevelDB and format_version 6 stores on the engine path, reads them on the reader path",
    async () => {
      await expect(
        runProbe(join(SAMPLES, "geth-leveldb"), {
          cf: "default",
          keys: "present",
          counts: [10],
          path: "engine",
        }),
      ).rejects.toThrow(/engine path refused: this is a LevelDB store/);
      await expect(
        runProbe(join(SAMPLES, "modern"), { cf: "accounts", keys: "present", counts: [10], path: "engine" }),
      ).rejects.toThrow(/format_version 6; RocksDB 7.8.3 reads format_version <= 5/);
      const r = await runProbe(join(SAMPLES, "modern"), {
        cf: "accounts",
        keys: "present",
        counts: [50],
        path: "reader",
      });
      expect(r.points[0]!.found).toBe(50);
    },
  );
});

describe("cold runs", () => {
  const cold = coldMethodAvailable();
  const itCold = cold.method && engine ? it : it.skip;
  if (!cold.method) console.warn(`cold probe tests skipped: ${cold.reason}`);

  itCold("each point runs in a fresh process, drops the cache and reports block-layer bytes", async () => {
    const r = await runProbe(bloom, {
      cf: "default",
      keys: "present",
      counts: [100, 400],
      path: "both",
      cold: true,
    });
    expect(r.points).toHaveLength(4);
    const pids = new Set(r.points.map((p) => p.pid));
    expect(pids.size).toBe(4);
    expect(pids.has(process.pid)).toBe(false);
    for (const p of r.points) {
      expect(p.cold).toBe(true);
      expect(p.coldMethod).toBe(cold.method);
      expect(p.blockLayerBytes).toBeGreaterThan(0);
    }
    for (const p of r.points.filter((q) => q.path === "reader")) {
      // what the block layer served tracks the distinct blocks the lookups read (page-granular, readahead)
      expect(p.blockLayerBytes!).toBeGreaterThanOrEqual(0.5 * p.distinctDataBlockBytes!);
      expect(p.blockLayerBytes!).toBeLessThanOrEqual(8 * p.distinctDataBlockBytes! + 1024 * 1024);
    }
    const [small, large] = r.points.filter((q) => q.path === "reader");
    expect(large!.distinctDataBlocks!).toBeGreaterThan(small!.distinctDataBlocks!);
    for (const c of r.comparisons!) expect(c.relativeDifference).toBeLessThanOrEqual(0.02);
  });

  itCold("fadvise on every store file also empties the cache for the store", async () => {
    const r = await runProbe(plain, {
      cf: "default",
      keys: "present",
      counts: [200],
      path: "reader",
      cold: true,
      coldMethod: "fadvise",
    });
    expect(r.points[0]!.coldMethod).toBe("fadvise");
    expect(r.points[0]!.blockLayerBytes).toBeGreaterThan(0);
  });

  itEngine("nothing in the datadirs changes (content and mtime)", async () => {
    const dirs = [
      join(SAMPLES, "besu-snapshot"),
      join(SAMPLES, "nethermind"),
      join(SAMPLES, "geth-leveldb"),
      layered,
    ];
    const before = dirs.map(snapshotTree);
    await runProbe(dirs[0]!, {
      cf: "cf06",
      keys: "present",
      counts: [50],
      path: "both",
      cold: Boolean(cold.method),
    });
    await runProbe(dirs[1]!, { cf: "state", keys: "absent", counts: [50], path: "both" });
    await runProbe(dirs[2]!, {
      cf: "default",
      keys: "present",
      counts: [50],
      path: "reader",
      cold: Boolean(cold.method),
    });
    await runProbe(dirs[3]!, { cf: "default", keys: "absent", counts: [50], path: "both" });
    expect(dirs.map(snapshotTree)).toEqual(before);
  });
});

describe("CLI", () => {
  itEngine("--json has the issue's shape and the engine's filter policies go to stderr first", () => {
    const r = spawnSync(
      process.execPath,
      [
        BIN,
        "probe",
        join(SAMPLES, "besu-snapshot"),
        "--cf",
        "cf06",
        "--keys",
        "absent",
        "--count",
        "50,100",
        "--path",
        "both",
        "--json",
      ],
      { encoding: "utf8" },
    );
    expect(r.status).toBe(0);
    expect(r.stderr).toContain("engine filter policy per column family (from OPTIONS):");
    expect(r.stderr).toContain("cf06 ACCOUNT_INFO_STATE=bloomfilter:10:false");
    const j = JSON.parse(r.stdout) as ProbeReport;
    expect(j.cf).toBe("06");
    expect(j.options.filterPolicy).toBe("bloomfilter:10:false");
    expect(j.points).toHaveLength(4);
    for (const p of j.points)
      for (const k of [
        "count",
        "path",
        "cold",
        "lookups",
        "found",
        "filesPerLookup",
        "filterChecksPerLookup",
        "filterRejectionsPerLookup",
        "indexBlocksPerLookup",
        "dataBlocksPerLookup",
        "bytesPerLookup",
        "distinctDataBlocks",
        "blockLayerBytes",
        "answeredAtLevel",
      ])
        expect(p).toHaveProperty(k);
  });

  it("a probe definition from probes/ runs (geth, reader path)", () => {
    const r = spawnSync(
      process.execPath,
      [
        BIN,
        "probe",
        join(SAMPLES, "geth-leveldb"),
        "--def",
        join(import.meta.dirname, "..", "..", "probes", "geth-existing-account.json"),
        "--count",
        "40",
      ],
      { encoding: "utf8" },
    );
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/40\s+reader\s+no\s+40\/40/);
  });

  it("bad input: one line, non-zero exit", () => {
    const bad = join(tmp, "keys.txt");
    writeFileSync(bad, "zz-not-hex\n");
    const r = spawnSync(
      process.execPath,
      [BIN, "probe", bloom, "--cf", "default", "--keys", bad, "--count", "5"],
      { encoding: "utf8" },
    );
    expect(r.status).not.toBe(0);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toContain("line 1 is not a hex key");
  });
});
