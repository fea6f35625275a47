#!/usr/bin/env node
// Thin launcher: the CLI lives in the compiled library (npm run build).
import { main } from "../dist/src/cli/main.js";

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`lsmscope: internal error: ${err && err.stack ? err.stack : err}\n`);
    process.exitCode = 70;
  },
);
