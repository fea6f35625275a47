/**
 * The live contents of LevelDB stores against LevelDB's own view of them: classic-level (LevelDB 1.20)
 * writes random batches of puts and deletes (overwrites, deletions of keys never written, empty values,
 * keys of 2-31 bytes), with and without Snappy, in batches of 100 into write buffers of 16-80 KiB
 * (tables in L0, L1 and L2 when written here; LevelDB's compactions decide the shape), compactions of
 * random ranges between rounds, and closes with writes still only in the log; its iterator is the
 * oracle. lsmscope's newest-version merge (LiveCursor), `sizes --full`'s counts and
 * `probe`'s reader path over every live key (and over the same keys with a byte appended, none of
 * them live) must agree with it.
 */
import { createRequire } from "node:module";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { inspectDatadir } from "../../src/datadir/inspect.js";
import { computeSizes } from "../../src/sizes/compute.js";
import { trackedTempDirs } from "../helpers/index.js";
import { ContentsHash, liveView, probeFound } from "../helpers/live_view.js";

const require = createRequire(import.meta.url);
const { ClassicLevel } = require("classic-level") as typeof import("classic-level");
const { tempDir, cleanupTemps } = trackedTempDirs("lsmscope-leveldb-live-");
afterAll(cleanupTemps);

/** Writes the store for `seed`; returns LevelDB's own view of its live contents. */
async function writeStore(
  dir: string,
  seed: number,
): Promise<{ entries: number; valueBytes: number; sha256: string }> {
  const rnd = (n: number) => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % n;
  const db = new ClassicLevel<Buffer, Buffer>(dir, { keyEncoding: "buffer", valueEncoding: "buffer" });
  await db.open({
    writeBufferSize: 16 * 1024 + rnd(64 * 1024),
    compression: seed % 2 === 0,
    blockSize: 1024 + rnd(4096),
  });
  const key = () => {
    const k = Buffer.alloc(2 + rnd(30));
    k.writeUInt16BE(rnd(2500), 0);
    return k;
  };
  for (let round = 0; round < 6; round++) {
    const ops: ({ type: "put"; key: Buffer; value: Buffer } | { type: "del"; key: Buffer })[] = [];
    for (let i = 0; i < 2500; i++)
      ops.push(
        rnd(10) < 8
          ? { type: "put", key: key(), value: Buffer.alloc(rnd(400), 97 + rnd(26)) }
          : { type: "del", key: key() },
      );
    // batches of ~100: a batch goes into one memtable whole, so a round makes several tables
    for (let i = 0; i < ops.length; i += 100) await db.batch(ops.slice(i, i + 100));
    if (round < 5 && rnd(2) === 0) await db.compactRange(key(), key());
  }
  const view = new ContentsHash();
  for await (const [k, v] of db.iterator()) view.add(k, v);
  await db.close();
  return { entries: view.entries, valueBytes: view.valueBytes, sha256: view.digest() };
}

describe("LevelDB stores classic-level wrote, against its iterator", () => {
  it.each([1, 2])("seed %i: the live contents, sizes --full and probe's reader path", async (seed) => {
    const dir = join(tempDir(), "db");
    const want = await writeStore(dir, seed);
    expect(want.entries).toBeGreaterThan(500);

    const m = await inspectDatadir(dir, { tableDetails: "cheap" });
    const inst = m.instances[0]!;
    expect([...m.findings, ...inst.findings].filter((f) => f.severity !== "info")).toEqual([]);
    const { keys, ...got } = liveView(inst, inst.columnFamilies[0]!);
    expect(got).toEqual(want);

    const sizes = await computeSizes(dir, { mode: "full" });
    expect(sizes.columnFamilies[0]!.liveKeys).toBe(want.entries);
    expect(sizes.columnFamilies[0]!.valueSize.totalBytes).toBe(want.valueBytes);

    expect(probeFound(dir, "default", keys)).toEqual({ lookups: keys.length, found: keys.length });
    const live = new Set(keys);
    const absent = keys.map((k) => `${k}ff`).filter((k) => !live.has(k));
    expect(probeFound(dir, "default", absent)).toEqual({ lookups: absent.length, found: 0 });
  });
});
