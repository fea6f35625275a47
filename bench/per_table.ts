/**
 * `inspect`'s cost per table in process (the library calls the CLI makes, without Node's and the CLI's
 * start-up), and where it goes: on one store, best of N rounds of CPU (user + system) and wall time for
 *
 * - the datadir model alone (MANIFEST, OPTIONS, WAL, a stat per table: `tableDetails: "none"`),
 * - default mode (the model plus each table's footer, metaindex, properties and filter metadata; its
 *   open of each table gives the size the model alone stats for),
 * - `--deep` (the model plus each table's index walked, checksums verified),
 * - the report (build and render, after default mode),
 * - `--json` (default mode, then the model's JSON written to a stream that discards it) and
 *   `--deep --json` (each table read as its JSON is written: report/deep_stream.ts), beyond the model,
 * - the file-system floor: per table the calls default mode cannot do without (open, fstat, one 4 KiB
 *   read of the tail, close), from JavaScript,
 *
 * then a CPU profile of one default-mode run (node:inspector, as `--cpu-prof` records it) summed by what
 * the time was spent on. Each mode's per-table figure is its time minus the model's over the table count.
 */
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { Writable } from "node:stream";
import { inspectDatadir } from "../src/datadir/inspect.js";
import { runInspect } from "../src/report/deep.js";
import { buildInspectReport } from "../src/report/build.js";
import { renderInspectReport } from "../src/report/render.js";
import { streamDeepJson } from "../src/report/deep_stream.js";
import { addDatadirViews } from "../src/report/views.js";
import { streamJson } from "../src/util/json_stream.js";

/** A stream that takes every write and keeps nothing (the JSON rows measure writing, not a disk). */
const discard = () =>
  new Writable({
    write(_chunk, _encoding, done) {
      done();
    },
  });

interface Cost {
  /** Best wall seconds over the rounds. */
  wall: number;
  /** Best CPU seconds (user + system) over the rounds. */
  cpu: number;
}

async function best(rounds: number, fn: () => unknown): Promise<Cost> {
  let wall = Infinity;
  let cpu = Infinity;
  for (let i = 0; i < rounds; i++) {
    const c0 = process.cpuUsage();
    const t0 = process.hrtime.bigint();
    await fn();
    wall = Math.min(wall, Number(process.hrtime.bigint() - t0) / 1e9);
    const c = process.cpuUsage(c0);
    cpu = Math.min(cpu, (c.user + c.system) / 1e6);
  }
  return { wall, cpu };
}

/** Open, fstat, read the last 4 KiB, close: per table, what default mode cannot do without. */
function fileSystemFloor(paths: readonly string[]): void {
  const buf = Buffer.allocUnsafe(4096);
  for (const p of paths) {
    const fd = openSync(p, "r");
    try {
      const size = fstatSync(fd).size;
      const n = Math.min(size, buf.length);
      readSync(fd, buf, 0, n, size - n);
    } finally {
      closeSync(fd);
    }
  }
}

/** What a profile sample's function is part of (self time). */
function category(fn: string, url: string): string {
  if (fn === "(garbage collector)") return "garbage collection";
  if (fn === "(idle)" || fn === "(program)") return "idle / V8";
  if (url === "" && /^(open|read|close|fstat|stat|lstat|readdir|openFileHandle)$/.test(fn))
    return "file system calls";
  if (url.includes("/src/format/")) return "table decoding (format/)";
  if (url.includes("/src/datadir/") || url.includes("/src/base/")) return "datadir model (datadir/, base/)";
  if (/\/src\/(report|analysis|util)\//.test(url)) return "report, analysis, util";
  if (url.startsWith("node:") || url === "") return "Node internals (fs wrappers, Buffers)";
  return "other";
}

/** Self time of one default-mode run, in ms: by category, and by function. */
async function profileDefaultMode(
  dir: string,
): Promise<{ byCategory: Map<string, number>; byFunction: Map<string, number> }> {
  const s = new Session();
  s.connect();
  try {
    await s.post("Profiler.enable");
    await s.post("Profiler.setSamplingInterval", { interval: 100 });
    await s.post("Profiler.start");
    await runInspect(dir, { mode: "cheap" });
    const { profile } = await s.post("Profiler.stop");
    const byId = new Map(profile.nodes.map((n) => [n.id, n]));
    const byCategory = new Map<string, number>();
    const byFunction = new Map<string, number>();
    const samples = profile.samples ?? [];
    const deltas = profile.timeDeltas ?? [];
    for (let i = 0; i < samples.length; i++) {
      const n = byId.get(samples[i]!);
      if (!n) continue;
      const { functionName, url } = n.callFrame;
      // the inspector session's own message dispatch (the profiler being stopped), not inspect's work
      if (functionName === "dispatch" && url === "") continue;
      const ms = (deltas[i] ?? 0) / 1000;
      const k = category(functionName, url);
      byCategory.set(k, (byCategory.get(k) ?? 0) + ms);
      const f = `${functionName || "(anonymous)"} ${url.split("/").slice(-2).join("/")}`;
      byFunction.set(f, (byFunction.get(f) ?? 0) + ms);
    }
    return { byCategory, byFunction };
  } finally {
    s.disconnect();
  }
}

const us = (seconds: number, n: number) => ((seconds / n) * 1e6).toFixed(1).padStart(6);

/**
 * Print the per-table rows for `dir` (`tables` live tables) beside `sstDumpWall`, the whole-process
 * wall seconds of `sst_dump --show_properties` on the same store measured in the same run.
 */
export async function printPerTable(dir: string, rounds: number, sstDumpWall: number): Promise<void> {
  const probe = await inspectDatadir(dir, { tableDetails: "none" });
  const paths = probe.instances.flatMap((i) =>
    i.columnFamilies.flatMap((cf) =>
      cf.levels.flatMap((l) => l.files.filter((f) => f.present).map((f) => f.path)),
    ),
  );
  const n = paths.length;
  if (n === 0) return;
  const model = await best(rounds, () => inspectDatadir(dir, { tableDetails: "none" }));
  const cheap = await best(rounds, () => runInspect(dir, { mode: "cheap" }));
  const deep = await best(rounds, () => runInspect(dir, { mode: "deep" }));
  const r = await runInspect(dir, { mode: "cheap" });
  const report = await best(rounds, () => renderInspectReport(buildInspectReport(r.model, r.mode)));
  // as the CLI's --json: default mode, the views beside the stores, the model's JSON
  const json = await best(rounds, async () => {
    const m = (await runInspect(dir, { mode: "cheap" })).model;
    addDatadirViews(m);
    await streamJson(m, discard());
  });
  const deepJson = await best(rounds, () => streamDeepJson(dir, discard()));
  const floor = await best(rounds, () => fileSystemFloor(paths));
  const perTable = (c: Cost) => ({ wall: c.wall - model.wall, cpu: c.cpu - model.cpu });
  const cheapT = perTable(cheap);
  const deepT = perTable(deep);
  console.log(`  in process, per table (${n} tables, best of ${rounds}; µs wall / µs CPU):`);
  console.log(`    sst_dump --show_properties, whole process:  ${us(sstDumpWall, n)} wall`);
  console.log(`    datadir model alone (MANIFEST, a stat each): ${us(model.wall, n)} / ${us(model.cpu, n)}`);
  // default mode's own open stands in for the model's stat: its row is the reads less that stat
  console.log(`    default mode, beyond the model alone:       ${us(cheapT.wall, n)} / ${us(cheapT.cpu, n)}`);
  console.log(`    --deep, table reads beyond the model:       ${us(deepT.wall, n)} / ${us(deepT.cpu, n)}`);
  console.log(`    report (build + render):                    ${us(report.wall, n)} / ${us(report.cpu, n)}`);
  const jsonT = perTable(json);
  const deepJsonT = perTable(deepJson);
  console.log(`    --json, beyond the model (JSON discarded):  ${us(jsonT.wall, n)} / ${us(jsonT.cpu, n)}`);
  console.log(
    `    --deep --json, beyond the model (the same): ${us(deepJsonT.wall, n)} / ${us(deepJsonT.cpu, n)}`,
  );
  console.log(`    floor: open + fstat + 4 KiB read + close:   ${us(floor.wall, n)} / ${us(floor.cpu, n)}`);
  console.log(
    `    sst_dump's wall / lsmscope's in process (model + tables): default ${(sstDumpWall / cheap.wall).toFixed(2)}x, --deep ${(sstDumpWall / deep.wall).toFixed(2)}x; default / --deep CPU ${(cheap.cpu / deep.cpu).toFixed(2)}`,
  );
  const { byCategory, byFunction } = await profileDefaultMode(dir);
  const total = [...byCategory.values()].reduce((a, b) => a + b, 0);
  const row = (k: string, ms: number) =>
    `    ${k.slice(0, 48).padEnd(48)} ${ms.toFixed(0).padStart(5)} ms  ${((100 * ms) / total).toFixed(0).padStart(3)}%  ${us(ms / 1000, n)} µs/table`;
  console.log(`  where default mode's time goes (CPU profile of one run, ${total.toFixed(0)} ms sampled):`);
  for (const [k, ms] of [...byCategory].sort((a, b) => b[1] - a[1])) console.log(row(k, ms));
  console.log("  the functions with the most self time:");
  for (const [k, ms] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, 8)) console.log(row(k, ms));
}
