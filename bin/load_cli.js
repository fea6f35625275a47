// Loads the CLI bundle (dist/src/bundle/cli.cjs, made by npm run build) with the code V8 compiled for
// it at build time (cli.cache), so a run skips most compiling (scripts/bundle-cli.mjs says why).
//
// The launcher is CommonJS (bin/package.json): Node loads an ES module entry point through its
// asynchronous loader, which starts libuv's thread pool before any of our code runs, so its size
// (UV_THREADPOOL_SIZE, read at the pool's first use) could not be chosen; a CommonJS entry is read
// synchronously and starts ~3 ms sooner.
"use strict";
const { Buffer, isAscii } = require("node:buffer");
const {
  closeSync,
  existsSync,
  fstatSync,
  openSync,
  readFileSync,
  readSync,
  renameSync,
  writeFileSync,
} = require("node:fs");
const Module = require("node:module");
const { dirname, join } = require("node:path");
const { setFlagsFromString } = require("node:v8");
const { Script } = require("node:vm");

const bundle = join(__dirname, "..", "dist", "src", "bundle", "cli.cjs");
const cacheFile = join(__dirname, "..", "dist", "src", "bundle", "cli.cache");

/**
 * Threads in libuv's pool (unless UV_THREADPOOL_SIZE is set). Without the read-ahead helper, the reads
 * that a cold datadir waits on go through it (src/util/tail_read_ahead.ts), and a cold disk here served
 * 4,354 table tails in 0.45 s four at a time, 0.27 s thirty-two at a time. With the helper, a few calls
 * at a time read or advise many files each (src/util/tail_batches.ts): Node's own four threads. libuv
 * starts every thread of its pool at its first use and waits for them: 32 took ~5 ms of an `inspect`
 * of 3,235 tables that reads their tails through the helper, 4 ~0.5 ms.
 */
const THREADPOOL_SIZE = "32";
const HELPER_THREADPOOL_SIZE = "4";
const readAheadHelper = join(__dirname, "..", "build", "Release", "lsmscope_readahead.node");

/** The pool's size for this run: fewer threads where the read-ahead helper is there to be used. */
function threadPoolSize() {
  const helper = process.env.LSMSCOPE_READAHEAD_HELPER !== "0" && existsSync(readAheadHelper);
  return helper ? HELPER_THREADPOOL_SIZE : THREADPOOL_SIZE;
}

/**
 * The napi-rs bindings (crc32c, xxHash, LZ4) each carry their own mimalloc, which asks for transparent
 * huge pages for its arenas (madvise): each binding's first allocation then takes a whole 2 MiB page of
 * fresh memory, 4-8 MiB of a short run's ~50-70 MiB peak for the few KiB it uses (`inspect --deep` of
 * the ten realistic tables 63.0 -> 55.5 MiB, the L0 pile-up's `--deep --json` 71 -> 66 MiB, the same
 * time in 21-31 paired rounds; `check` 72 -> 65 and 91 -> 87 MiB). mimalloc reads this variable when a
 * binding first allocates. Scans (`sizes`, `--verify`) keep the huge pages: they decompress their blocks
 * into those arenas.
 */
const FEW_BLOCKS_MIMALLOC_THP = "0";

/** V8's young-generation growth factor for the CLI (see loadCli). */
const YOUNG_GROWTH = 1;

/**
 * V8 considers a function for optimising (TurboFan, on background threads) once it has run its
 * interrupt budget of bytecode: 66 KiB in Node 20's V8. In a run of a fraction of a second, `inspect`
 * of thousands of tiny tables, that sends hundreds of functions to TurboFan (~0.15 s of CPU in a
 * 0.28 s run), most of them compiled for the few milliseconds left of their phase, and on two cores
 * those threads take turns with the main thread. Eight times the budget: `inspect` of 4,354 tables
 * 0.29 -> 0.26 s wall, 0.43 -> 0.30 s CPU, peak RSS 78 -> 69 MiB (16x the same, 32x slower again);
 * `sizes --full`, whose loops run for seconds, 4-9% slower with it, so only `inspect` without
 * `--verify` takes it (README, Performance: Start-up; the measurements in bench/history.md), only
 * until the stores turn out to hold many tables (LONG_INSPECT_TABLES), and not while a store's many
 * tables are read (TABLE_READS_TABLES).
 */
const V8_INTERRUPT_BUDGET = 67584;
const SHORT_RUN_INTERRUPT_BUDGET = 8 * V8_INTERRUPT_BUDGET;

/**
 * `check` reads the model as `inspect` does, then runs its rules (the placement overlay's lookups
 * over an L0 pile-up: ~100,000 filter queries) for about as long again. Under V8's budget TurboFan
 * compiled ~200 functions (~0.7 s of its threads' CPU against ~0.03 s for `inspect`); four times the
 * budget: /tmp/l0, 10 rotated rounds, check 1.75 -> 1.61x inspect's wall time, CPU 0.93 -> 0.69 s
 * (8x: 1.58x, 0.62 s; the realistic stores 1.50 -> 1.36x, 1.19 -> 1.04x); four, not eight, since
 * its rules' loops run on for longer on other stores.
 */
const CHECK_INTERRUPT_BUDGET = 4 * V8_INTERRUPT_BUDGET;

/**
 * From how many table files in the stores a run of `inspect` or `check` goes on long enough for V8's
 * own budget to pay (src/util/interrupt_budget.ts: the run returns to it once the stores are found).
 * Measured on L0 pile-ups of tiny tables (wall time under V8's budget against the raised one, paired
 * rounds, session 28): `inspect` 1.17 on 2,055 tables, 0.97-1.06 on 5,260, 0.79 on 7,564, 0.82 on
 * 12,031, 0.92 on 67,257; `--json` 1.00 and `--deep` 1.03 on 5,260, `--deep` 0.86 on 7,564.
 */
const LONG_INSPECT_TABLES = 6000;

/**
 * Below that, from how many tables `inspect` (default mode, `--json`: those of a store; `--deep`:
 * those of every store) and `check` (a store's) read them under V8's own budget and TurboFan's
 * smaller inlining budget, going back to the raised budget after them (tableReadsBegin): the tables
 * are where the time goes, while the MANIFEST's replay before them and the report after them run for
 * milliseconds (`check`: LONG_DEEP_JSON_TABLES). `inspect`'s reads alone under both, against the
 * whole run under the raised budget (wall time, paired rounds, session 29): 3,259 tables 1.02-1.08,
 * 3,684 0.95-0.99, 4,501 0.98-1.00, 5,260 0.84-0.94 (`--json` 0.95-0.98); `--deep` 2,055 tables
 * 1.02, 3,259 0.96, 3,684 0.90, 4,501 1.01, 5,260 0.89-0.98. From 6,000 on, the whole run under V8's
 * budget and its inlining as before: the reads alone under both took 0.92 on 7,564 tables and
 * 0.99-1.05 on 12,031 and 67,257.
 */
const TABLE_READS_TABLES = 4000;

/**
 * The same for `inspect --deep --json`, which does the most for each table (every index entry and
 * every table's JSON): 1.22 on 2,055 tables, 0.96 on 3,259, 0.89 on 5,260, 0.75 on 12,031. `check`
 * (its rules' lookups) had it too until session 29: 1.13 on 2,055, 1.04 on 3,259, 0.91-0.94 on 5,260,
 * 0.89 on 7,564; now from 6,000 (LONG_INSPECT_TABLES), with its table reads alone under V8's budget
 * from 4,000 (TABLE_READS_TABLES): on 4,501 and 5,260 tables 0.93 and 0.94-0.96 of the time of V8's
 * budget for the whole run (paired rounds).
 */
const LONG_DEEP_JSON_TABLES = 4000;

/** Whether the command line asks for a run of a fraction of a second (an `inspect` that reads no blocks). */
function shortRun(args) {
  return args[0] === "inspect" && !args.includes("--verify");
}

/** Whether the command line reads a few blocks of each table at most (`inspect` without `--verify`, `check`). */
function readsFewBlocks(args) {
  return shortRun(args) || args[0] === "check";
}

/**
 * Whether this V8 has `--interrupt-budget`, the flag the budgets above were measured under (Node 20's
 * V8 11.3; Node 21's 11.8 has it too). V8 12 and 13 (Node 22 and 24, which package.json's engines
 * allow) do not: setting it printed "Error: unrecognized flag --interrupt-budget=..." on stderr at
 * every `inspect` and `check`. There V8's own budgets stand.
 */
const V8_HAS_INTERRUPT_BUDGET = Number(process.versions.v8.split(".")[0]) <= 11;

/** The interrupt budget the command line runs with, when not V8's. */
function interruptBudget(args) {
  if (!V8_HAS_INTERRUPT_BUDGET) return undefined;
  if (shortRun(args)) return SHORT_RUN_INTERRUPT_BUDGET;
  if (args[0] === "check") return CHECK_INTERRUPT_BUDGET;
  return undefined;
}

/** Whether the command line asks for every table's index and JSON (`--deep --json`, in any order). */
function deepJson(args) {
  return args.includes("--deep") && args.includes("--json");
}

/** The table files from which a run under a raised budget returns to V8's (see LONG_INSPECT_TABLES). */
function longRunTables(args) {
  return deepJson(args) ? LONG_DEEP_JSON_TABLES : LONG_INSPECT_TABLES;
}

/**
 * The tables from which their reads run under V8's budget (TABLE_READS_TABLES), if ever: `check`,
 * and `inspect` but with `--deep --json`, whose reads go with its JSON (and which has V8's budget
 * from 4,000 table files for its whole run).
 */
function tableReadTables(args) {
  return (shortRun(args) && !deepJson(args)) || args[0] === "check" ? TABLE_READS_TABLES : undefined;
}

/**
 * The CLI's `main`, and the compiled bundle (`script.cachedDataRejected` says whether the cache was
 * used; `writeCodeCache` saves what has been compiled by now, as the build does after a run).
 */
function loadCli() {
  const args = process.argv.slice(2);
  watchStdio();
  // the environment itself, which libuv (and mimalloc) read: set before the pool's (a binding's) first use
  process.env.UV_THREADPOOL_SIZE ??= threadPoolSize();
  if (readsFewBlocks(args)) process.env.MIMALLOC_ALLOW_THP ??= FEW_BLOCKS_MIMALLOC_THP;
  // V8's young generation doubles (up to 2 x 16 MiB) whenever many objects survive a collection, as
  // every table's model does while a store of thousands is read; kept at its initial size, `inspect
  // --deep --json` on 4,688 tables peaks at ~100 MiB instead of ~132 MiB (`sizes --full` 225 -> 190
  // MiB) for the same CPU. The factor is read each time the space would grow, so setting it at
  // start-up takes effect (README, Performance: Memory). Set before compiling: a code cache records V8's flags
  // and is rejected when they differ.
  setFlagsFromString(`--semi-space-growth-factor=${YOUNG_GROWTH}`);
  // the runs that read a few blocks map the files; the scans read them (fileMapper says why)
  const mapper = readsFewBlocks(args) ? fileMapper() : undefined;
  let source = mapper?.latin1(bundle);
  let bytes;
  if (source === undefined)
    try {
      // the build writes the bundle in ASCII: read as Latin-1 it is the same text, without UTF-8's
      // decoding (~2 ms of every run for 1.2 MB)
      bytes = readFileSync(bundle);
      source = isAscii(bytes) ? bytes.toString("latin1") : bytes.toString("utf8");
    } catch {
      process.stderr.write(`lsmscope: ${bundle} is missing; run: npm run build\n`);
      process.exit(3);
    }
  let cachedData = mapper?.bytes(cacheFile);
  if (cachedData === undefined)
    try {
      // into the bundle's bytes, when read and now copied into `source`: pages already touched, where
      // a buffer of its own took ~190 fresh ones (bench/history.md: Start-up)
      cachedData = readFileInto(cacheFile, bytes ?? Buffer.alloc(0));
    } catch {
      // no cache: V8 compiles as it would without one
    }
  // the build writes the bundle inside Node's wrapper, so that V8 compiles the text read, not a
  // concatenation it would first copy whole (scripts/bundle-cli.mjs); a bundle built before is wrapped here
  const wrapped = source.startsWith(Module.wrap("\0").split("\0")[0]) ? source : Module.wrap(source);
  const script = new Script(wrapped, { filename: bundle, cachedData });
  const module = { exports: {} };
  script.runInThisContext()(module.exports, Module.createRequire(bundle), module, bundle, dirname(bundle));
  // code compiled from a cache cannot call import(): the CLI imports ES modules (the TUI) through ours
  module.exports.setEsImport((url) => import(url));
  // V8 raises the factor again when a worker thread's heap is set up: the scan pools put it back
  module.exports.noteYoungGenerationGrowth(YOUNG_GROWTH);
  // after compiling, so that the cache (made under V8's budget) is taken; a function takes its budget
  // when V8 first gives it feedback, which the command's own code gets from here on
  const budget = interruptBudget(args);
  if (budget !== undefined) {
    setFlagsFromString(`--interrupt-budget=${budget}`);
    module.exports.noteRaisedInterruptBudget(
      V8_INTERRUPT_BUDGET,
      budget,
      longRunTables(args),
      tableReadTables(args),
    );
  }
  return {
    main: module.exports.main,
    exitWhenWritten,
    script,
    writeCodeCache: () => {
      // under the flags a run loads it with (V8 rejects a cache made under others)
      if (V8_HAS_INTERRUPT_BUDGET) setFlagsFromString(`--interrupt-budget=${V8_INTERRUPT_BUDGET}`);
      // a new file in the old one's place: a run that mapped the old one (fileMapper) keeps reading
      // it, where a file rewritten in place would end under its mapping (SIGBUS)
      const temp = `${cacheFile}.${process.pid}`;
      writeFileSync(temp, script.createCachedData());
      renameSync(temp, cacheFile);
    },
  };
}

/**
 * The file mapper (native/map_file.c), where the addon build made it: `latin1(path)` and `bytes(path)`
 * give a file as a string and a Buffer over a read-only mapping of it, or undefined. Reading the bundle
 * copied its 1.2 MB into fresh memory and making a string of it copied them again, and the code cache
 * into the same buffer: ~600 pages a run touched for the first time, each ~12 us on a virtual machine
 * that hands free memory back to its host. Mapped, V8 reads the cache from the page cache and the
 * source only for the functions it compiles anew: `inspect --deep --json` of ten realistic tables
 * 0.94 of the wall time (21 paired rounds; bench/history.md: Start-up). Undefined
 * without the build (no librocksdb-dev), or where this Node lacks external strings (before 20.4).
 *
 * Only the runs that read a few blocks of each table (`readsFewBlocks`) map them. The read buffer,
 * 1.2 MB and so mapped by malloc, raises glibc's dynamic thresholds once it is freed (mmap to its
 * size, heap trimming to twice that), and a scan's allocations gain from that: `sizes --full` on an
 * L0 pile-up (two threads) took 1.025-1.036 of the wall time with the files mapped, and the same as
 * read with a 1.3 MB buffer freed instead (11 paired rounds each).
 */
function fileMapper() {
  const file = join(__dirname, "..", "build", "Release", "lsmscope_map_file.node");
  if (!existsSync(file)) return undefined;
  const module = { exports: {} };
  try {
    process.dlopen(module, file);
  } catch {
    return undefined;
  }
  const { latin1, bytes } = module.exports;
  return typeof latin1 === "function" && typeof bytes === "function" ? { latin1, bytes } : undefined;
}

/** The file at `path`, read into `into` when it fits, else into a buffer of its own. */
function readFileInto(path, into) {
  const fd = openSync(path, "r");
  try {
    const size = fstatSync(fd).size;
    const buf = into.length >= size ? into : Buffer.allocUnsafe(size);
    let read = 0;
    for (let n = 1; read < size && n > 0; read += n) n = readSync(fd, buf, read, size - read, read);
    return buf.subarray(0, read);
  } finally {
    closeSync(fd);
  }
}

/** Which of process.stdout and process.stderr a run has asked for, once watchStdio() watches them. */
let madeStreams;

/**
 * Node makes process.stdout and process.stderr at their first use, and for a terminal or a pipe that
 * loads its net module and the stream's own (~2.5 ms here; stderr a pipe, as under a benchmark's
 * /usr/bin/time or in CI's log). A run that writes nothing there need not make them: from here on
 * `madeStreams` names those asked for, so that the exit looks only at those.
 */
function watchStdio() {
  madeStreams = new Set();
  for (const name of ["stdout", "stderr"]) {
    const made = Object.getOwnPropertyDescriptor(process, name);
    if (made === undefined || typeof made.get !== "function" || !made.configurable) {
      madeStreams.add(name);
      continue;
    }
    Object.defineProperty(process, name, {
      configurable: true,
      enumerable: made.enumerable,
      get() {
        madeStreams.add(name);
        return made.get.call(this);
      },
    });
  }
}

/**
 * End the process with `code` once stdout and stderr (those the run made) hold nothing unwritten. A
 * process left to end on its own first waits for every task V8 has queued for its background
 * threads: TurboFan compiles of functions that will not run again. `inspect --deep --json` on 3,235
 * tiny tables sat idle ~40 ms after its last write (from it to the exit 52 -> 13 ms; wall 0.92 in 15
 * paired rounds).
 * process.exit() drops the queue and waits only for the tasks under way. A file or a terminal is
 * written as it is given; a pipe holds what its reader has not taken yet, so the exit waits for it to
 * drain.
 */
function exitWhenWritten(code) {
  process.exitCode = code;
  const pending = ["stdout", "stderr"]
    .filter((name) => madeStreams === undefined || madeStreams.has(name))
    .map((name) => process[name])
    .filter((s) => s.writableLength > 0);
  if (pending.length === 0) process.exit(code);
  let left = pending.length;
  // a stream that fails instead (its reader gone) never drains: the process then ends on its own
  for (const s of pending) s.once("drain", () => --left === 0 && process.exit(code));
}

exports.loadCli = loadCli;
exports.fileMapper = fileMapper;
exports.exitWhenWritten = exitWhenWritten;
exports.shortRun = shortRun;
exports.readsFewBlocks = readsFewBlocks;
exports.interruptBudget = interruptBudget;
exports.V8_HAS_INTERRUPT_BUDGET = V8_HAS_INTERRUPT_BUDGET;
exports.longRunTables = longRunTables;
exports.tableReadTables = tableReadTables;
