/**
 * `lsmscope sst` through the built binary: the JSON shape of issue 3, --scan/--verify/--blocks, and
 * one line + non-zero exit on a corrupt file.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { dbBench, makeTempDir, removeDir, sstDumpScan } from "./oracle.js";

const bin = new URL("../../bin/lsmscope.js", import.meta.url).pathname;
let root: string;
let file: string;

beforeAll(() => {
  root = makeTempDir("cli");
  [file] = dbBench(join(root, "db"), ["--num=3000", "--compression_type=lz4", "--bloom_bits=10"]) as [string];
});
afterAll(() => removeDir(root));

function lsmscope(...args: string[]) {
  return spawnSync(process.execPath, [bin, ...args], { encoding: "utf8" });
}

describe("lsmscope sst", () => {
  it("--json --scan --verify --blocks", () => {
    const r = lsmscope("sst", file, "--json", "--scan", "--verify", "--blocks");
    expect(r.status).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j.format).toBe("block-based");
    expect(j.formatVersion).toBe(5);
    expect(j.checksum).toBe("xxh3");
    expect(j.compression).toBe("LZ4");
    expect(j.properties["rocksdb.num.entries"]).toBe(j.scan.entries);
    expect(j.properties["rocksdb.raw.key.size"]).toBe(j.scan.rawKeyBytes);
    expect(j.properties["rocksdb.raw.value.size"]).toBe(j.scan.rawValueBytes);
    expect(j.filter.kind).toBe("fastbloom");
    expect(j.filter.partitioned).toBe(false);
    expect(j.filter.bitsPerKey).toBeGreaterThan(9);
    const d = sstDumpScan(file);
    expect(j.scan.firstKey).toBe(d.firstKey);
    expect(j.scan.lastKey).toBe(d.lastKey);
    expect(j.verify.ok).toBe(true);
    expect(j.blocks.length).toBe(j.properties["rocksdb.num.data.blocks"]);
  });

  it("text output names the footer, meta blocks, filter and properties", () => {
    const r = lsmscope("sst", file);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/format: block-based v5, checksum xxh3, compression LZ4/);
    expect(r.stdout).toMatch(/meta blocks:/);
    expect(r.stdout).toMatch(/filter: fastbloom/);
    expect(r.stdout).toMatch(/rocksdb\.num\.entries: \d+/);
  });

  it("a corrupt file: --scan gives one line naming file, block and offset; --verify reports it; exit 2", () => {
    const bad = join(root, "bad.sst");
    const b = readFileSync(file);
    b[100]! ^= 0x55; // inside the first data block
    writeFileSync(bad, b);
    const r = lsmscope("sst", bad, "--scan");
    expect(r.status).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toMatch(new RegExp(`${bad} @ offset 0: data block: xxh3 checksum mismatch`));
    const v = lsmscope("sst", bad, "--verify", "--json");
    expect(v.status).toBe(2);
    expect(v.stderr).toBe("");
    expect(JSON.parse(v.stdout).verify).toMatchObject({
      ok: false,
      errors: [{ offset: 0, kind: "data", message: expect.stringMatching(/^xxh3 checksum mismatch/) }],
    });
  });

  it("a missing file: one line, non-zero exit", () => {
    const r = lsmscope("sst", join(root, "nope.sst"));
    expect(r.status).not.toBe(0);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
  });
});
