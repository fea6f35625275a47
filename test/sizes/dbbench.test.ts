/**
 * Stores written by db_bench with known value-size distributions: full mode exact (counts, sizes,
 * data-block bytes against sst_dump's properties, live keys against ldb scan); sample mode within the
 * intervals it states.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { computeSizes, type SizesReport } from "../../src/sizes/index.js";
import { dbBench, ldbScanCount, removeDir, sstDumpProperties, tempDir } from "./helpers.js";

let root: string;
let fixed: string;
let uniform: string;
let useq: string;
let useqFull: SizesReport;
let fixedFull: SizesReport;
let uniformFull: SizesReport;

beforeAll(async () => {
  root = tempDir();
  fixed = join(root, "fixed");
  uniform = join(root, "uniform");
  // fillseq then compact (so everything is in SSTs): 20,000 distinct keys, every value exactly 200
  // bytes, Snappy, 4 KiB blocks
  dbBench(fixed, [
    "--benchmarks=fillseq,compact",
    "--num=20000",
    "--key_size=16",
    "--value_size=200",
    "--compression_type=snappy",
    "--compression_ratio=0.5",
    "--block_size=4096",
  ]);
  // fillrandom: 20,000 writes of random keys (so overwrites), values uniform in [100, 1000], LZ4,
  // small memtables so several files and levels exist
  dbBench(uniform, [
    "--benchmarks=fillrandom",
    "--num=20000",
    "--key_size=16",
    "--value_size_distribution_type=uniform",
    "--value_size_min=100",
    "--value_size_max=1000",
    "--compression_type=lz4",
    "--block_size=4096",
    "--write_buffer_size=1048576",
    "--target_file_size_base=1048576",
  ]);
  // fillseq then compact, values uniform in [10, 2000]: one version per key, for sample mode
  useq = join(root, "useq");
  dbBench(useq, [
    "--benchmarks=fillseq,compact",
    "--num=20000",
    "--key_size=16",
    "--value_size_distribution_type=uniform",
    "--value_size_min=10",
    "--value_size_max=2000",
    "--compression_type=lz4",
    "--block_size=4096",
  ]);
  useqFull = await computeSizes(useq, { workers: 1 });
  fixedFull = await computeSizes(fixed, { workers: 1 });
  uniformFull = await computeSizes(uniform, {
    workers: 2,
    splitMinBytes: 1,
    rangesPerThread: 4,
    mainThreadScans: false,
  });
}, 120_000);

afterAll(() => removeDir(root));

function sstProps(dir: string): Record<string, string>[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith(".sst"))
    .map((f) => sstDumpProperties(join(dir, f)));
}

describe("sizes on db_bench stores", () => {
  it("fixed 200-byte values: every figure exact", () => {
    const cf = fixedFull.columnFamilies.find((c) => c.name === "default")!;
    expect(cf.liveKeys).toBe(20000);
    expect(cf.obsoleteEntries).toBe(0);
    expect([
      cf.valueSize.min,
      cf.valueSize.p50,
      cf.valueSize.p99,
      cf.valueSize.max,
      cf.valueSize.mean,
    ]).toEqual([200, 200, 200, 200, 200]);
    expect(cf.keySize.p50).toBe(16);
    expect(cf.valueSize.histogram.find((b) => b.le === 256)!.count).toBe(20000);
    // data blocks and their stored bytes equal what the tables' properties say
    const props = sstProps(fixed);
    expect(cf.dataBlocks).toBe(props.reduce((s, p) => s + Number(p["# data blocks"]), 0));
    expect(cf.physicalBytes).toBe(props.reduce((s, p) => s + Number(p["data block size"]), 0));
    expect(cf.logicalBytes).toBeGreaterThan(cf.physicalBytes); // compression_ratio=0.5 data compresses
    expect(cf.compressionRatio).toBeLessThan(0.8);
  });

  it("uniform [100, 1000] values with overwrites: live keys equal ldb scan, sizes within the range", () => {
    const cf = uniformFull.columnFamilies.find((c) => c.name === "default")!;
    const entriesInSsts = sstProps(uniform).reduce((s, p) => s + Number(p["# entries"]), 0);
    expect(cf.entriesRead).toBe(entriesInSsts + cf.walEntries);
    expect(cf.obsoleteEntries).toBeGreaterThan(0);
    expect(cf.liveKeys).toBe(ldbScanCount(uniform));
    expect(cf.valueSize.min).toBeGreaterThanOrEqual(100);
    expect(cf.valueSize.max).toBeLessThanOrEqual(1000);
    // the median of a uniform [100, 1000] is 550: 20,000 draws put it within a few percent
    expect(cf.valueSize.p50).toBeGreaterThan(520);
    expect(cf.valueSize.p50).toBeLessThan(580);
    expect(cf.valueSize.p90).toBeGreaterThan(880);
    expect(cf.valueSize.p90).toBeLessThan(940);
    // threads claim ranges as they free up: one quick worker may take them all before the other starts
    expect(uniformFull.workers).toBeGreaterThanOrEqual(1);
  });

  it("sample mode: the exact figures lie inside the stated intervals (≥ 16 of 20 seeds)", async () => {
    // useq holds one version per key, so the stored records sample mode measures are the live ones
    const full = useqFull.columnFamilies.find((c) => c.name === "default")!;
    const hits: Record<string, number> = {};
    const hit = (what: string, x: number, i: [number, number] | undefined) => {
      expect(i, what).toBeDefined();
      if (x >= i![0] && x <= i![1]) hits[what] = (hits[what] ?? 0) + 1;
    };
    for (let seed = 1; seed <= 20; seed++) {
      const s = await computeSizes(useq, { mode: "sample", sampleBlocks: 25, seed });
      const cf = s.columnFamilies.find((c) => c.name === "default")!;
      expect(cf.sampledBlocks).toBe(25);
      expect(cf.totalBlocks).toBe(full.dataBlocks);
      expect(cf.obsoleteEntries).toBeNull();
      // exact from the table properties
      expect(cf.liveKeys).toBe(full.liveKeys);
      expect(cf.physicalBytes).toBe(full.physicalBytes);
      hit("logical bytes", full.logicalBytes, cf.logicalBytesInterval);
      for (const q of ["p50", "p90", "p99", "mean"] as const)
        hit(`value ${q}`, full.valueSize[q], cf.valueSize.intervals![q]);
    }
    for (const what of ["logical bytes", "value p50", "value p90", "value p99", "value mean"])
      expect(hits[what] ?? 0, what).toBeGreaterThanOrEqual(16);
  });

  it("sample mode with every block drawn equals full mode on a store without overwrites", async () => {
    const full = fixedFull.columnFamilies.find((c) => c.name === "default")!;
    const s = await computeSizes(fixed, { mode: "sample", sampleBlocks: 1_000_000 });
    const cf = s.columnFamilies.find((c) => c.name === "default")!;
    expect(cf.liveKeys).toBe(full.liveKeys);
    expect(cf.liveKeysInterval).toEqual([full.liveKeys, full.liveKeys]);
    expect(cf.physicalBytes).toBe(full.physicalBytes);
    expect(cf.logicalBytes).toBe(full.logicalBytes);
  });
});
