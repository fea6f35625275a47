/**
 * The per-thread table cache of key-range scans: a released table is handed out again, the idle set is
 * bounded by count or bytes (the least recently released table is closed first), and close() gives
 * every descriptor back.
 * Also: a whole multi-threaded `sizes --full` leaves no descriptor open (the pool closes this thread's
 * cache; Node closes a worker's descriptors when it exits, and workers close their caches first).
 */
import { describe, expect, it } from "vitest";
import { readdirSync } from "node:fs";
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
