/**
 * `npm run bench`: runs every benchmark module in this directory (each exports `run(): Promise<void>`)
 * one after another. Benchmarks compare lsmscope with RocksDB's own tools in the same run and print
 * ratios; they are not timed tests. `npm run bench -- NAME` runs only modules whose file name contains
 * NAME.
 */
import { readdirSync } from "node:fs";
import { dirname } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const filter = process.argv[2];

const modules = readdirSync(here)
  .filter((f) => f.endsWith(".js") && f !== "run.js")
  .filter((f) => !filter || f.includes(filter))
  .sort();

for (const f of modules) {
  const mod = (await import(pathToFileURL(`${here}/${f}`).href)) as { run?: () => Promise<void> };
  if (typeof mod.run !== "function") continue;
  process.stdout.write(`\n=== ${f.replace(/\.js$/, "")} ===\n`);
  await mod.run();
}
