/**
 * Every number printed is defined once and named the same everywhere: the one percent formatter, the
 * one name of the bottom when every table is in L0, a level's entries counted as the column family's,
 * "bits/key" one figure (the filter-bits check's figure named apart), the probe figures' decimals.
 */
import { afterAll, describe, expect, it } from "vitest";
import { openSync, closeSync, fstatSync, writeSync } from "node:fs";
import { join } from "node:path";
import { fpText, pct, pctOf } from "../../src/util/words.js";
import { shortText } from "../../src/check/render.js";
import type { CheckFinding } from "../../src/check/types.js";
import { layoutFlagMessage } from "../../src/report/layout_messages.js";
import { placementText, renderCf } from "../../src/report/render.js";
import { knobFindingMessage } from "../../src/report/knob_messages.js";
import type { KnobFinding } from "../../src/analysis/knobs.js";
import { cfLayout, type CfLayout, type LayoutFlag } from "../../src/analysis/layout.js";
import { placementBottomName, type Placement } from "../../src/datadir/placement.js";
import type { ColumnFamilyModel, InstanceModel } from "../../src/datadir/model.js";
import { runInspect } from "../../src/report/deep.js";
import { buildInspectReport } from "../../src/report/build.js";
import { renderHtmlReport } from "../../src/html/index.js";
import type { ProbeReport } from "../../src/probe/types.js";
import { copySample, removeDir, samplesDir } from "./helpers.js";

const allL0: Placement = {
  bottomLevel: 0,
  oldestL0AsBottom: true,
  filesAboveBottom: 2,
  bytesAboveBottom: 4,
  filesInBottom: 1,
  bytesInBottom: 10000,
  byteShareAboveBottom: 0.0004,
  perLevel: [{ level: 0, files: 3, bytes: 10004 }],
};

describe("one percent formatter", () => {
  it("says 0 as 0%, a tiny share as <0.1%, near-all apart from all", () => {
    expect(pct(0)).toBe("0%");
    expect(pct(0.0004)).toBe("<0.1%");
    expect(pct(0.042)).toBe("4.2%");
    expect(pct(0.37)).toBe("37%");
    expect(pct(0.996)).toBe("99.6%");
    expect(pct(0.9996)).toBe(">99.9%");
    expect(pct(1)).toBe("100%");
    expect(pctOf(3, 0)).toBe("0%");
  });

  it("check's part/whole form, which its rules call (pctOf), is the same formatter (was 37.0%)", () => {
    expect(pctOf(37, 100)).toBe("37%");
    expect(pctOf(0, 100)).toBe("0%");
    expect(pctOf(4, 10000)).toBe("<0.1%");
    expect(pctOf(100, 100)).toBe("100%");
  });

  it("check's placement-overlay line: the formatter and the bottom's name (was 'oldest L0 file (37.0%)')", () => {
    const f = {
      rule: "placement-overlay",
      severity: "warn",
      arm: "subject",
      instance: ".",
      cf: "default",
      message: "",
      evidence: {
        bytesAboveBottom: 1024,
        oldestL0AsBottom: true,
        bottomLevel: 0,
        byteShareAboveBottom: 0.37,
        entriesAboveBottom: 10,
        shadowedEntriesEstimate: { value: 3, low: 3, high: 3, method: "exact" },
      },
    } as unknown as CheckFinding;
    expect(shortText(f)).toContain("above the oldest L0 table (37%)");
  });

  it("the layout flags: a tiny share is <0.1% (was 0.0%), the bottom named as placementBottomName", () => {
    const layout = {
      placement: allL0,
      entriesAboveBottom: 2,
      entriesInBottom: 12345,
      files: 3,
    } as unknown as CfLayout;
    const flag: LayoutFlag = { id: "above-bottom", severity: "info", evidence: {} };
    const m = layoutFlagMessage(flag, layout);
    expect(m).toContain("(<0.1% of the bytes, 2 entries above vs 12,345 in the oldest L0 table)");
    expect(m).toMatch(/above the oldest L0 table$/);
    expect(placementText({ placement: allL0, l0Files: 3, maxFilesPerLookup: 3 } as CfLayout)).toMatch(
      /^above the oldest L0 table: 2 files, 4 B \(<0\.1%\)/,
    );
    expect(placementBottomName({ oldestL0AsBottom: false, bottomLevel: 6 })).toBe("L6");
  });

  it("the estimated FP rate has 3 decimals, as sst prints it", () => {
    expect(fpText(0.0094)).toBe("0.940%");
    expect(fpText(0.0004)).toBe("0.040%");
  });
});

describe("a level's entries are counted as the column family's", () => {
  const inst = { relPath: ".", path: "/x", engine: "rocksdb" } as InstanceModel;
  const table = (name: string, numEntries?: number) => ({
    fileName: name,
    path: `/x/${name}`,
    present: true,
    fileSize: 100,
    smallestKey: "00",
    largestKey: "ff",
    details: numEntries === undefined ? undefined : { numEntries },
  });
  const cf = {
    name: "default",
    displayName: "default",
    levels: [
      { level: 5, files: [table("1.sst", 7)], bytes: 100 },
      { level: 6, files: [table("2.sst", 10), table("3.sst")], bytes: 200 },
    ],
    blobFiles: [],
    totals: { blobFileBytes: 0, blobRecordBytes: 0, blobGarbageRecordBytes: 0, unflushedWrites: 0 },
  } as unknown as ColumnFamilyModel;

  it("a level with a table of unknown count is unknown, never a partial sum", () => {
    const L = cfLayout(inst, cf);
    expect(L.levels.map((l) => l.entries)).toEqual([7, undefined]);
    expect(L.entriesInBottom).toBeUndefined();
  });

  it("entries --deep counted count in the levels too", () => {
    const L = cfLayout(inst, cf, (f) => (f.fileName === "3.sst" ? 5 : undefined));
    expect(L.levels.map((l) => l.entries)).toEqual([7, 15]);
    expect(L.entriesInBottom).toBe(15);
    expect(L.entriesAboveBottom).toBe(7);
  });

  const dirs: string[] = [];
  afterAll(() => dirs.forEach((d) => removeDir(d)));

  it("inspect: one unreadable table makes its level's row '-' and the header 'unknown entries'", async () => {
    const dir = copySample("nethermind");
    dirs.push(dir);
    // zero the footer of one of L6's four tables
    const path = join(dir, "nethermind_db", "mainnet", "state", "000017.sst");
    const fd = openSync(path, "r+");
    writeSync(fd, Buffer.alloc(64), 0, 64, fstatSync(fd).size - 64);
    closeSync(fd);
    const r = await runInspect(dir);
    const c = buildInspectReport(r.model, r.mode)
      .instances.flatMap((i) => i.cfs)
      .find((x) => x.cf.displayName === "state")!;
    expect(c.cf.totals.entries).toBeNull();
    const lines = renderCf(c, { width: 200 }).map((l) => l.trim());
    expect(lines[0]).toContain("unknown entries");
    const row = (lv: number) => lines.find((l) => l.startsWith(`L${lv} `))!.split(/\s{2,}/);
    const col = lines
      .find((l) => l.startsWith("level"))!
      .split(/\s{2,}/)
      .indexOf("entries");
    expect(row(6)[col]).toBe("-");
    expect(row(5)[col]).toBe("1,760");
  });

  it("inspect --deep on LevelDB: the counted entries show in the level rows as in the header", async () => {
    const r = await runInspect(join(samplesDir, "geth-leveldb"), { mode: "deep" });
    const c = buildInspectReport(r.model, r.mode, r.deep).instances[0]!.cfs[0]!;
    const total = c.cf.totals.entries!;
    expect(total).toBeGreaterThan(0);
    const levels = c.layout.levels.filter((l) => l.files > 0);
    expect(levels.reduce((s, l) => s + l.entries!, 0)).toBe(total);
    expect((c.layout.entriesAboveBottom ?? 0) + c.layout.entriesInBottom!).toBe(total);
  });
});

describe("bits/key is one figure", () => {
  it("the filter-bits flag names its figure apart", () => {
    const f = {
      id: "filter-bits",
      knob: "filter-bits",
      severity: "warn",
      level: 3,
      policy: "bloomfilter:10",
      filterKind: "fastbloom",
      bitsPerKey: 13.24,
      configured: "10",
      carried: "13.2",
    } as unknown as KnobFinding;
    expect(knobFindingMessage(f)).toBe(
      "OPTIONS: bloomfilter:10 · L3: fastbloom filters store 13.2 bits/key over tables of ≥ 1,000 filter keys",
    );
  });

  it("the text report's level rows and the HTML show the entry-weighted figure; HTML names instances", async () => {
    const r = await runInspect(join(samplesDir, "nethermind"));
    const rep = buildInspectReport(r.model, r.mode);
    const c = rep.instances.flatMap((i) => i.cfs).find((x) => x.cf.displayName === "state")!;
    const all = c.knobs.carried.all;
    // the sample's state column family holds filters under 1,000 keys: the two figures differ
    expect(all.filterBitsPerKey!.toFixed(1)).not.toBe(all.filterBitsPerKeyLarge!.toFixed(1));
    const html = renderHtmlReport([{ label: "A", inspect: rep }]);
    expect(html).toContain(`${all.filterBitsPerKey!.toFixed(1)} bits/key`);
    expect(html).not.toContain(`${all.filterBitsPerKeyLarge!.toFixed(1)} bits/key`);
    const modern = buildInspectReport((await runInspect(join(samplesDir, "modern"))).model);
    expect(renderHtmlReport([{ label: "A", inspect: modern }])).toContain("<h3>modern (rocksdb)</h3>");
  });
});

describe("probe figures", () => {
  it("the HTML prints them as probe's text does (perLookupCells): 3 decimals, data blocks 4", () => {
    const rep = buildInspectReport({
      root: "/x",
      instances: [],
      findings: [],
      complete: true,
      client: { kind: "unknown" },
    } as never);
    const point = {
      path: "reader",
      cold: false,
      lookups: 3,
      found: 1,
      filesPerLookup: 1.3333333,
      filterChecksPerLookup: 0.6666667,
      filterRejectionsPerLookup: 0,
      indexBlocksPerLookup: null,
      dataBlocksPerLookup: 1.0004,
      bytesPerLookup: 4096,
    };
    const report = { cfDisplayName: "default", points: [point] } as unknown as ProbeReport;
    const html = renderHtmlReport([{ label: "A", inspect: rep, probes: [{ name: "p", report }] }]);
    expect(html).toContain('<td class="n">1.333</td><td class="n">0.667</td><td class="n">0</td>');
    expect(html).toContain('<td class="n">-</td><td class="n">1.0004</td>');
  });
});
