#!/usr/bin/env node
// Thin launcher: the CLI lives in the compiled library, bundled for start-up (npm run build).
import { setFlagsFromString } from "node:v8";
import { main } from "../dist/src/bundle/main.js";

// V8's young generation doubles (up to 2 x 16 MiB) whenever many objects survive a collection, as
// every table's model does while a store of thousands is read; kept at its initial size, `inspect
// --deep --json` on 4,688 tables peaks at ~100 MiB instead of ~132 MiB (`sizes --full` 225 -> 190
// MiB) for the same CPU. The factor is read each time the space would grow, so setting it here,
// after start-up, takes effect (README, Performance).
setFlagsFromString("--semi-space-growth-factor=1");

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`lsmscope: internal error: ${err && err.stack ? err.stack : err}\n`);
    process.exitCode = 70;
  },
);
