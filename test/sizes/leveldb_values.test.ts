/**
 * Value sizes of a store LevelDB itself wrote (classic-level): values of 10..3,000 bytes, half
 * compressible text and half random bytes (so LevelDB leaves some blocks Snappy-compressed and others
 * raw), overwrites and deletions compacted into tables, and a last batch of writes that stays in
 * LevelDB's log (closed without compaction). Oracle: LevelDB's own iterator over a copy. Full mode's
 * live keys and value-size figures equal LevelDB's exactly; sample mode's equal them with every block
 * drawn, and with a few dozen blocks the intervals hold them and the percentiles are within a few percent.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { join } from "node:path";
import { ClassicLevel } from "classic-level";
import { computeSizes } from "../../src/sizes/index.js";
import { inspectDatadir } from "../../src/datadir/inspect.js";
import type { DatadirModel } from "../../src/datadir/model.js";
import type { SizesReport } from "../../src/sizes/types.js";
import { openTable } from "../../src/format/table.js";
import { mulberry32 } from "../../src/util/random.js";
import { copyInto, trackedTempDirs } from "../helpers/index.js";

const { tempDir, cleanupTemps } = trackedTempDirs("lsmscope-ldbvalues-");
const N = 8000;
let dir: string;
let model: DatadirModel;
let oracle: number[];

type Db = ClassicLevel<Buffer, Buffer>;
const open = async (d: string): Promise<Db> => {
  const db = new ClassicLevel<Buffer, Buffer>(d, { keyEncoding: "buffer", valueEncoding: "buffer" });
  await db.open({ createIfMissing: true, writeBufferSize: 256 * 1024, compression: true });
  return db;
};

beforeAll(async () => {
  dir = join(tempDir(), "db");
  const random = mulberry32(11);
  const value = (i: number): Buffer => {
    const len = 10 + Math.floor(random() * 2991);
    if (Math.floor(i / 50) % 2 === 0)
      return Buffer.from(`value ${i} `.repeat(Math.ceil(len / 8)).slice(0, len));
    return Buffer.from(Array.from({ length: len }, () => Math.floor(random() * 256)));
  };
  const key = (i: number) => Buffer.from(`key-${String(i).padStart(8, "0")}`);
  const db = await open(dir);
  for (let i = 0; i < N; i += 500)
    await db.batch(
      Array.from({ length: 500 }, (_, j) => ({ type: "put" as const, key: key(i + j), value: value(i + j) })),
    );
  // overwrites and deletions, compacted into the tables
  const batch = db.batch();
  for (let i = 0; i < N; i += 7) batch.put(key(i), value(i + 1));
  for (let i = 3; i < N; i += 29) batch.del(key(i));
  await batch.write();
  await db.compactRange(Buffer.alloc(0), Buffer.alloc(16, 0xff));
  // the last writes: only in the log (LevelDB does not write its memtable to a table at close)
  await db.batch(
    Array.from({ length: 400 }, (_, j) => ({ type: "put" as const, key: key(N + j), value: value(j) })),
  );
  await db.close();

  model = await inspectDatadir(dir, {});
  // LevelDB's own view, on a copy (opening recovers the log into a table)
  const copy = await open(copyInto(dir, tempDir(), "copy"));
  const lens: number[] = [];
  for await (const v of copy.values()) lens.push(v.length);
  await copy.close();
  oracle = lens.sort((a, b) => a - b);
}, 180_000);
afterAll(cleanupTemps);

const rank = (xs: number[], p: number) => xs[Math.max(0, Math.ceil((p / 100) * xs.length) - 1)]!;
const figures = (r: SizesReport) => {
  const c = r.columnFamilies[0]!;
  const v = c.valueSize;
  return [c.liveKeys, v.count, v.totalBytes, v.min, v.p50, v.p90, v.p99, v.max];
};

describe("value sizes of a LevelDB store against LevelDB's iterator", () => {
  it("the store has Snappy and raw blocks, and writes only in its log", () => {
    const inst = model.instances[0]!;
    expect(inst.engine).toBe("leveldb");
    expect(inst.wal.reduce((s, w) => s + w.unflushedWrites, 0)).toBe(400);
    const blocks: Record<string, number> = {};
    for (const f of inst.columnFamilies[0]!.levels.flatMap((l) => l.files)) {
      const t = openTable(f.path);
      try {
        for (const [name, n] of Object.entries(t.blockCompression())) blocks[name] = (blocks[name] ?? 0) + n;
      } finally {
        t.close();
      }
    }
    expect(blocks["Snappy"]).toBeGreaterThan(0);
    expect(blocks["NoCompression"]).toBeGreaterThan(0);
  });

  it("full mode and sample mode with every block: exactly LevelDB's figures", async () => {
    const want = [
      oracle.length,
      oracle.length,
      oracle.reduce((a, b) => a + b, 0),
      oracle[0],
      rank(oracle, 50),
      rank(oracle, 90),
      rank(oracle, 99),
      oracle.at(-1),
    ];
    expect(figures(await computeSizes(dir, { workers: 1, model }))).toEqual(want);
    expect(figures(await computeSizes(dir, { mode: "sample", sampleBlocks: 1_000_000, model }))).toEqual(
      want,
    );
  });

  it("sample mode: intervals hold LevelDB's figures, percentiles within a few percent", async () => {
    let covered = 0;
    let runs = 0;
    const errors: number[] = [];
    for (let seed = 1; seed <= 10; seed++) {
      const r = await computeSizes(dir, { mode: "sample", sampleBlocks: 150, seed, model });
      const c = r.columnFamilies[0]!;
      expect(c.totalBlocks).toBeGreaterThan(150);
      const checks: [number, [number, number]][] = [
        [oracle.length, c.liveKeysInterval!],
        [rank(oracle, 50), c.valueSize.intervals!.p50],
        [rank(oracle, 90), c.valueSize.intervals!.p90],
      ];
      for (const [x, i] of checks) {
        runs++;
        if (i[0] <= x && x <= i[1]) covered++;
      }
      errors.push(Math.abs(c.valueSize.p50 - rank(oracle, 50)) / rank(oracle, 50));
      errors.push(Math.abs(c.valueSize.p90 - rank(oracle, 90)) / rank(oracle, 90));
    }
    // an honest 95% interval misses 1 in 20
    expect(covered / runs).toBeGreaterThanOrEqual(0.8);
    expect(rank(errors.sort(), 50)).toBeLessThan(0.05);
  });
});
