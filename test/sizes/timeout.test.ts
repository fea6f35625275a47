/**
 * `sizes --timeout S`: the full scan stops at the deadline and prints what it read, every column family
 * it did not finish marked partial, the picture incomplete (exit 2). Wherever the deadline falls, a
 * partial figure never exceeds the full scan's and a column family not marked partial is whole.
 */
import { describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { computeSizes } from "../../src/sizes/index.js";
import { inspectDatadir } from "../../src/datadir/inspect.js";
import { REPO, SAMPLES } from "../helpers/index.js";

const run = (args: string[]) =>
  spawnSync(process.execPath, [join(REPO, "bin", "lsmscope.js"), "sizes", ...args], { encoding: "utf8" });
const dir = join(SAMPLES, "besu-snapshot");

describe("sizes --timeout", () => {
  it("a deadline already passed: every column family partial, nothing counted, exit 2 with the reason", () => {
    // a microsecond: reading the MANIFEST alone takes longer, so the scan starts past the deadline
    const r = run([dir, "--timeout", "0.000001", "--json"]);
    expect(r.status).toBe(2);
    const rep = JSON.parse(r.stdout);
    const withData = rep.columnFamilies.filter((c: { sstFiles: number }) => c.sstFiles > 0);
    expect(withData.length).toBeGreaterThan(0);
    for (const c of withData) {
      expect(c.partial).toBe(true);
      expect(c.liveKeys).toBe(0);
    }
    expect(rep.incomplete.join(" ")).toMatch(/the --timeout deadline stopped the scan after 0 B of/);
    const text = run([dir, "--timeout", "0.000001"]);
    expect(text.stdout).toMatch(/PARTIAL: the --timeout deadline stopped this scan part-way/);
    expect(text.stdout.trimEnd().split("\n").pop()).toMatch(/^picture incomplete: .*--timeout.*; exit 2$/);
  });

  it("a deadline never reached: the same report as without one, exit 0", () => {
    const strip = (s: string) => {
      const o = JSON.parse(s);
      delete o.elapsedMs;
      delete o.entriesPerSecond;
      return o;
    };
    const r = run([dir, "--timeout", "600", "--json"]);
    expect(r.status).toBe(0);
    expect(strip(r.stdout)).toEqual(strip(run([dir, "--json"]).stdout));
  });

  it("wherever the deadline falls, partial figures are at most the full scan's; the rest are whole", async () => {
    const model = await inspectDatadir(dir, {});
    const full = await computeSizes(dir, { model, workers: 1 });
    for (const ms of [0, 5, 20, 60]) {
      const part = await computeSizes(dir, { model, workers: 1, deadline: Date.now() + ms });
      for (const c of part.columnFamilies) {
        const f = full.columnFamilies.find((x) => x.instance === c.instance && x.nameHex === c.nameHex)!;
        if (c.partial) {
          expect(c.liveKeys).toBeLessThanOrEqual(f.liveKeys);
          expect(c.entriesRead).toBeLessThanOrEqual(f.entriesRead);
          expect(c.physicalBytes).toBeLessThanOrEqual(f.physicalBytes);
        } else expect(c).toEqual(f);
      }
      const partial = part.columnFamilies.some((c) => c.partial);
      expect(part.incomplete!.length > 0).toBe(partial);
    }
  });

  it("refuses --sample and a non-positive value", () => {
    expect(run([dir, "--timeout", "5", "--sample", "10"]).stderr).toMatch(/--timeout bounds the full scan/);
    expect(run([dir, "--timeout", "0"]).status).toBe(2);
  });
});
