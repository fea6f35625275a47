/**
 * `lsmscope inspect` end to end (the built binary): the report's sections, no raw bytes on the terminal,
 * --json is the model, --deep adds index measurements, `lsmscope DIR` off a terminal prints the report.
 */
import { describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { repoRoot, samplesDir } from "./helpers.js";

const bin = join(repoRoot, "bin", "lsmscope.js");
const run = (args: string[]) =>
  spawnSync(process.execPath, [bin, ...args], { encoding: "utf8", maxBuffer: 64 << 20 });
const have = (s: string) => existsSync(join(samplesDir, s));

/** Nothing below 0x20 but newlines, no DEL/C1 controls: no raw key or name bytes reached stdout. */
const squash = (s: string) => s.replace(/\s+/g, " ");

function assertNoRawBytes(s: string) {
  const bad = [...s].filter((c) => {
    const n = c.charCodeAt(0);
    return (n < 0x20 && c !== "\n") || (n >= 0x7f && n <= 0x9f);
  });
  expect(bad).toEqual([]);
}

describe.skipIf(!have("besu-snapshot"))("inspect on besu-snapshot", () => {
  it("prints options beside files, layout, flags, WAL and totals with client names", () => {
    const r = run(["inspect", join(samplesDir, "besu-snapshot")]);
    expect(r.status).toBe(0);
    const out = r.stdout;
    assertNoRawBytes(out);
    // off a terminal the report is 80 columns wide: knob cells and prose wrap, so match them squashed
    const flat = squash(out);
    expect(out).toContain("── cf06 ACCOUNT_INFO_STATE");
    expect(flat).toMatch(/filter bloomfilter:10 L0: fastbloom ~10 ×1 · L6: fastbloom ~10 ×1/);
    expect(out).toMatch(/compression\s+LZ4\s+LZ4 ×2/);
    expect(out).toMatch(/above L6: 1 file, /);
    expect(out).toMatch(/bottom = L6, the deepest level holding a table/);
    expect(out).toContain("small-files-above-bottom");
    expect(flat).toMatch(/WAL \d+\.log: .*holds \d+ unflushed writes for CFs cf01 BLOCKCHAIN/);
    expect(flat).toMatch(/blob files on, min 100 B, LZ4 2 files \d/);
    expect(out).toMatch(/^total: 1 instance, 8 column families, \d+ SSTs/m);
  });

  it("--json prints the model; --deep adds the index walk per table", () => {
    const r = run(["inspect", "--json", join(samplesDir, "besu-snapshot")]);
    expect(r.status).toBe(0);
    const m = JSON.parse(r.stdout);
    expect(m.instances[0].columnFamilies.map((c: { displayName: string }) => c.displayName)).toContain(
      "cf06 ACCOUNT_INFO_STATE",
    );
    // inspect reads table details by default: the knobs need them
    const f = m.instances[0].columnFamilies[1].levels.find((l: { files: unknown[] }) => l.files.length)
      .files[0];
    expect(f.details.filter.kind).toBe("fastbloom");
    const d = JSON.parse(run(["inspect", "--json", "--deep", join(samplesDir, "besu-snapshot")]).stdout);
    const deep = Object.values(d.deep) as { dataBlocks: number; propertiesAgree: boolean }[];
    expect(deep.length).toBe(m.instances[0].totals.sstFiles);
    expect(deep.every((x) => x.dataBlocks > 0 && x.propertiesAgree)).toBe(true);
  });

  it("--deep shows the measured data blocks per level", () => {
    const out = run(["inspect", "--deep", join(samplesDir, "besu-snapshot")]).stdout;
    expect(out).toContain("mode: deep:");
    expect(out).toMatch(/level\s+tables\s+data blocks\s+stored bytes\/block/);
  });

  it("`lsmscope DIR` off a terminal prints the same report", () => {
    const a = run(["inspect", join(samplesDir, "besu-snapshot")]).stdout;
    const b = run([join(samplesDir, "besu-snapshot")]).stdout;
    const strip = (s: string) => s.replace(/ · \d+ ms for the model/, "");
    expect(strip(b)).toBe(strip(a));
  });
});

describe.skipIf(!have("nethermind") || !have("geth-leveldb"))("client names", () => {
  it("Nethermind databases and columns, geth key categories", () => {
    const out = run(["inspect", join(samplesDir, "nethermind")]).stdout;
    assertNoRawBytes(out);
    const n = squash(out); // 80 columns off a terminal: lines wrap
    expect(n).toContain(
      "══ nethermind_db/mainnet/flat [rocksdb; nethermind, database flat, network mainnet]",
    );
    expect(out).toContain("── flat/Account");
    expect(n).toMatch(
      /optimize-filters-for-hits: optimize_filters_for_hits leaves the last level unfiltered \(L6: 4 of 4 files/,
    );
    // ribbonfilter:10 beside ribbon ~7: Bloom-equivalent bits, the FP rates compared, not drift
    expect(n).toMatch(/filter bits\/key\s+10 \(Bloom-equivalent\)\s+7\.\d stored/);
    const fp =
      /filter FP rate\s+~(\d\.\d+)% \(Bloom, 10 bits\/key\)\s+~(\d\.\d+)% \(estimated from the filters\)/.exec(
        n,
      )!;
    expect(Number(fp[1])).toBeCloseTo(0.95, 1);
    expect(Math.abs(Number(fp[2]) - Number(fp[1]))).toBeLessThan(0.1);
    expect(n).toContain("Ribbon: that FP rate at ~30% fewer bits (not drift)");
    expect(n).not.toMatch(/filter-bits/);
    const g = run(["inspect", join(samplesDir, "geth-leveldb")]).stdout;
    assertNoRawBytes(g);
    expect(g).toContain("[leveldb; geth");
    expect(g).toMatch(/geth key categories \(files' smallest\/largest keys\): /);
  });
});

describe("bad input", () => {
  it("an empty directory: a finding, exit 2; a damaged Pebble store: recognised, its MANIFEST named, no crash", () => {
    const empty = mkdtempSync(join(tmpdir(), "lsmscope-empty-"));
    const peb = mkdtempSync(join(tmpdir(), "lsmscope-pebble-"));
    try {
      const e = run(["inspect", empty]);
      expect(e.status).toBe(2);
      expect(e.stdout).toContain("no-store");
      writeFileSync(join(peb, "CURRENT"), "MANIFEST-000001\n");
      writeFileSync(join(peb, "MANIFEST-000001"), "x");
      writeFileSync(join(peb, "OPTIONS-000003"), "[Version]\n  pebble_version=0.1\n");
      const p = run(["inspect", "--deep", peb]);
      expect(p.stderr).toBe("");
      expect(p.stdout).toContain("[pebble; generic]");
      expect(p.stdout).toContain("not readable: MANIFEST-000001 does not decode");
    } finally {
      rmSync(empty, { recursive: true, force: true });
      rmSync(peb, { recursive: true, force: true });
    }
  });

  it("a missing directory: one line, non-zero exit", () => {
    const r = run(["inspect", "/nonexistent/lsmscope-test"]);
    expect(r.status).not.toBe(0);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
  });
});
