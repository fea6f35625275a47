#!/bin/sh
":" //; unset NODE_EXTRA_CA_CERTS; exec node "$0" "$@"
// Thin launcher: the CLI lives in the compiled library, bundled with a code cache (load_cli.js).
//
// Run as a program (npm's `lsmscope`, ./bin/lsmscope.js), this file is first a shell script: line 2
// starts Node on this same file without NODE_EXTRA_CA_CERTS. Node parses that certificate bundle as it
// starts, before any script can unset it (~35 ms of a ~0.1 s `inspect` on a machine whose bundle is
// the system's; README, Performance: Start-up), and lsmscope opens no TLS connection. To Node, line 2
// is a string and a comment, so `node bin/lsmscope.js` runs it as a no-op and keeps the environment.
// /bin/sh rather than `env -S -u`: BusyBox's env has no -S.
"use strict";
const { loadCli } = require("./load_cli.js");

const { main, writeCodeCache, exitWhenWritten } = loadCli();
main().then(
  (code) => {
    // the build writes the cache after a run, so it holds the functions that run compiled
    if (process.env.LSMSCOPE_CODE_CACHE_WRITE === "1") {
      process.exitCode = code;
      writeCodeCache();
    } else exitWhenWritten(code);
  },
  (err) => {
    process.stderr.write(`lsmscope: internal error: ${err && err.stack ? err.stack : err}\n`);
    process.exitCode = 70;
  },
);
