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
import { join } from "node:path";
import { FOOTER_HANDLES_FROM_END, trailerCounts } from "../helpers/block_trailers.js";
import { dbBench, makeTempDir, removeDir, tablesIn } from "./oracle.js";

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

const NAMES: Record<number, string> = { 0: "NoCompression", 1: "Snappy" };

describe("RocksDB tables written by db_bench", () => {
  it("sst --json: blockCompression equals the trailers and sums to the scanned data blocks", () => {
    expect(tables.length).toBeGreaterThanOrEqual(2);
    const overall = new Map<string, number>();
    for (const t of tables) {
      const want = trailerCounts(t, FOOTER_HANDLES_FROM_END.rocksdb);
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
