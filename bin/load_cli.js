// Loads the CLI bundle (dist/src/bundle/cli.cjs, made by npm run build) with the code V8 compiled for
// it at build time (cli.cache), so a run skips most compiling (scripts/bundle-cli.mjs says why).
//
// The launcher is CommonJS (bin/package.json): Node loads an ES module entry point through its
// asynchronous loader, which starts libuv's thread pool before any of our code runs, so its size
// (UV_THREADPOOL_SIZE, read at the pool's first use) could not be chosen; a CommonJS entry is read
// synchronously and starts ~3 ms sooner.
"use strict";
const { isAscii } = require("node:buffer");
const { readFileSync, writeFileSync } = require("node:fs");
const Module = require("node:module");
const { dirname, join } = require("node:path");
const { setFlagsFromString } = require("node:v8");
const { Script } = require("node:vm");

const bundle = join(__dirname, "..", "dist", "src", "bundle", "cli.cjs");
const cacheFile = join(__dirname, "..", "dist", "src", "bundle", "cli.cache");

/**
 * Threads in libuv's pool (unless UV_THREADPOOL_SIZE is set): the reads that a cold datadir waits on
 * go through it (src/util/tail_read_ahead.ts), and a cold disk here served 4,354 table tails in 0.45 s
 * four at a time, 0.27 s thirty-two at a time. The threads start at the pool's first use, which a
 * warm run never makes.
 */
const THREADPOOL_SIZE = "32";

/** V8's young-generation growth factor for the CLI (see loadCli). */
const YOUNG_GROWTH = 1;

/**
 * The CLI's `main`, and the compiled bundle (`script.cachedDataRejected` says whether the cache was
 * used; `writeCodeCache` saves what has been compiled by now, as the build does after a run).
 */
function loadCli() {
  // the environment itself, which libuv reads: set before the pool's first use
  process.env.UV_THREADPOOL_SIZE ??= THREADPOOL_SIZE;
  // V8's young generation doubles (up to 2 x 16 MiB) whenever many objects survive a collection, as
  // every table's model does while a store of thousands is read; kept at its initial size, `inspect
  // --deep --json` on 4,688 tables peaks at ~100 MiB instead of ~132 MiB (`sizes --full` 225 -> 190
  // MiB) for the same CPU. The factor is read each time the space would grow, so setting it at
  // start-up takes effect (README, Performance). Set before compiling: a code cache records V8's flags
  // and is rejected when they differ.
  setFlagsFromString(`--semi-space-growth-factor=${YOUNG_GROWTH}`);
  let source;
  try {
    // the build writes the bundle in ASCII: read as Latin-1 it is the same text, without UTF-8's
    // decoding (~2 ms of every run for 1.2 MB)
    const bytes = readFileSync(bundle);
    source = isAscii(bytes) ? bytes.toString("latin1") : bytes.toString("utf8");
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
  script.runInThisContext()(module.exports, Module.createRequire(bundle), module, bundle, dirname(bundle));
  // code compiled from a cache cannot call import(): the CLI imports ES modules (the TUI) through ours
  module.exports.setEsImport((url) => import(url));
  // V8 raises the factor again when a worker thread's heap is set up: the scan pools put it back
  module.exports.noteYoungGenerationGrowth(YOUNG_GROWTH);
  return {
    main: module.exports.main,
    script,
    writeCodeCache: () => writeFileSync(cacheFile, script.createCachedData()),
  };
}

exports.loadCli = loadCli;
