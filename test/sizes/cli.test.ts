/**
 * The `sizes` command through the built binary: --json has the shape, --svg writes a picture,
 * --sample adds intervals, bad input gives one line and a non-zero exit.
 */
import { afterAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { SAMPLES, removeDir, tempDir } from "./helpers.js";

const BIN = resolve(import.meta.dirname, "../../bin/lsmscope.js");
const tmp = tempDir();
afterAll(() => removeDir(tmp));

function run(args: string[]) {
  return spawnSync(process.execPath, [BIN, ...args], { encoding: "utf8", timeout: 60_000 });
}

describe("lsmscope sizes", () => {
  it("--json carries the issue's shape and --svg writes the histograms", () => {
    const svg = join(tmp, "h.svg");
    const r = run(["sizes", join(SAMPLES, "besu-snapshot"), "--json", "--svg", svg]);
    expect(r.status, r.stderr).toBe(0);
    const j = JSON.parse(r.stdout) as {
      columnFamilies: Record<string, unknown>[];
      eth: { accounts: { contract: { count: number } } };
    };
    const cf = j.columnFamilies.find((c) => c["nameHex"] === "06")!;
    for (const k of [
      "name",
      "liveKeys",
      "obsoleteEntries",
      "keySize",
      "valueSize",
      "physicalBytes",
      "logicalBytes",
    ])
      expect(cf, k).toHaveProperty(k);
    const v = cf["valueSize"] as Record<string, unknown>;
    for (const k of ["p50", "p90", "p99", "max", "mean", "histogram"]) expect(v, k).toHaveProperty(k);
    expect((v["histogram"] as { le: number; count: number }[])[0]).toHaveProperty("le");
    expect(j.eth.accounts.contract.count).toBe(880);
    const pic = readFileSync(svg, "utf8");
    expect(pic.startsWith("<?xml")).toBe(true);
    expect(pic).toContain("<svg");
    expect(pic).toContain("cf06 ACCOUNT_INFO_STATE: value bytes");
    expect((pic.match(/<rect /g) ?? []).length).toBeGreaterThan(20);
  });

  it("--sample N reports intervals beside the figures", () => {
    const r = run(["sizes", join(SAMPLES, "besu-snapshot"), "--sample", "5", "--cf", "cf06", "--json"]);
    expect(r.status, r.stderr).toBe(0);
    const j = JSON.parse(r.stdout) as {
      mode: string;
      columnFamilies: { valueSize: { intervals: unknown }; liveKeysInterval: unknown }[];
    };
    expect(j.mode).toBe("sample");
    expect(j.columnFamilies).toHaveLength(1);
    expect(j.columnFamilies[0]!.valueSize.intervals).toBeDefined();
    expect(j.columnFamilies[0]!.liveKeysInterval).toBeDefined();
    const text = run(["sizes", join(SAMPLES, "besu-snapshot"), "--sample", "5", "--cf", "cf06"]);
    expect(text.stdout).toMatch(/plain EOAs in the sample [\d,]+ \([\d.]+%\) \[[\d.]+%, [\d.]+%\]/);
  });

  it("bad input: one line, non-zero exit", () => {
    const a = run(["sizes", join(SAMPLES, "besu-snapshot"), "--cf", "nope"]);
    expect(a.status).not.toBe(0);
    expect(a.stderr.trim().split("\n")).toHaveLength(1);
    expect(a.stderr).toMatch(/no column family matches nope/);
    const b = run(["sizes", join(tmp, "missing")]);
    expect(b.status).not.toBe(0);
    expect(b.stderr).toMatch(/^lsmscope: /);
    const c = run(["sizes", join(SAMPLES, "besu-snapshot"), "--sample", "0"]);
    expect(c.status).not.toBe(0);
    expect(c.stderr).toMatch(/--sample/);
    // a thread count that is not one (it ran on the default thread count, exit 0)
    for (const w of ["abc", "0", "1.5"]) {
      const d = run(["sizes", join(SAMPLES, "besu-snapshot"), "--full", "--workers", w]);
      expect(d.status, w).toBe(2);
      expect(d.stderr.trim().split("\n"), w).toEqual([
        expect.stringMatching(/^lsmscope: --workers needs a positive whole number/),
      ]);
    }
  });
});
