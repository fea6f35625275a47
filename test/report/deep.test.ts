/**
 * Deep mode: the index walk agrees with the properties and with sst_dump's block counts (knobs.test.ts),
 * and reading tables in a worker thread gives exactly what one thread gives. The worker runs from the
 * compiled module (dist/, built by `npm test`'s pretest), as in the CLI.
 */
import { describe, expect, it } from "vitest";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { repoRoot, samplesDir } from "./helpers.js";

const distDeep = join(repoRoot, "dist", "src", "report", "deep.js");
const sample = join(samplesDir, "besu-snapshot");

describe.skipIf(!existsSync(distDeep) || !existsSync(sample))("deep mode threads", () => {
  it("a worker thread reads the second half exactly as the main thread would", async () => {
    const { runInspect } = (await import(distDeep)) as typeof import("../../src/report/deep.js");
    const one = await runInspect(sample, { mode: "deep", threads: 1 });
    const two = await runInspect(sample, { mode: "deep", threads: 2 });
    expect(one.readThreads).toBe(1);
    expect(two.readThreads).toBe(2);
    expect(two.deep!.size).toBe(one.deep!.size);
    expect(one.deep!.size).toBeGreaterThan(4);
    for (const [path, d] of one.deep!) {
      // reads/bytes differ in nothing either: the same blocks are read
      expect(two.deep!.get(path)).toEqual(d);
    }
    const details = (r: typeof one) =>
      r.model.instances.flatMap((i) =>
        i.columnFamilies.flatMap((c) => c.levels.flatMap((l) => l.files.map((f) => f.details))),
      );
    expect(details(two)).toEqual(details(one));
    // byte for byte, key order included: the worker's details are compacted (compactDetails) and
    // --json must print them as the main thread's
    expect(JSON.stringify(details(two))).toBe(JSON.stringify(details(one)));
    expect(details(one).every((d) => d && d.filter && !d.error)).toBe(true);
  });
});

describe("entries of LevelDB tables (no properties)", () => {
  it("cheap mode: unknown (null), never 0; --deep: counted, equal to what LevelDB flushed", async () => {
    const { runInspect } = await import("../../src/report/deep.js");
    const dir = join(samplesDir, "geth-leveldb");
    const truth = JSON.parse(
      (await import("node:fs")).readFileSync(join(samplesDir, "geth-leveldb.truth.json"), "utf8"),
    ) as {
      instances: Record<string, { columnFamilies: Record<string, { keysWritten: Record<string, number> }> }>;
    };
    const cheap = await runInspect(dir, { mode: "cheap" });
    expect(cheap.model.instances[0]!.columnFamilies[0]!.totals.entries).toBeNull();
    const deep = await runInspect(dir, { mode: "deep" });
    // the bulk load (compacted: one version per key) and the pre-run flushed above it; the WAL's writes
    // are in no table
    const w = truth.instances["geth/chaindata"]!.columnFamilies["default"]!.keysWritten;
    expect(deep.model.instances[0]!.columnFamilies[0]!.totals.entries).toBe(w["bulk"]! + w["pre-run"]!);
  });
});
