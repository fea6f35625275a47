/**
 * `npm run bench`: runs every benchmark module in this directory (each exports `run(): Promise<void>`)
 * one after another. Benchmarks compare lsmscope with RocksDB's own tools in the same run and print
 * ratios; they are not timed tests. `npm run bench -- NAME` runs only modules whose file name contains
 * NAME.
 */
import { existsSync, readdirSync } from "node:fs";
import { dirname } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { nativeBuildPath } from "../src/util/package_root.js";

const here = dirname(fileURLToPath(import.meta.url));
const filter = process.argv[2];

const modules = readdirSync(here)
  .filter((f) => f.endsWith(".js") && f !== "run.js")
  .filter((f) => !filter || f.includes(filter))
  .sort();

// which of the engine addon's helpers this build has: several rows depend on them (README, Performance:
// the block codec, Checksums), and a helper switched off by its variable counts as absent
const helpers = [
  ["readahead", "lsmscope_readahead", undefined],
  ["mapper", "lsmscope_map_file", undefined],
  ["codec", "lsmscope_codec", "LSMSCOPE_NATIVE_CODEC"],
  ["checksum", "lsmscope_checksum", "LSMSCOPE_NATIVE_CHECKSUM"],
] as const;
process.stdout.write(
  `helpers: ${helpers
    .map(([name, target, off]) => {
      const file = nativeBuildPath(target);
      const built = file !== undefined && existsSync(file);
      return `${name} ${!built ? "no" : off && process.env[off] === "0" ? "off" : "yes"}`;
    })
    .join(", ")}\n`,
);

for (const f of modules) {
  const mod = (await import(pathToFileURL(`${here}/${f}`).href)) as { run?: () => Promise<void> };
  if (typeof mod.run !== "function") continue;
  process.stdout.write(`\n=== ${f.replace(/\.js$/, "")} ===\n`);
  await mod.run();
}
