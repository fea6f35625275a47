/**
 * The inspect flags on the committed samples: each fires where the generator put its cause and nowhere
 * else (issue 5: besu-generated has no filters on its state CFs; besu-snapshot has small files above the
 * bottom level; the nethermind Snappy instance's last level is unfiltered by optimize_filters_for_hits).
 */
import { describe, expect, it } from "vitest";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { runInspect } from "../../src/report/deep.js";
import { buildInspectReport, type InspectReport } from "../../src/report/build.js";
import { samplesDir } from "./helpers.js";

const have = (s: string) => existsSync(join(samplesDir, s));

async function report(sample: string): Promise<InspectReport> {
  const r = await runInspect(join(samplesDir, sample));
  return buildInspectReport(r.model, r.mode);
}

/** "instance › cf" → ids of warn/error flags (and info ids when `info`). */
function flagMap(r: InspectReport, info = false): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const i of r.instances)
    for (const c of i.cfs) {
      const ids = c.flags.filter((f) => info || f.severity !== "info").map((f) => f.id);
      if (ids.length) out[`${i.instance.relPath} › ${c.cf.displayName}`] = ids.sort();
    }
  return out;
}

describe.skipIf(!have("besu-generated"))("besu-generated", () => {
  it("flags the state CFs without filters, and nothing else", async () => {
    const r = await report("besu-generated");
    expect(flagMap(r)).toEqual({
      "database › cf06 ACCOUNT_INFO_STATE": ["filter-none-client"],
      "database › cf07 CODE_STORAGE": ["filter-none-client"],
      "database › cf08 ACCOUNT_STORAGE_STORAGE": ["filter-none-client"],
      "database › cf09 TRIE_BRANCH_STORAGE": ["filter-none-client"],
    });
    // everything sits in the bottom level: no placement flag of any severity
    for (const i of r.instances)
      for (const c of i.cfs) expect(c.layout.placement?.filesAboveBottom ?? 0).toBe(0);
  });
});

describe.skipIf(!have("besu-snapshot"))("besu-snapshot", () => {
  it("flags the small L0 files above L6 in every CF that has them, and no filter problem", async () => {
    const r = await report("besu-snapshot");
    const m = flagMap(r);
    const inst = r.instances[0]!;
    const withL0 = inst.cfs.filter((c) => c.layout.l0Files > 0 && c.layout.placement!.bottomLevel > 0);
    expect(withL0.length).toBeGreaterThanOrEqual(4);
    for (const c of inst.cfs) {
      const key = `database › ${c.cf.displayName}`;
      if (withL0.includes(c)) expect(m[key]).toEqual(["small-files-above-bottom"]);
      else expect(m[key]).toBeUndefined();
    }
    // the numbers behind it come from the MANIFEST
    const cf06 = inst.cfs.find((c) => c.cf.displayName === "cf06 ACCOUNT_INFO_STATE")!;
    const l0 = cf06.cf.levels.find((l) => l.level === 0)!;
    expect(cf06.layout.placement!.bytesAboveBottom).toBe(l0.bytes);
    expect(cf06.layout.l0Trigger).toBe(4);
    // the WAL holds unflushed writes, and the report says which CFs
    expect(inst.wal.some((w) => w.unflushedWrites > 0)).toBe(true);
  });
});

describe.skipIf(!have("nethermind"))("nethermind", () => {
  it("notes the unfiltered last level of the Snappy instance (info), and warns nowhere", async () => {
    const r = await report("nethermind");
    expect(flagMap(r)).toEqual({});
    const state = r.instances.find((i) => i.instance.relPath.endsWith("/state"))!;
    const c = state.cfs[0]!;
    expect(c.knobs.configured?.optimizeFiltersForHits).toBe(true);
    expect(c.knobs.configured?.compression).toBe("Snappy");
    const note = c.flags.find((f) => f.id === "optimize-filters-for-hits")!;
    expect(note.severity).toBe("info");
    expect(note.level).toBe(c.layout.placement!.bottomLevel);
    const bottom = c.cf.levels.find((l) => l.level === c.layout.placement!.bottomLevel)!;
    expect(bottom.files.every((f) => f.details?.filter?.kind === "none")).toBe(true);
    expect(note.message).toContain(
      `L${bottom.level}: ${bottom.files.length} of ${bottom.files.length} files`,
    );
    // the levels above carry partitioned filters, as configured: no disagreement
    expect(c.knobs.disagreements.filter((d) => d.id.startsWith("filter"))).toEqual([]);
    // optimize_filters_for_hits appears nowhere else
    for (const i of r.instances)
      for (const x of i.cfs)
        if (x !== c) expect(x.flags.some((f) => f.id === "optimize-filters-for-hits")).toBe(false);
  });
});

describe.skipIf(!have("geth-leveldb") || !have("modern"))("geth-leveldb and modern", () => {
  it("raise no warning", async () => {
    expect(flagMap(await report("geth-leveldb"))).toEqual({});
    expect(flagMap(await report("modern"))).toEqual({});
  });
});
