/**
 * `inspect --json` on a store of hundreds of tables, as db_bench left them (an L0 pile-up of tiny
 * tables): the JSON the CLI streams to stdout in pieces (util/json_stream.ts; with `--deep`, each table
 * read as its JSON is written: report/deep_stream.ts) parses, holds every table on disk, and is byte
 * for byte what JSON.stringify prints of the model the library builds whole (runInspect); and deep
 * mode's worker, posting its results in small batches, gives exactly what one thread reads, whole or
 * streamed. The CLI and the worker run from the compiled modules (dist/, built by `npm test`'s
 * pretest).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { dbBench, ONE_TABLE_PER_MEMTABLE, removeDir, tempDir, TINY_L0_PILEUP } from "../datadir/helpers.js";
import { REPO, stringSink } from "../helpers/index.js";

const bin = join(REPO, "bin", "lsmscope.js");
const distDeep = join(REPO, "dist", "src", "report", "deep.js");

/** The CLI's stdout (a large output through a pipe: the streamed path). */
function cli(...args: string[]): string {
  const r = spawnSync(process.execPath, [bin, ...args], { encoding: "utf8", maxBuffer: 1 << 30 });
  expect(r.stderr).not.toMatch(/internal error/);
  expect(r.status).toBe(0);
  return r.stdout;
}

/** elapsedMs is measured: the one figure two runs print differently. */
const steady = (json: string) => json.replace(/"elapsedMs": [0-9.e+-]+/, '"elapsedMs": 0');

describe.skipIf(!existsSync(distDeep))("inspect --json on hundreds of tables", () => {
  let dir: string;
  let tables: number;
  beforeAll(() => {
    dir = join(tempDir("lsmscope-json-many-"), "db");
    // ~995 entries per table: ~300 tables whatever the load
    dbBench(dir, [...TINY_L0_PILEUP, ...ONE_TABLE_PER_MEMTABLE, "--num=300000"]);
    tables = readdirSync(dir).filter((f) => f.endsWith(".sst")).length;
  }, 120_000);
  afterAll(() => removeDir(join(dir, "..")));

  it("streams what JSON.stringify prints of the model, every table in it, cheap and deep", async () => {
    // several worker batches of 16
    expect(tables).toBeGreaterThan(64);
    const { runInspect } = (await import(distDeep)) as typeof import("../../src/report/deep.js");
    const { addDatadirViews } = (await import(
      join(REPO, "dist", "src", "report", "views.js")
    )) as typeof import("../../src/report/views.js");
    for (const deep of [false, true]) {
      const printed = cli("inspect", ...(deep ? ["--deep"] : []), "--json", dir);
      const parsed = JSON.parse(printed) as {
        instances: { columnFamilies: { levels: { files: { fileName: string }[] }[] }[] }[];
        deep?: Record<string, unknown>;
      };
      const files = parsed.instances.flatMap((i) =>
        i.columnFamilies.flatMap((c) => c.levels.flatMap((l) => l.files.map((f) => f.fileName))),
      );
      expect(files.length).toBe(tables);
      if (deep) expect(Object.keys(parsed.deep!).length).toBe(tables);
      const r = await runInspect(dir, { mode: deep ? "deep" : "cheap" });
      addDatadirViews(r.model);
      const whole = JSON.stringify(
        { ...r.model, ...(r.deep ? { deep: Object.fromEntries(r.deep) } : {}) },
        null,
        2,
      );
      expect(steady(printed)).toBe(steady(whole) + "\n");
    }
  }, 120_000);

  it("a worker posting its results a few tables at a time finds exactly what one thread finds", async () => {
    const { runInspect } = (await import(distDeep)) as typeof import("../../src/report/deep.js");
    const one = await runInspect(dir, { mode: "deep", threads: 1 });
    // batches of 16: the worker's half of the tables comes in many messages
    const two = await runInspect(dir, { mode: "deep", threads: 2, workerBatch: 16 });
    expect(two.readThreads).toBe(2);
    // but for the bytes each table took to read: each thread reads as much of a table's end as its own
    // tables before needed (deepTailEstimate), so a table's prefetch depends on which thread read it
    const json = (r: typeof one) =>
      steady(JSON.stringify({ ...r.model, deep: Object.fromEntries(r.deep!) }, null, 2)).replace(
        /"bytesRead": \d+/g,
        '"bytesRead": 0',
      );
    expect(json(two)).toBe(json(one));
    // streamed with the worker: what the CLI prints (the views beside the stores added, as it adds them)
    const { streamDeepJson } = (await import(
      join(REPO, "dist", "src", "report", "deep_stream.js")
    )) as typeof import("../../src/report/deep_stream.js");
    const { addDatadirViews } = (await import(
      join(REPO, "dist", "src", "report", "views.js")
    )) as typeof import("../../src/report/views.js");
    const { sink, text } = stringSink();
    const { complete } = await streamDeepJson(dir, sink, { threads: 2, workerBatch: 16 });
    expect(complete).toBe(true);
    addDatadirViews(one.model);
    expect(steady(text()).replace(/"bytesRead": \d+/g, '"bytesRead": 0')).toBe(json(one));
  }, 120_000);
});
