/**
 * geth's freezer: the tables written into the geth sample (as go-ethereum's freezer_table.go lays them
 * out) read back against the sample's truth; the items decoded through the index with the snappy
 * package agree with each other (each header hashes to the `hashes` item); inspect, --json and the summary
 * show them; a torn index or data file is reported per table, not fatal. Read-only.
 */
import { afterAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { appendFileSync, readFileSync, truncateSync } from "node:fs";
import { join } from "node:path";
import { uncompressSync } from "snappy";
import { REPO, SAMPLES, copyInto, snapshotTree, trackedTempDirs } from "../helpers/index.js";
import { findFreezers } from "../../src/freezer/index.js";
import { keccak256 } from "../../src/eth/keccak.js";

const bin = join(REPO, "bin", "lsmscope.js");
const run = (args: string[]) =>
  spawnSync(process.execPath, [bin, ...args], { encoding: "utf8", maxBuffer: 64 << 20 });
const { tempDir, cleanupTemps } = trackedTempDirs("lsmscope-freezer-");
afterAll(cleanupTemps);

const GETH = join(SAMPLES, "geth-leveldb");
const truth = JSON.parse(readFileSync(join(SAMPLES, "geth-leveldb.truth.json"), "utf8"));

/** Item i (0-based among the stored index entries) of a table, decompressed when the table is. */
function item(dir: string, name: string, compressed: boolean, i: number): Buffer {
  const idx = readFileSync(join(dir, `${name}.${compressed ? "c" : "r"}idx`));
  const start = i === 0 ? 0 : idx.readUInt32BE(6 * i + 2);
  const end = idx.readUInt32BE(6 * (i + 1) + 2);
  const data = readFileSync(join(dir, `${name}.0000.${compressed ? "c" : "r"}dat`)).subarray(start, end);
  return compressed ? (uncompressSync(data) as Buffer) : data;
}

describe("freezer", () => {
  it("reads the geth sample's tables as its truth records them", () => {
    const before = snapshotTree(GETH);
    const fs = findFreezers(GETH);
    expect(snapshotTree(GETH)).toEqual(before);
    expect(fs.map((f) => ({ path: f.relPath, kind: f.kind }))).toEqual(
      truth.freezers.map((f: { path: string; kind: string }) => ({ path: f.path, kind: f.kind })),
    );
    expect(
      fs[0]!.tables.map(({ name, items, tail, compressed, bytes }) => ({
        name,
        items,
        tail,
        compressed,
        bytes,
      })),
    ).toEqual(truth.freezers[0].tables);
    expect(fs[0]!.tables.every((t) => t.error === undefined)).toBe(true);
  });

  it("the index addresses whole items: each stored header hashes to the hashes table's item", () => {
    const dir = join(GETH, truth.freezers[0].path);
    const t = findFreezers(GETH)[0]!.tables.find((x) => x.name === "headers")!;
    const stored =
      t.items - truth.freezers[0].tables.find((x: { name: string }) => x.name === "headers").tail;
    for (const i of [0, Math.floor(stored / 2), stored - 1])
      expect(keccak256(item(dir, "headers", true, i)).equals(item(dir, "hashes", false, i))).toBe(true);
  });

  it("inspect, --json and the summary show the freezer and its share", () => {
    const text = run(["inspect", GETH]);
    expect(text.status).toBe(0);
    expect(text.stdout).toMatch(/freezer geth\/chaindata\/ancient\/chain \(chain\): .*% of the datadir/);
    expect(text.stdout).toMatch(/^ {2}bodies +20,000,050 +20,000,002 +48 /m);
    const m = JSON.parse(run(["inspect", "--json", GETH]).stdout);
    expect(m.freezers[0].tables.map((t: { name: string }) => t.name)).toEqual([
      "bodies",
      "diffs",
      "hashes",
      "headers",
      "receipts",
    ]);
    const csv = run(["inspect", "--summary", "--csv", GETH]).stdout;
    const headers = csv.split("\r\n").find((l) => l.startsWith("geth/chaindata/ancient/chain,headers,"))!;
    const t = m.freezers[0].tables.find((x: { name: string }) => x.name === "headers");
    // by column name: the summary's columns grow (freezerItems came after this test was written)
    const column = csv.split("\r\n")[0]!.split(",").indexOf("freezerBytes");
    expect(column).toBeGreaterThan(0);
    expect(headers.split(",")[column]).toBe(String(t.bytes + t.indexBytes + t.metaBytes));
  });

  it("a torn index entry and a data file longer than its index are reported per table", () => {
    const copy = copyInto(GETH, tempDir());
    const dir = join(copy, truth.freezers[0].path);
    const idx = join(dir, "bodies.cidx");
    truncateSync(idx, readFileSync(idx).length - 2);
    appendFileSync(join(dir, "receipts.0000.cdat"), Buffer.alloc(5));
    const t = findFreezers(copy)[0]!.tables;
    const bodies = t.find((x) => x.name === "bodies")!;
    expect(bodies.error).toMatch(/index ends at byte|trailing bytes/);
    expect(bodies.items).toBe(truth.freezers[0].tables[0].items - 1);
    expect(t.find((x) => x.name === "receipts")!.error).toMatch(/holds \d+ bytes/);
    const r = run(["inspect", copy]);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/! receipts: index ends at byte/);
  });
});
