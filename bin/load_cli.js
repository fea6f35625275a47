// Loads the CLI bundle (dist/src/bundle/cli.cjs, made by npm run build) with the code V8 compiled for
// it at build time (cli.cache), so a run skips most compiling (scripts/bundle-cli.mjs says why).
import { readFileSync, writeFileSync } from "node:fs";
import Module, { createRequire } from "node:module";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { setFlagsFromString } from "node:v8";
import { Script } from "node:vm";

const bundle = fileURLToPath(new URL("../dist/src/bundle/cli.cjs", import.meta.url));
const cacheFile = fileURLToPath(new URL("../dist/src/bundle/cli.cache", import.meta.url));

/**
 * The CLI's `main`, and the compiled bundle (`script.cachedDataRejected` says whether the cache was
 * used; `writeCodeCache` saves what has been compiled by now, as the build does after a run).
 */
export function loadCli() {
  // V8's young generation doubles (up to 2 x 16 MiB) whenever many objects survive a collection, as
  // every table's model does while a store of thousands is read; kept at its initial size, `inspect
  // --deep --json` on 4,688 tables peaks at ~100 MiB instead of ~132 MiB (`sizes --full` 225 -> 190
  // MiB) for the same CPU. The factor is read each time the space would grow, so setting it at
  // start-up takes effect (README, Performance). Set before compiling: a code cache records V8's flags
  // and is rejected when they differ.
  setFlagsFromString("--semi-space-growth-factor=1");
  let source;
  try {
    source = readFileSync(bundle, "utf8");
  } catch {
    process.stderr.write(`lsmscope: ${bundle} is missing; run: npm run build\n`);
    process.exit(3);
  }
  let cachedData;
  try {
    cachedData = readFileSync(cacheFile);
  } catch {
    // no cache: V8 compiles as it would without one
  }
  const script = new Script(Module.wrap(source), { filename: bundle, cachedData });
  const module = { exports: {} };
  script.runInThisContext()(module.exports, createRequire(bundle), module, bundle, dirname(bundle));
  // code compiled from a cache cannot call import(): the CLI imports ES modules (the TUI) through ours
  module.exports.setEsImport((url) => import(url));
  return {
    main: module.exports.main,
    script,
    writeCodeCache: () => writeFileSync(cacheFile, script.createCachedData()),
  };
}
