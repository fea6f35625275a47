/**
 * `lsmscope diff` on stores RocksDB wrote: db_bench stores, copies changed with `ldb put` / `ldb delete`
 * (on the copy), the same contents in another layout (`ldb compact`: one bottom-level file, WAL flushed),
 * blob files on one side, and the exit codes of diff(1). Read-only: both trees hashed before and after.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFileSync, spawnSync } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { diffDatadirs } from "../../src/diff/index.js";
import { REPO, SAMPLES, copyInto, dbBench, snapshotTree, trackedTempDirs } from "../helpers/index.js";

const bin = join(REPO, "bin", "lsmscope.js");
const run = (args: string[]) =>
  spawnSync(process.execPath, [bin, ...args], { encoding: "utf8", maxBuffer: 64 << 20 });
const ldb = (db: string, args: string[]) =>
  execFileSync("ldb", [`--db=${db}`, ...args], { encoding: "utf8" });
const { tempDir, cleanupTemps } = trackedTempDirs("lsmscope-diff-");

let a: string; // several L0 files and writes left in the WAL
let relaid: string; // a copy of `a` compacted by ldb
let blobs: string; // the same keys written with blob files
let plainForBlobs: string;

beforeAll(() => {
  const root = tempDir();
  a = join(root, "a");
  // no compactions: with them, a loaded machine's flushes and compactions could leave one file (6-10
  // without, 1-4 with, in runs on the development machine)
  dbBench(a, [
    "--benchmarks=fillrandom",
    "--num=5000",
    "--write_buffer_size=65536",
    "--disable_auto_compactions=1",
  ]);
  relaid = copyInto(a, root, "relaid");
  ldb(relaid, ["compact"]);
  blobs = join(root, "blobs");
  plainForBlobs = join(root, "plain");
  const same = [
    "--benchmarks=fillseq",
    "--num=2000",
    "--value_size=400",
    "--compression_type=none",
    "--write_buffer_size=131072",
  ];
  dbBench(blobs, [...same, "--enable_blob_files=true", "--min_blob_size=100"]);
  dbBench(plainForBlobs, same);
}, 180_000);
afterAll(cleanupTemps);

const json = (r: ReturnType<typeof run>) => JSON.parse(r.stdout);

describe("diff", () => {
  it("the same contents in another layout are identical (exit 0); nothing is written", () => {
    expect(readdirSync(a).filter((n) => n.endsWith(".sst")).length).toBeGreaterThan(1);
    expect(readdirSync(relaid).filter((n) => n.endsWith(".sst")).length).toBe(1);
    const before = [snapshotTree(a), snapshotTree(relaid)];
    const r = run(["diff", "--json", a, relaid]);
    expect(r.status).toBe(0);
    const d = json(r);
    expect(d.identical).toBe(true);
    // db_bench fillrandom draws keys with repeats: the live key count is what ldb scans
    const live = ldb(relaid, ["scan", "--hex"]).trim().split("\n").length;
    expect(d.totals).toEqual({ same: live, changed: 0, onlyInA: 0, onlyInB: 0 });
    expect([snapshotTree(a), snapshotTree(relaid)]).toEqual(before);
  });

  it("one key changed, one deleted, one added with ldb on a copy: counted and listed in hex (exit 1)", () => {
    const b = copyInto(a, tempDir(), "b");
    const keys = ldb(b, ["scan", "--hex", "--max_keys=3"])
      .trim()
      .split("\n")
      .map((l) => l.split(" : ")[0]!);
    ldb(b, ["put", "--hex", keys[0]!, "0x0102"]);
    ldb(b, ["delete", "--hex", keys[1]!]);
    ldb(b, ["put", "--hex", "0xffffffffffffffff00", "0x03"]);
    const live = ldb(relaid, ["scan", "--hex"]).trim().split("\n").length;
    const r = run(["diff", "--json", "--limit", "2", a, b]);
    expect(r.status).toBe(1);
    const d = json(r);
    expect(d.identical).toBe(false);
    const cf = d.columnFamilies[0];
    expect(cf).toMatchObject({ displayName: "default", changed: 1, onlyInA: 1, onlyInB: 1, same: live - 2 });
    const hex = (k: string) => k.slice(2).toLowerCase();
    expect(cf.differences).toEqual([
      { kind: "changed", key: hex(keys[0]!) },
      { kind: "onlyInA", key: hex(keys[1]!) },
    ]);
    const text = run(["diff", a, b]);
    expect(text.status).toBe(1);
    expect(text.stdout).toMatch(/^ {2}default +[\d,]+ +1 +1 +1$/m);
    expect(text.stdout).toContain(`onlyInB  ffffffffffffffff00`);
    expect(text.stdout.split("\n").every((l) => [...l].length <= 80)).toBe(true);
  });

  it("values in blob files are resolved: a blob store equals the same writes without blobs", () => {
    expect(readdirSync(blobs).some((n) => n.endsWith(".blob"))).toBe(true);
    const r = run(["diff", "--json", blobs, plainForBlobs]);
    expect(r.status).toBe(0);
    expect(json(r).totals.same).toBe(2000);
  });

  it("column families pair by name; --cf narrows; a CF on one side only counts as onlyIn", () => {
    const snap = join(SAMPLES, "besu-snapshot");
    const r = run(["diff", "--json", "--cf", "cf0b", snap, snap, "--cf", "cf0b VARIABLES"]);
    expect(r.status).toBe(0);
    const d = json(r);
    expect(d.columnFamilies.map((c: { displayName: string }) => c.displayName)).toEqual(["cf0b VARIABLES"]);
    const other = run(["diff", "--json", snap, a]);
    expect(other.status).toBe(1);
    const o = json(other);
    const blockchain = o.columnFamilies.find(
      (c: { displayName: string }) => c.displayName === "cf01 BLOCKCHAIN",
    );
    expect(blockchain).toMatchObject({ inA: true, inB: false, same: 0, onlyInB: 0 });
    expect(blockchain.onlyInA).toBeGreaterThan(0);
  });

  it("progress counts the tables' file bytes and ends at their total (a store against itself)", async () => {
    const seen: [number, number][] = [];
    const r = await diffDatadirs(a, a, { onProgress: (done, total) => seen.push([done, total]) });
    expect(r.identical).toBe(true);
    const sst = readdirSync(a).filter((n) => n.endsWith(".sst"));
    const fileBytes = sst.reduce((s, n) => s + statSync(join(a, n)).size, 0);
    // both sides' tables, as they lie on disk
    expect(seen.every(([, total]) => total === 2 * fileBytes)).toBe(true);
    expect(seen.every(([done], i) => i === 0 || done >= seen[i - 1]![0])).toBe(true);
    // data blocks alone came to ~95% of the files: the bar ended short of its total
    expect(seen.at(-1)).toEqual([2 * fileBytes, 2 * fileBytes]);
  });

  it("bad input exits 2 with one line", () => {
    const r = run(["diff", a, join(a, "missing")]);
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(run(["diff", "--cf", "nosuch", a, a]).status).toBe(2);
  });
});
