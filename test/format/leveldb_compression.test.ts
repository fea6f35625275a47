/**
 * LevelDB tables carry no properties block: their compression and entry counts come from the blocks.
 * Tables written by LevelDB itself (classic-level, LevelDB 1.20) with runs of compressible and of
 * random values, so that LevelDB stores some data blocks Snappy-compressed and leaves others raw (it
 * keeps a compressed block only when it saves at least 1/8). The trailers are counted here by an
 * independent walk of footer -> index block -> block handles, not by the reader under test.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { join } from "node:path";
import { mulberry32 } from "../../src/util/random.js";
import { FOOTER_HANDLES_FROM_END, trailerCounts } from "../helpers/block_trailers.js";
import { makeTempDir, removeDir, tablesIn } from "./oracle.js";

const require = createRequire(import.meta.url);
const bin = new URL("../../bin/lsmscope.js", import.meta.url).pathname;
const N = 6000;
let root: string;
let tables: string[];

interface ClassicDb {
  open(o: object): Promise<void>;
  close(): Promise<void>;
  batch(ops: { type: "put"; key: Buffer; value: Buffer }[]): Promise<void>;
  compactRange(a: Buffer, b: Buffer): Promise<void>;
}

beforeAll(async () => {
  root = makeTempDir("ldbcomp");
  const dir = join(root, "db");
  const { ClassicLevel } = require("classic-level") as {
    ClassicLevel: new (d: string, o: object) => ClassicDb;
  };
  const db = new ClassicLevel(dir, { keyEncoding: "buffer", valueEncoding: "buffer" });
  await db.open({ createIfMissing: true, writeBufferSize: 256 * 1024, compression: true });
  const random = mulberry32(7);
  const ops: { type: "put"; key: Buffer; value: Buffer }[] = [];
  for (let i = 0; i < N; i++) {
    const key = Buffer.from(`key-${String(i).padStart(8, "0")}`);
    // runs of 64 keys (several 4 KiB blocks each): text that Snappy halves, or bytes it cannot shrink
    const value =
      Math.floor(i / 64) % 2 === 0
        ? Buffer.from(`value ${i} `.repeat(12))
        : Buffer.from(Array.from({ length: 120 }, () => Math.floor(random() * 256)));
    ops.push({ type: "put", key, value });
  }
  for (let i = 0; i < ops.length; i += 1000) await db.batch(ops.slice(i, i + 1000));
  await db.compactRange(Buffer.alloc(0), Buffer.alloc(16, 0xff));
  await db.close();
  tables = tablesIn(dir, ".ldb");
}, 120_000);
afterAll(() => removeDir(root));

const NAMES: Record<number, string> = { 0: "NoCompression", 1: "Snappy" };

describe("LevelDB tables written by LevelDB", () => {
  it("sst --json: blockCompression equals the trailers, compression is derived from them, entries are counted", () => {
    expect(tables.length).toBeGreaterThan(0);
    let entries = 0;
    const overall = new Map<string, number>();
    for (const t of tables) {
      const want = trailerCounts(t, FOOTER_HANDLES_FROM_END.leveldb);
      for (const type of want.keys()) expect(NAMES[type]).toBeDefined();
      const r = spawnSync(process.execPath, [bin, "sst", t, "--json", "--scan"], { encoding: "utf8" });
      expect(r.status).toBe(0);
      const j = JSON.parse(r.stdout);
      expect(j.format).toBe("leveldb");
      expect(j.properties).toEqual({});
      const expected = Object.fromEntries([...want].map(([type, n]) => [NAMES[type]!, n]));
      expect(j.blockCompression).toEqual(expected);
      const blocks = Object.values(j.blockCompression as Record<string, number>).reduce((a, b) => a + b, 0);
      expect(blocks).toBe(j.scan.dataBlocks);
      if (want.size === 1) expect(j.compression).toBe(NAMES[[...want.keys()][0]!]);
      else expect(j.compression).toBe(`mixed: Snappy ×${want.get(1)}, NoCompression ×${want.get(0)}`);
      // without --scan the trailers are still read: the same figures
      const plain = JSON.parse(
        spawnSync(process.execPath, [bin, "sst", t, "--json"], { encoding: "utf8" }).stdout,
      );
      expect(plain.blockCompression).toEqual(expected);
      expect(plain.compression).toBe(j.compression);
      entries += j.scan.entries;
      for (const [name, n] of Object.entries(j.blockCompression as Record<string, number>))
        overall.set(name, (overall.get(name) ?? 0) + n);
    }
    expect(entries).toBe(N);
    expect(overall.get("Snappy")).toBeGreaterThan(0);
    expect(overall.get("NoCompression")).toBeGreaterThan(0);
  }, 120_000);
});
