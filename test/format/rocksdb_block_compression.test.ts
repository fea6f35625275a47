/**
 * `blockCompression` on tables RocksDB wrote (db_bench, format_version 2 so that index entries hold
 * plain block handles): compressible values (Snappy keeps the blocks compressed) and incompressible
 * ones (RocksDB stores a block raw when compression saves less than 1/8), flushed to separate tables,
 * so both kinds of trailer occur. The trailers are counted by an independent walk of footer -> index
 * block -> block handles, not by the reader under test; `sst --json` must state the same counts, sum
 * them to the scan's data blocks, and derive `compression` from them where the property names one.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { dbBench, makeTempDir, removeDir, tablesIn } from "./oracle.js";

const require = createRequire(import.meta.url);
const bin = new URL("../../bin/lsmscope.js", import.meta.url).pathname;
let root: string;
let tables: string[];

beforeAll(() => {
  root = makeTempDir("rdbcomp");
  const db = join(root, "db");
  const common = [
    "--num=4000",
    "--value_size=200",
    "--compression_type=snappy",
    "--format_version=2",
    "--disable_auto_compactions=1",
  ];
  dbBench(db, ["--benchmarks=fillrandom,flush", "--compression_ratio=0.4", ...common]);
  dbBench(db, ["--use_existing_db=1", "--benchmarks=overwrite,flush", "--compression_ratio=1.0", ...common]);
  tables = tablesIn(db);
}, 120_000);
afterAll(() => removeDir(root));

/** Compression type byte -> data blocks, from the table's own bytes (RocksDB footer and index layout). */
function trailerCounts(file: string): Map<number, number> {
  const buf = readFileSync(file);
  // footer (format_version ≥ 1): checksum type u8, metaindex handle, index handle, padding, version, magic
  let p = buf.length - 53 + 1;
  const varint = (b: Buffer): number => {
    let v = 0;
    for (let shift = 0; ; shift += 7) {
      const x = b[p++]!;
      v += (x & 0x7f) * 2 ** shift;
      if (x < 0x80) return v;
    }
  };
  varint(buf);
  varint(buf); // metaindex handle
  const indexOffset = varint(buf);
  const indexSize = varint(buf);
  let index: Buffer = buf.subarray(indexOffset, indexOffset + indexSize);
  const indexType = buf[indexOffset + indexSize]!;
  if (indexType === 1)
    index = (require("snappy") as { uncompressSync(b: Buffer): Buffer }).uncompressSync(index);
  else expect(indexType).toBe(0);
  const restarts = index.readUInt32LE(index.length - 4);
  const end = index.length - 4 - 4 * restarts;
  const counts = new Map<number, number>();
  p = 0;
  while (p < end) {
    varint(index); // shared
    const nonShared = varint(index);
    const valueLength = varint(index);
    p += nonShared;
    const valueEnd = p + valueLength;
    const offset = varint(index);
    const size = varint(index);
    p = valueEnd;
    const type = buf[offset + size]!;
    counts.set(type, (counts.get(type) ?? 0) + 1);
  }
  return counts;
}

const NAMES: Record<number, string> = { 0: "NoCompression", 1: "Snappy" };

describe("RocksDB tables written by db_bench", () => {
  it("sst --json: blockCompression equals the trailers and sums to the scanned data blocks", () => {
    expect(tables.length).toBeGreaterThanOrEqual(2);
    const overall = new Map<string, number>();
    for (const t of tables) {
      const want = trailerCounts(t);
      for (const type of want.keys()) expect(NAMES[type], `type ${type}`).toBeDefined();
      const r = spawnSync(process.execPath, [bin, "sst", t, "--json", "--scan"], { encoding: "utf8" });
      expect(r.status, r.stderr).toBe(0);
      const j = JSON.parse(r.stdout);
      expect(j.formatVersion).toBe(2);
      const expected = Object.fromEntries([...want].map(([type, n]) => [NAMES[type]!, n]));
      expect(j.blockCompression).toEqual(expected);
      const blocks = Object.values(j.blockCompression as Record<string, number>).reduce((a, b) => a + b, 0);
      expect(blocks).toBe(j.scan.dataBlocks);
      expect(blocks).toBe(j.properties["rocksdb.num.data.blocks"]);
      for (const [name, n] of Object.entries(j.blockCompression as Record<string, number>))
        overall.set(name, (overall.get(name) ?? 0) + n);
    }
    expect(overall.get("Snappy")).toBeGreaterThan(0);
    expect(overall.get("NoCompression")).toBeGreaterThan(0);
  }, 120_000);
});
