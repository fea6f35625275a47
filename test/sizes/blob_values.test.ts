/**
 * Blob-indexed values are sized as a Get returns them: stores written by db_bench with blob files
 * (min_blob_size 1024, values uniform in 16..4000 so about three quarters go to blob files; the memtable
 * flushed at the end so every such value is blob-indexed) under LZ4,
 * ZSTD and Snappy blob compression. Oracle: `ldb scan` on a private copy of each store (RocksDB itself
 * resolving every blob): full mode's value-size count, mean, percentiles and max equal ldb's exactly;
 * sample mode's are within a few percent. Stored (compressed) blob bytes stay a separate figure.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { join } from "node:path";
import { computeSizes } from "../../src/sizes/index.js";
import { dbBench, memoized, snapshotTree, trackedTempDirs } from "../helpers/index.js";
import { ldbValueLengths, rank } from "./helpers.js";

const { tempDir, cleanupTemps } = trackedTempDirs("lsmscope-blobvalues-");
const COMPRESSIONS = ["lz4", "zstd", "snappy"] as const;
const stores = new Map<string, string>();

beforeAll(() => {
  const root = tempDir();
  for (const c of COMPRESSIONS) {
    const db = join(root, c);
    dbBench(db, [
      "--benchmarks=fillrandom,flush",
      "--num=12000",
      "--key_size=16",
      "--enable_blob_files=1",
      "--min_blob_size=1024",
      `--blob_compression_type=${c}`,
      "--value_size_distribution_type=uniform",
      "--value_size_min=16",
      "--value_size_max=4000",
      "--compression_ratio=0.5",
      "--write_buffer_size=1048576",
    ]);
    stores.set(c, db);
  }
}, 180_000);
afterAll(cleanupTemps);

/**
 * `ldb scan`'s value lengths of each store, taken once: the tests only read the stores (the full mode
 * test proves it with a snapshot), so a second scan of a fresh copy gives the same lengths.
 */
const ldbTruth = memoized((c: string) => ldbValueLengths(stores.get(c)!, tempDir()));

describe.each(COMPRESSIONS)("blob values under %s blob compression", (c) => {
  it("full mode: value sizes equal ldb scan's exactly; stored bytes are smaller and named apart", async () => {
    const db = stores.get(c)!;
    const before = snapshotTree(db);
    const truth = ldbTruth(c);
    const r = await computeSizes(db, { workers: 2, splitMinBytes: 1, rangesPerThread: 2 });
    const cf = r.columnFamilies.find((x) => x.name === "default")!;
    const v = cf.valueSize;
    expect(v.count).toBe(truth.length);
    expect(v.max).toBe(truth[truth.length - 1]);
    expect(v.p50).toBe(rank(truth, 50));
    expect(v.p90).toBe(rank(truth, 90));
    expect(v.p99).toBe(rank(truth, 99));
    expect(v.mean * v.count).toBeCloseTo(
      truth.reduce((a, b) => a + b, 0),
      0,
    );
    const b = cf.blobIndexed;
    expect(b.count).toBe(truth.filter((n) => n >= 1024).length);
    expect(b.unread).toBe(0);
    expect(b.valueBytes).toBe(truth.filter((n) => n >= 1024).reduce((a, n) => a + n, 0));
    // compression_ratio 0.5: the blob files store about half of what a Get returns
    expect(b.storedBytes).toBeLessThan(b.valueBytes * 0.8);
    expect(Object.keys(b.compressions)).toHaveLength(1);
    expect(snapshotTree(db)).toEqual(before);
  }, 120_000);

  it("sample mode: value sizes within a few percent of ldb scan's", async () => {
    const db = stores.get(c)!;
    const truth = ldbTruth(c);
    const r = await computeSizes(db, { sampleBlocks: 150 });
    const v = r.columnFamilies.find((x) => x.name === "default")!.valueSize;
    const mean = truth.reduce((a, b) => a + b, 0) / truth.length;
    expect(Math.abs(v.mean - mean) / mean).toBeLessThan(0.05);
    expect(Math.abs(v.p50 - rank(truth, 50)) / rank(truth, 50)).toBeLessThan(0.05);
    expect(Math.abs(v.p90 - rank(truth, 90)) / rank(truth, 90)).toBeLessThan(0.05);
    expect(v.max).toBeLessThanOrEqual(truth[truth.length - 1]!);
    expect(v.max).toBeGreaterThan(1024);
  }, 120_000);
});
