/**
 * `inspect --summary [--csv]` against what RocksDB's own tools say about a db_bench store (levels and file
 * sizes from `ldb manifest_dump`, entries from `sst_dump --show_properties`, WAL and blob sizes from
 * stat), the RFC 4180 quoting, and the text table's width.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { parse } from "csv-parse/sync";
import { REPO, SAMPLES, dbBench, snapshotTree, summaryRow, trackedTempDirs } from "../helpers/index.js";
import { ldbManifest } from "../datadir/helpers.js";
import { sstDumpProperties } from "../format/oracle.js";
import { renderSummaryCsv } from "../../src/summary/render.js";
import type { Summary } from "../../src/summary/index.js";

const bin = join(REPO, "bin", "lsmscope.js");
const run = (args: string[]) => spawnSync(process.execPath, [bin, ...args], { encoding: "utf8" });
const { tempDir, cleanupTemps } = trackedTempDirs("lsmscope-summary-");
let db: string;

beforeAll(() => {
  db = join(tempDir(), "db");
  // bulk in the bottom level, then overwrites flushed into small L0 files above it, the rest in the WAL;
  // auto-compactions off for the overwrites, or a background compaction may move every L0 file down
  // (CI met a store with nothing above the bottom level)
  dbBench(db, ["--benchmarks=fillrandom,compact", "--num=20000"]);
  dbBench(db, [
    "--benchmarks=overwrite",
    "--use_existing_db=1",
    "--num=3000",
    "--write_buffer_size=65536",
    "--disable_auto_compactions=1",
    "--seed=43",
  ]);
}, 120_000);
afterAll(cleanupTemps);

describe("inspect --summary --csv on a db_bench store", () => {
  it("matches ldb's levels and sizes, sst_dump's entries and the WAL file sizes", () => {
    const before = snapshotTree(db);
    const r = run(["inspect", "--summary", "--csv", db]);
    expect(r.status).toBe(0);
    expect(snapshotTree(db)).toEqual(before);
    expect(r.stdout.endsWith("\r\n")).toBe(true);
    const rows = parse(r.stdout, { columns: true }) as Record<string, string>[];
    expect(Object.keys(rows[0]!)).toEqual([
      "instance",
      "cf",
      "entries",
      "freezerItems",
      "sstBytes",
      "blobFileBytes",
      "walBytes",
      "freezerBytes",
      "totalBytes",
      "files",
      "bytesAboveBottom",
    ]);
    const cf = rows.find((x) => x.cf === "default")!;
    const wal = rows.find((x) => x.cf === "(WAL)")!;
    const total = rows.at(-1)!;
    expect(total.instance).toBe("Total");

    const oracle = ldbManifest({ db }).cfs.find((c) => c.name === "default")!;
    const bottom = Math.max(...oracle.files.map((f) => f.level));
    const above = oracle.files.filter((f) => f.level < bottom);
    expect(above.length).toBeGreaterThan(0); // the layout this test needs
    expect(Number(cf.sstBytes)).toBe(oracle.files.reduce((a, f) => a + f.fileSize, 0));
    expect(Number(cf.bytesAboveBottom)).toBe(above.reduce((a, f) => a + f.fileSize, 0));
    expect(Number(cf.files)).toBe(oracle.files.length);
    const entries = oracle.files.reduce((a, f) => {
      const name = `${String(f.fileNumber).padStart(6, "0")}.sst`;
      return a + Number(sstDumpProperties(join(db, name)).labels.get("# entries"));
    }, 0);
    expect(Number(cf.entries)).toBe(entries);

    const logs = readdirSync(db).filter((n) => n.endsWith(".log"));
    expect(logs.length).toBeGreaterThan(0);
    expect(Number(wal.walBytes)).toBe(logs.reduce((a, n) => a + statSync(join(db, n)).size, 0));
    expect(Number(wal.files)).toBe(logs.length);

    for (const k of ["sstBytes", "blobFileBytes", "walBytes", "totalBytes", "files", "bytesAboveBottom"])
      expect(Number(total[k])).toBe(Number(cf[k]) + Number(wal[k]));
    expect(Number(total.totalBytes)).toBe(
      Number(total.sstBytes) + Number(total.blobFileBytes) + Number(total.walBytes),
    );
  });

  it("text: one table within 80 columns with a Total row", () => {
    const r = run(["inspect", "--summary", db]);
    expect(r.status).toBe(0);
    const lines = r.stdout.trimEnd().split("\n");
    expect(lines.every((l) => [...l].length <= 80)).toBe(true);
    expect(r.stdout).toMatch(/^ {2}default +[\d,.]+M? /m);
    expect(r.stdout).toMatch(/^ {2}Total /m);
  });

  it("--csv without --summary is a usage error", () => {
    expect(run(["inspect", "--csv", db]).status).toBe(2);
  });
});

describe("summary on the committed samples", () => {
  it("besu-snapshot: the blob bytes are the blob files' sizes on disk", () => {
    const dir = join(SAMPLES, "besu-snapshot");
    const rows = parse(run(["inspect", "--summary", "--csv", dir]).stdout, { columns: true }) as Record<
      string,
      string
    >[];
    const store = join(dir, "database");
    const blobs = readdirSync(store).filter((n) => n.endsWith(".blob"));
    const total = rows.at(-1)!;
    expect(Number(total.blobFileBytes)).toBe(blobs.reduce((a, n) => a + statSync(join(store, n)).size, 0));
    expect(rows.find((x) => x.cf === "cf07 CODE_STORAGE")!.entries).toBe("116"); // truth: code entries
  });
});

describe("renderSummaryCsv", () => {
  it("quotes fields as RFC 4180 says", () => {
    const row = summaryRow("a,b", 'say "hi"');
    const s: Summary = { root: "/", rows: [row], total: { ...row, instance: "Total", cf: "" } };
    const lines = renderSummaryCsv(s).split("\r\n");
    expect(lines[1]).toBe('"a,b","say ""hi""",,,1,0,0,0,1,1,0');
  });

  it("geth: freezer items are their own column, never summed into table entries", () => {
    const r = run(["inspect", "--summary", "--csv", join(SAMPLES, "geth-leveldb")]);
    expect(r.status).toBe(0);
    const rows = parse(r.stdout, { columns: true }) as Record<string, string>[];
    const freezer = rows.filter((x) => x.freezerItems !== "" && x.instance !== "Total");
    expect(freezer.length).toBeGreaterThan(0);
    for (const x of freezer) expect(x.entries).toBe("");
    const total = rows.find((x) => x.instance === "Total")!;
    expect(Number(total.freezerItems)).toBe(freezer.reduce((a, x) => a + Number(x.freezerItems), 0));
    // LevelDB tables carry no entry count (without --deep): the total is unknown, not the freezer's items
    expect(total.entries).toBe("");
  });
});
