/**
 * `inspect` (default and --deep) takes each table's size on disk from its own open of the table, not a
 * stat of its own, and makes the size checks after the reads. The model must come out as the stat
 * would have made it: every table's diskSize, and every finding (size mismatches, missing tables, blob
 * files) in the same order, with only the reader's own findings (sst-unreadable) added. Damaged copies
 * of the committed samples written by RocksDB (Besu-shaped: one store with blob files; Nethermind-
 * shaped: several stores): tables cut short, grown, deleted, replaced by a directory; a blob file cut.
 */
import { afterAll, describe, expect, it } from "vitest";
import { appendFileSync, existsSync, mkdirSync, readdirSync, rmSync, truncateSync, statSync } from "node:fs";
import { join } from "node:path";
import { inspectDatadir } from "../../src/datadir/inspect.js";
import type { DatadirModel } from "../../src/datadir/model.js";
import { runInspect } from "../../src/report/deep.js";
import { copyInto, removeDir, tempDir } from "./helpers.js";

const samples = new URL("../../samples", import.meta.url).pathname;
const root = tempDir("lsmscope-table-sizes-");
afterAll(() => removeDir(root));

/** Every store directory below `dir` that holds tables, in name order. */
function storesWithTables(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (!statSync(p).isDirectory()) continue;
    if (readdirSync(p).some((n) => n.endsWith(".sst"))) out.push(p);
    out.push(...storesWithTables(p));
  }
  return out;
}

/** Damage a store: its tables (name order) cut, grown, deleted, made a directory; its first blob file cut. */
function damage(store: string, which: number): void {
  const tables = readdirSync(store)
    .filter((n) => n.endsWith(".sst"))
    .sort()
    .map((n) => join(store, n));
  const pick = (i: number) => tables[(i + which) % tables.length]!;
  truncateSync(pick(0), statSync(pick(0)).size - 100);
  if (tables.length > 1) appendFileSync(pick(1), "grown");
  if (tables.length > 2) rmSync(pick(2));
  if (tables.length > 3) {
    rmSync(pick(3));
    mkdirSync(pick(3));
  }
  const blob = readdirSync(store)
    .filter((n) => n.endsWith(".blob"))
    .sort()[0];
  if (blob) truncateSync(join(store, blob), statSync(join(store, blob)).size - 10);
}

const shown = (m: DatadirModel) =>
  m.findings
    .filter((f) => f.code !== "sst-unreadable")
    .map((f) => `${f.severity} ${f.code} ${f.file}: ${f.message}`);
const sizes = (m: DatadirModel) =>
  m.instances.flatMap((i) =>
    i.columnFamilies.flatMap((cf) => cf.levels.flatMap((l) => l.files.map((f) => `${f.path} ${f.diskSize}`))),
  );
const instanceFindings = (m: DatadirModel) =>
  m.instances.map((i) => i.findings.filter((f) => f.code !== "sst-unreadable"));

describe.skipIf(!existsSync(join(samples, "nethermind")))("sizes on disk from the reader's open", () => {
  for (const sample of ["besu-snapshot", "nethermind"]) {
    it(`${sample}, damaged: the same sizes and findings as the stat gives, in the same order`, async () => {
      const d = copyInto(join(samples, sample), root);
      storesWithTables(d).forEach((s, i) => damage(s, i));
      const stat = await inspectDatadir(d, { tableDetails: "none" });
      expect(shown(stat).filter((f) => f.includes("sst-size-mismatch")).length).toBeGreaterThan(1);
      const cheap = (await runInspect(d, { mode: "cheap" })).model;
      const deep = (await runInspect(d, { mode: "deep" })).model;
      for (const m of [cheap, deep]) {
        expect(sizes(m)).toEqual(sizes(stat));
        expect(shown(m)).toEqual(shown(stat));
        expect(instanceFindings(m)).toEqual(instanceFindings(stat));
        expect(m.complete).toBe(false);
        // in each store the reader's findings come after its size checks, as they did
        for (const inst of m.instances) {
          const codes = inst.findings.map((f) => f.code);
          if (codes.includes("sst-unreadable"))
            expect(codes.lastIndexOf("sst-size-mismatch")).toBeLessThan(codes.indexOf("sst-unreadable"));
        }
      }
    }, 120_000);
  }
});
