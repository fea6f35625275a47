#!/usr/bin/env node
// Thin launcher: the CLI lives in the compiled library, bundled with a code cache (load_cli.js).
"use strict";
const { loadCli } = require("./load_cli.js");

const { main, writeCodeCache } = loadCli();
main().then(
  (code) => {
    process.exitCode = code;
    // the build writes the cache after a run, so it holds the functions that run compiled
    if (process.env.LSMSCOPE_CODE_CACHE_WRITE === "1") writeCodeCache();
  },
  (err) => {
    process.stderr.write(`lsmscope: internal error: ${err && err.stack ? err.stack : err}\n`);
    process.exitCode = 70;
  },
);
