/**
 * The per-thread table cache of key-range scans: a released table is handed out again, the idle set is
 * bounded by count or bytes (the least recently released table is closed first), and close() gives
 * every descriptor back.
 * Tables opened for their metadata are read with one read of their end, as wide as the metadata of the
 * tables opened before needed, learned from tables the cache opened, never from idle ones.
 * Also: a whole multi-threaded `sizes --full` leaves no descriptor open (the pool closes this thread's
 * cache; Node closes a worker's descriptors when it exits, and workers close their caches first).
 */
import { describe, expect, it } from "vitest";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { TableCache } from "../../src/lsm/table_cache.js";
import { computeSizes } from "../../src/sizes/index.js";
import { SAMPLES } from "../helpers/index.js";

const modern = (name: string) => join(SAMPLES, "modern", name);
const openFds = () => readdirSync("/proc/self/fd").length;

describe("TableCache", () => {
  it("hands a released table out again and bounds the idle set", () => {
    const before = openFds();
    const cache = new TableCache({}, 1);
    const a = cache.acquire(modern("000008.sst"));
    cache.release(a);
    expect(cache.acquire(modern("000008.sst"))).toBe(a);
    const b = cache.acquire(modern("000009.sst"));
    cache.release(a);
    cache.release(b); // over the bound: a, the least recent, is closed
    expect(cache.size).toBe(1);
    expect(openFds()).toBe(before + 1);
    const a2 = cache.acquire(modern("000008.sst"));
    expect(a2).not.toBe(a);
    expect(cache.acquire(modern("000009.sst"))).toBe(b);
    cache.release(a2);
    cache.release(b);
    cache.close();
    expect(cache.size).toBe(0);
    expect(openFds()).toBe(before);
  });

  it("reads a table's end at once, as wide as the metadata of the tables it opened before needed", () => {
    const cache = new TableCache({ verifyChecksums: true }, 64);
    const [p8, p9] = ["000008.sst", "000009.sst"].map(modern) as [string, string];
    const size = (p: string) => statSync(p).size;
    const a = cache.acquireForMetadata(p8, size(p8));
    let first: { offset: number; size: number } | undefined;
    a.forEachIndexHandle((offset, blockSize) => {
      first ??= { offset, size: blockSize };
    });
    cache.noteMetadataRead(a);
    const reach = a.tailReach;
    expect(reach).toBeGreaterThan(0);
    expect(reach).toBeLessThan(size(p8) / 4); // the metadata is the table's end, far from its first block
    // a data block read from the table (a lookup's), then the table taken idle and noted again: its
    // reads now reach the file's first block, which must not widen the next tables' reads
    a.readDataBlock(first!);
    cache.release(a);
    const again = cache.acquireForMetadata(p8, size(p8));
    expect(again).toBe(a);
    expect(again.tailReach).toBe(size(p8));
    cache.noteMetadataRead(again);
    cache.release(again);
    // the next table opened: one read of its end as wide as the first one's metadata, rounded up to 4 KiB
    const b = cache.acquireForMetadata(p9, size(p9));
    expect(b.io.reads).toBe(1);
    expect(b.io.bytes).toBe(Math.ceil(reach / 4096) * 4096);
    cache.release(b);
    cache.close();
  });

  it("bounds the idle set by bytes when asked (index, filter and a fixed overhead per table)", () => {
    const before = openFds();
    const cache = new TableCache({}, Number.MAX_SAFE_INTEGER, { maxIdleBytes: 1 });
    const a = cache.acquire(modern("000008.sst"));
    const b = cache.acquire(modern("000009.sst"));
    cache.release(a);
    expect(cache.size).toBe(1); // the last released stays, whatever it weighs
    cache.release(b); // a, the least recent, goes
    expect(cache.size).toBe(1);
    expect(cache.acquire(modern("000009.sst"))).toBe(b);
    const a2 = cache.acquire(modern("000008.sst"));
    expect(a2).not.toBe(a);
    cache.release(b);
    cache.release(a2);
    cache.close();
    const roomy = new TableCache({}, Number.MAX_SAFE_INTEGER, { maxIdleBytes: 64 << 20 });
    for (const t of [roomy.acquire(modern("000008.sst")), roomy.acquire(modern("000009.sst"))])
      roomy.release(t);
    expect(roomy.size).toBe(2);
    roomy.close();
    expect(openFds()).toBe(before);
  });

  it("keeps one of two copies of the same file", () => {
    const before = openFds();
    const cache = new TableCache();
    const x = cache.acquire(modern("000010.sst"));
    const y = cache.acquire(modern("000010.sst"));
    expect(y).not.toBe(x);
    cache.release(x);
    cache.release(y);
    expect(cache.size).toBe(1);
    cache.close();
    expect(openFds()).toBe(before);
  });
});

describe("sizes --full with worker threads", () => {
  it("closes every table it opened", async () => {
    const before = openFds();
    const r = await computeSizes(join(SAMPLES, "besu-snapshot"), {
      workers: 2,
      splitMinBytes: 1,
      rangesPerThread: 4,
    });
    expect(r.columnFamilies.length).toBeGreaterThan(0);
    expect(openFds()).toBe(before);
  });
});
