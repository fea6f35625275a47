/**
 * Start-up: the CLI's fixed cost on tiny stores, where nearly all of a run is Node, module loading and
 * argument parsing. Each row is timed as whole processes, interleaved in rounds with the anchors it is
 * compared to (`node -e 0`: Node alone; `sst_dump` on the same table: a native tool's start-up), so a
 * loaded machine slows every column alike. Medians of wall and CPU (user + system) seconds.
 */
import { existsSync, readdirSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { lsm, measure, median, printLoadAverage, type Measure } from "./common.js";

const samples = fileURLToPath(new URL("../../samples/", import.meta.url));
const RUNS = 15;

/** The first table file of a sample store. */
function firstTable(store: string): string {
  const name = readdirSync(store)
    .filter((f) => f.endsWith(".sst") || f.endsWith(".ldb"))
    .sort()[0];
  if (!name) throw new Error(`no table in ${store}`);
  return join(store, name);
}

const hasSstDump = () => spawnSync("sst_dump", ["--help"], { stdio: "ignore" }).error === undefined;

interface Row {
  name: string;
  cmd: [string, string[]];
}

function medians(ms: Measure[]): { wall: number; cpu: number } {
  return { wall: median(ms.map((m) => m.wall)), cpu: median(ms.map((m) => m.cpu)) };
}

export async function run(): Promise<void> {
  const modern = join(samples, "modern");
  if (!existsSync(modern)) {
    console.log("  samples/ missing (npm run samples); skipped");
    return;
  }
  // a table sst_dump 7.8 reads (samples/modern's are format_version 6, newer than it)
  const table = firstTable(join(samples, "besu-snapshot", "database"));
  const node: Row = { name: "node -e 0", cmd: [process.execPath, ["-e", "0"]] };
  const rows: Row[] = [
    node,
    // Node parses the bundle NODE_EXTRA_CA_CERTS names at start-up, before any script runs
    ...(process.env.NODE_EXTRA_CA_CERTS
      ? [
          {
            name: "node -e 0, NODE_EXTRA_CA_CERTS unset",
            cmd: ["env", ["-u", "NODE_EXTRA_CA_CERTS", process.execPath, "-e", "0"]],
          } as Row,
        ]
      : []),
    { name: "lsmscope --help", cmd: lsm(["--help"]) },
    { name: "lsmscope inspect samples/modern", cmd: lsm(["inspect", modern]) },
    {
      name: "lsmscope inspect samples/besu-snapshot",
      cmd: lsm(["inspect", join(samples, "besu-snapshot")]),
    },
    { name: "lsmscope sst <besu-snapshot table>", cmd: lsm(["sst", table]) },
  ];
  const withSstDump = hasSstDump();
  if (withSstDump)
    rows.push({
      name: "sst_dump --show_properties (that table)",
      cmd: ["sst_dump", [`--file=${table}`, "--show_properties"]],
    });
  const times: Measure[][] = rows.map(() => []);
  for (let i = 0; i < RUNS; i++) rows.forEach((r, j) => times[j]!.push(measure(...r.cmd)));
  const base = medians(times[0]!);
  // sst_dump's CPU is below /usr/bin/time's 10 ms resolution: it is compared by wall time
  const native = withSstDump ? medians(times[rows.length - 1]!) : undefined;
  const ratio = (x: number, y: number | undefined) =>
    y !== undefined && Number.isFinite(x) && y > 0 ? `${(x / y).toFixed(1)}x` : "n/a";
  console.log(`  medians of ${RUNS} interleaved rounds (CPU = user + system)`);
  console.log(
    `  ${"command".padEnd(40)} ${"wall ms".padStart(7)} ${"CPU ms".padStart(6)} ${"CPU/node".padStart(8)} ${"wall/sst_dump".padStart(13)}`,
  );
  rows.forEach((r, j) => {
    const m = medians(times[j]!);
    console.log(
      `  ${r.name.padEnd(40)} ${(m.wall * 1000).toFixed(0).padStart(7)} ${(m.cpu * 1000).toFixed(0).padStart(6)} ${ratio(m.cpu, base.cpu).padStart(8)} ${ratio(m.wall, native?.wall).padStart(13)}`,
    );
  });
  printLoadAverage("start-up figures");
}
