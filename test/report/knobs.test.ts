/**
 * Knobs configured (OPTIONS) against knobs carried (files), on stores written by RocksDB itself:
 * - a store whose options changed between two flushes (the engine addon, RocksDB 7.8.3): every changed
 *   knob is a disagreement with the file counts behind it;
 * - sample copies with an edited OPTIONS file (partition_filters without a two-level index, a filter
 *   policy the files lack, optimize_filters_for_hits);
 * - carried aggregates against `sst_dump --show_properties` on the same files;
 * - the CF-to-CF comparison used by `check --against`.
 */
import { afterAll, describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { engineAvailable, openDb } from "../../src/engine/index.js";
import { inspectDatadir } from "../../src/datadir/inspect.js";
import { runInspect } from "../../src/report/deep.js";
import { analyzeKnobs, compareKnobs, type CfKnobs } from "../../src/analysis/knobs.js";
import { knobFindingMessage } from "../../src/report/knob_messages.js";
import { copySample, editOptions, removeDir, samplesDir, tempDir } from "./helpers.js";

const dirs: string[] = [];
afterAll(() => dirs.forEach(removeDir));

function keys(n: number, prefix: string): Buffer[] {
  return Array.from({ length: n }, (_, i) => Buffer.from(`${prefix}${String(i).padStart(8, "0")}`));
}

const cfKnobs = (all: CfKnobs[], cf: string) => all.find((k) => k.cf === cf)!;

describe.skipIf(!engineAvailable())("a store whose options changed between flushes", () => {
  it("reports each changed knob with the files that still carry the old value", async () => {
    const dir = tempDir();
    dirs.push(dir);
    const first =
      "disable_auto_compactions=true;compression=kLZ4Compression;" +
      "block_based_table_factory={format_version=5;block_size=4096;filter_policy=bloomfilter:10:false}";
    const second =
      "disable_auto_compactions=true;compression=kSnappyCompression;" +
      "block_based_table_factory={format_version=4;block_size=4096;checksum=kxxHash64;filter_policy=nullptr}";
    let db = openDb(dir, { createIfMissing: true, columnFamilies: [{ name: "data", options: first }] });
    for (const k of keys(3000, "a")) db.put("data", k, Buffer.alloc(100, 7));
    db.flush("data");
    db.close();
    db = openDb(dir, { columnFamilies: [{ name: "data", options: second }] });
    for (const k of keys(2000, "b")) db.put("data", k, Buffer.alloc(100, 9));
    db.flush("data");
    db.close();

    const model = await inspectDatadir(dir, { tableDetails: "cheap" });
    const k = cfKnobs(analyzeKnobs(model), "data");
    expect(k.configured?.compression).toBe("Snappy");
    expect(k.configured?.filter.kind).toBe("none");
    expect(k.carried.all.files).toBe(2);
    const ids = k.disagreements.map((d) => d.id).sort();
    expect(ids).toEqual(["checksum", "compression", "filter-unconfigured", "format-version"]);
    const byId = Object.fromEntries(k.disagreements.map((d) => [d.id, d]));
    expect(knobFindingMessage(byId["compression"]!)).toBe("OPTIONS: Snappy · L0: 1 file LZ4");
    expect(byId["compression"]!.files).toBe(1);
    expect(byId["filter-unconfigured"]!.files).toBe(1);
    expect(byId["format-version"]!.carried).toBe("4: 1 file, 5: 1 file");
    expect(byId["checksum"]!.configured).toBe("xxhash64");
    // the old file's filter: FastLocalBloom (format 5), ~10 bits/key over 3000 keys
    const l0 = k.carried.levels.find((l) => l.level === 0)!;
    expect(l0.filterKind).toEqual([
      { key: "fastbloom", files: 1, bytes: expect.any(Number) },
      { key: "none", files: 1, bytes: expect.any(Number) },
    ]);
    expect(l0.filterBitsPerKeyLarge).toBeGreaterThan(9.5);
    expect(l0.filterBitsPerKeyLarge).toBeLessThan(10.6);
  });
});

describe.skipIf(!existsSync(join(samplesDir, "besu-snapshot")))("edited OPTIONS on a sample copy", () => {
  it("partition_filters=true without a two-level index is flagged as having no effect", async () => {
    const dir = copySample("besu-snapshot");
    dirs.push(dir);
    editOptions(join(dir, "database"), { partition_filters: "true" });
    const all = analyzeKnobs(await inspectDatadir(dir, { tableDetails: "cheap" }));
    const k = all.find((x) => x.displayName === "cf06 ACCOUNT_INFO_STATE")!;
    expect(k.configured?.partitionFilters).toBe(true);
    expect(k.configured?.partitionFiltersEffective).toBe(false);
    const d = k.disagreements.find((x) => x.id === "partition-filters-ineffective")!;
    expect(knobFindingMessage(d)).toMatch(/^partition_filters=true has no effect without a two-level index/);
    // and the files indeed carry full filters: no "filter-partitioned" disagreement
    expect(k.disagreements.some((x) => x.id === "filter-partitioned")).toBe(false);
  });

  it("a filter policy the files lack: 'files: N of M have no filter'", async () => {
    const dir = copySample("besu-generated");
    dirs.push(dir);
    editOptions(join(dir, "database"), { filter_policy: "bloomfilter:10:false" });
    const all = analyzeKnobs(await inspectDatadir(dir, { tableDetails: "cheap" }));
    const k = all.find((x) => x.displayName === "cf06 ACCOUNT_INFO_STATE")!;
    const d = k.disagreements.find((x) => x.id === "filter-missing")!;
    expect(knobFindingMessage(d)).toBe("OPTIONS: bloomfilter:10 · files: 1 of 1 have no filter (L6)");
    expect(d.severity).toBe("error");
    // cf01 carries its bloom filters: nothing to say there
    const cf01 = all.find((x) => x.displayName === "cf01 BLOCKCHAIN")!;
    expect(cf01.disagreements).toEqual([]);
  });

  it("optimize_filters_for_hits=true turns the unfiltered bottom level into an expected note", async () => {
    const dir = copySample("besu-generated");
    dirs.push(dir);
    editOptions(join(dir, "database"), {
      filter_policy: "bloomfilter:10:false",
      optimize_filters_for_hits: "true",
    });
    const all = analyzeKnobs(await inspectDatadir(dir, { tableDetails: "cheap" }));
    const k = all.find((x) => x.displayName === "cf06 ACCOUNT_INFO_STATE")!;
    expect(k.disagreements.filter((d) => d.knob === "filter")).toEqual([]);
    const n = k.notes.find((x) => x.id === "optimize-filters-for-hits")!;
    expect(n.severity).toBe("info");
    expect(n.files).toBe(1);
  });
});

/** sst_dump's per-file properties: entries, data blocks, compression, filter policy. */
function sstDumpProps(
  dir: string,
): { entries: number; blocks: number; compression: string; policy: string }[] {
  const out = execFileSync("sst_dump", [`--file=${dir}`, "--show_properties"], {
    encoding: "latin1",
    maxBuffer: 64 << 20,
  });
  const files: { entries: number; blocks: number; compression: string; policy: string }[] = [];
  for (const part of out.split(/^Process /m).slice(1)) {
    const get = (re: RegExp) => re.exec(part)?.[1]?.trim() ?? "";
    files.push({
      entries: Number(get(/# entries: (\d+)/)),
      blocks: Number(get(/# data blocks: (\d+)/)),
      compression: get(/SST file compression algo: (.*)/),
      policy: get(/filter policy name: (.*)/),
    });
  }
  return files;
}

describe.skipIf(!existsSync(join(samplesDir, "besu-snapshot")))("carried knobs against sst_dump", () => {
  it("entries, data blocks, compressions and filter policies add up to sst_dump's", async () => {
    const dir = join(samplesDir, "besu-snapshot", "database");
    const oracle = sstDumpProps(dir);
    const r = await runInspect(join(samplesDir, "besu-snapshot"), { mode: "deep" });
    const all = analyzeKnobs(r.model);
    const files = all.reduce((a, k) => a + k.carried.all.filesRead, 0);
    expect(files).toBe(oracle.length);
    expect(all.reduce((a, k) => a + k.carried.all.entries, 0)).toBe(
      oracle.reduce((a, f) => a + f.entries, 0),
    );
    const tally = (xs: string[]) =>
      xs.reduce<Record<string, number>>((m, x) => ((m[x] = (m[x] ?? 0) + 1), m), {});
    const ours: Record<string, number> = {};
    for (const k of all)
      for (const t of k.carried.all.compression) ours[t.key] = (ours[t.key] ?? 0) + t.files;
    expect(ours).toEqual(tally(oracle.map((f) => f.compression)));
    const policies: Record<string, number> = {};
    for (const k of all)
      for (const t of k.carried.all.filterPolicy) policies[t.key] = (policies[t.key] ?? 0) + t.files;
    expect(policies).toEqual(tally(oracle.filter((f) => f.policy !== "").map((f) => f.policy)));
    // deep mode walked every index: its data-block count is sst_dump's
    const deepBlocks = [...r.deep!.values()].reduce((a, d) => a + d.dataBlocks, 0);
    expect(deepBlocks).toBe(oracle.reduce((a, f) => a + f.blocks, 0));
    expect([...r.deep!.values()].every((d) => d.propertiesAgree === true && !d.error)).toBe(true);
  });
});

describe.skipIf(
  !existsSync(join(samplesDir, "besu-generated")) || !existsSync(join(samplesDir, "besu-snapshot")),
)("compareKnobs", () => {
  it("finds the filter difference between the arms, and none between a store and itself", async () => {
    const a = analyzeKnobs(
      await inspectDatadir(join(samplesDir, "besu-snapshot"), { tableDetails: "cheap" }),
    );
    const b = analyzeKnobs(
      await inspectDatadir(join(samplesDir, "besu-generated"), { tableDetails: "cheap" }),
    );
    const pick = (x: CfKnobs[]) => x.find((k) => k.displayName === "cf06 ACCOUNT_INFO_STATE")!;
    const cmp = compareKnobs(pick(a), pick(b));
    const cfgFilter = cmp.differences.find((d) => d.side === "configured" && d.knob === "filter")!;
    expect(cfgFilter).toMatchObject({ a: "bloomfilter:10", b: "none" });
    const carried = cmp.differences.find(
      (d) => d.side === "carried" && d.knob === "filter" && d.level === undefined,
    )!;
    expect(carried.a).toContain("fastbloom");
    expect(carried.b).toBe("none");
    // knobs the arms share are equal rows
    expect(cmp.rows.find((r) => r.side === "configured" && r.knob === "compression")!.equal).toBe(true);
    expect(compareKnobs(pick(a), pick(a)).differences).toEqual([]);
  });
});
