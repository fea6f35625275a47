#!/bin/sh
":" //; unset NODE_EXTRA_CA_CERTS; _lsmscope_pool=; _lsmscope_cpus=
":" //; GLIBC_TUNABLES="${GLIBC_TUNABLES:+$GLIBC_TUNABLES:}glibc.malloc.hugetlb=1"; export GLIBC_TUNABLES
":" //; case "$1" in inspect | check | probe | report) read -r _lsmscope_cpus 2>/dev/null </sys/devices/system/cpu/online ;; esac
":" //; case "$_lsmscope_cpus" in 0 | 0-1) _lsmscope_pool=--v8-pool-size=1; for _lsmscope_arg; do case "$_lsmscope_arg" in --verify*) _lsmscope_pool= ;; esac; done ;; esac
":" //; exec node $_lsmscope_pool "$0" "$@"
// Thin launcher: the CLI lives in the compiled library, bundled with a code cache (load_cli.js).
//
// Run as a program (npm's `lsmscope`, ./bin/lsmscope.js), this file is first a shell script: lines
// 2-5 start Node on this same file without NODE_EXTRA_CA_CERTS. Node parses that certificate bundle as
// it starts, before any script can unset it (~35 ms of a ~0.1 s `inspect` on a machine whose bundle is
// the system's; README, Performance: Start-up), and lsmscope opens no TLS connection. To Node, each of
// those lines is a string and a comment, so `node bin/lsmscope.js` runs them as no-ops and keeps the
// environment. /bin/sh rather than `env -S -u`: BusyBox's env has no -S.
//
// `inspect`, `check`, `probe` and `report` on a machine of one or two cores (the kernel's list of
// online CPUs, read by the shell's own `read`: no process started) get one V8 background thread
// instead of Node's four (a Node option, read before any script runs): their optimising compiles then
// take turns on the other core instead of four threads taking the main thread's. On the L0 pile-up
// `inspect` took 0.94 and 0.96 of the wall time, `--deep` 0.94, `--deep --json` 0.94 and 0.91,
// `--json` 0.97, `check` 0.96, `probe` 0.93 and 0.95, `report` 0.98; `samples/modern` 0.95 (paired
// rounds, session 30; bench/history.md). Two threads that run JavaScript at once, each compiling for
// its own isolate, keep Node's four: `sizes` scans on two (1.07 of the wall time with one, session
// 10), as `inspect --verify` checks (1.11). The variables are lsmscope's own: a name the environment
// exports would reach Node changed.
//
// glibc's malloc (2.35 on; older releases and other C libraries ignore the name) advises the memory it
// maps for large blocks as transparent huge pages, which most distributions give on request only:
// the buffers Node allocates outside its heap (array buffers, the WAL layer's columns) then fault
// 2 MiB at a time. A fresh 4 KiB page costs 10-14 us to fault on this project's virtual machine, and
// a WAL's writes are hundreds of MB of fresh memory: `sizes --full` of a 462 MB WAL 1.19x as fast, of
// six column families' 265 MB WAL 1.18x, `inspect`, `check` and the pile-up's `sizes --full` as before
// with the same peak RSS (paired rounds, session 46; bench/history.md). A value the environment gives
// is kept, this one appended.
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
