/**
 * Deep mode: the index walk agrees with the properties and with sst_dump's block counts (knobs.test.ts),
 * reading tables in a worker thread gives exactly what one thread gives (but for how many bytes of each
 * table's end were read at once), and a run of small tables is read a few KiB of each. The worker runs
 * from the compiled module (dist/, built by `npm test`'s pretest), as in the CLI.
 */
import { afterAll, describe, expect, it } from "vitest";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { dbBench, tableFilesUnder, trackedTempDirs } from "../helpers/index.js";
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
      // the same blocks are read, in as many reads; only how much of each table's end was read at
      // once may differ (each thread learns it from its own tables: deepTailEstimate)
      expect({ ...two.deep!.get(path), bytesRead: 0 }).toEqual({ ...d, bytesRead: 0 });
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
    // the mode line says which data blocks were read after all: those of the tables counted
    const { buildInspectReport } = await import("../../src/report/build.js");
    const { renderInspectReport } = await import("../../src/report/render.js");
    const modeLine = (r: typeof deep) =>
      renderInspectReport(buildInspectReport(r.model, r.mode, r.deep), { width: 10_000 })
        .split("\n")
        .find((l) => l.startsWith("mode: "));
    const counted = [...deep.deep!.values()].filter((t) => t.entriesCounted !== undefined).length;
    expect(counted).toBeGreaterThan(0);
    expect(modeLine(deep)).toContain(
      `data blocks, filter bits and blob records not read (--verify reads and checks them), but for the data blocks of ${counted} tables without an entry count (LevelDB's), read and checksummed to count their entries`,
    );
    expect(modeLine(cheap)).toContain("index, data blocks and blob records not read");
  });
});

describe("deep reads of many small tables", () => {
  const tmp = trackedTempDirs("lsmscope-deep-tail-");
  afterAll(() => tmp.cleanupTemps());

  it("read as much of each table's end as the tables before needed: the same findings, a few KiB of each", async () => {
    const { deepTailEstimate, readTableDeep, TAIL_PREFETCH } = await import("../../src/report/deep_table.js");
    // written by db_bench: ~40 tables of ~80 KB (4 KiB blocks, uncompressed), their metadata ~3 KiB
    const db = join(tmp.tempDir(), "db");
    dbBench(db, [
      "--benchmarks=fillrandom",
      "--num=24000",
      "--value_size=100",
      "--write_buffer_size=98304",
      "--compression_type=none",
      "--block_size=4096",
      "--bloom_bits=10",
      "--disable_auto_compactions=1",
    ]);
    const files = tableFilesUnder(db);
    expect(files.length).toBeGreaterThan(20);
    const tail = deepTailEstimate();
    let learnedBytes = 0;
    let wholeBytes = 0;
    let learnedReads = 0;
    let lastBytes = 0;
    for (const f of files) {
      const whole = readTableDeep(f);
      const learned = readTableDeep(f, undefined, tail);
      // the same table read either way: only what was read to get there differs
      expect(learned.details).toEqual(whole.details);
      const { reads, bytesRead, ...found } = learned.deep;
      const { reads: _r, bytesRead: _b, ...foundWhole } = whole.deep;
      expect(found).toEqual(foundWhole);
      expect(found.dataBlocks).toBeGreaterThan(10);
      expect(whole.deep.bytesRead).toBeGreaterThanOrEqual(TAIL_PREFETCH);
      learnedBytes += bytesRead;
      wholeBytes += whole.deep.bytesRead;
      learnedReads += reads;
      lastBytes = bytesRead;
    }
    // one read per table: the estimate starts at the whole tail and comes down towards what the tables
    // need (~3 KiB), a sixteenth of the way per table (35 tables: 0.50 of the bytes, the last 8 KiB)
    expect(learnedReads).toBe(files.length);
    expect(lastBytes).toBeLessThanOrEqual(8192);
    expect(learnedBytes).toBeLessThan(wholeBytes * 0.6);
  });
});
