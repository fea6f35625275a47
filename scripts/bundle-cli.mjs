#!/usr/bin/env node
// Bundles the CLI (tsc's dist/src/cli/main.js and everything it imports, yargs included) into
// dist/src/bundle/, which bin/lsmscope.js runs. Why: Node resolves, reads and compiles each ES module
// on its own; the CLI's ~170 modules (~45 of them yargs') cost more start-up than the work on a small
// store (bench/startup.ts measures it). Lazily imported modules stay separate chunks, so a command
// still loads only what it uses. Packages with native code (codecs, checksums) and the TUI's Ink and
// React stay outside, loaded from node_modules as before. Worker scripts are not bundled: workers run
// tsc's output (src/util/compiled_script.ts), which is why the bundle sits one directory below
// dist/src/, as the modules it was made of did.
import { readFileSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const out = join(root, "dist", "src", "bundle");
/** Pure-JS dependencies the CLI loads on every run: bundled. */
const BUNDLED = new Set(["yargs", "csv-stringify"]);
const deps = Object.keys(JSON.parse(readFileSync(join(root, "package.json"), "utf8")).dependencies);

rmSync(out, { recursive: true, force: true });
await build({
  entryPoints: [join(root, "dist", "src", "cli", "main.js")],
  outdir: out,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  external: deps.filter((d) => !BUNDLED.has(d)),
  logLevel: "warning",
});
