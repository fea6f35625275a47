#!/usr/bin/env node
// Bundles the CLI (tsc's dist/src/cli/main.js and everything it imports, yargs included) into one
// CommonJS file, dist/src/bundle/cli.cjs, and writes V8's code cache for it beside it (cli.cache);
// bin/lsmscope.js runs the bundle through that cache. Why: Node resolves, reads and compiles each ES
// module on its own, and Node 20 keeps no compiled code between runs; the CLI's ~170 modules (~45 of
// them yargs') cost more start-up than the work on a small store (bench/startup.ts: `inspect` of a
// small store 0.15 -> 0.10 s CPU, Node alone 0.04 s). Lazily imported modules stay lazily evaluated.
//
// Outside the bundle, loaded from node_modules or tsc's output as before: packages with native code
// (codecs, checksums); the TUI (src/tui/), since Ink is an ES module with top-level await, which a
// CommonJS bundle cannot hold (util/es_import.ts); and worker scripts, which need files of their own
// (src/util/compiled_script.ts). The bundle sits one directory below dist/src/, as the modules it was
// made of did, so paths relative to a module's own URL still name the same files.
//
// The code cache holds what V8 compiled while the CLI ran `inspect` on a bundled sample; V8 rejects a
// cache made by another Node or with other flags, and the CLI then compiles as usual.
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import Module from "node:module";
import { build } from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const out = join(root, "dist", "src", "bundle");
/** Pure-JS dependencies the CLI loads on every run: bundled. */
const BUNDLED = new Set(["yargs", "csv-stringify"]);
const deps = Object.keys(JSON.parse(readFileSync(join(root, "package.json"), "utf8")).dependencies);

/**
 * string-width (yargs' and cliui's, three copies) builds an Intl.Segmenter and Unicode-property regular
 * expressions when its module is evaluated: ~23 ms per run (the \p{RGI_Emoji} set alone ~15 ms, the
 * first Segmenter's ICU set-up ~8 ms), though a command that prints no help never measures a string with
 * them. Each such top-level `const NAME = EXPR;` becomes a `let NAME;` made on first use
 * (`(NAME ??= EXPR)`), which is what the module does, later. test/cli_bundle.test.ts checks that none
 * is left in the bundle.
 */
const lazyStringWidth = {
  name: "lazy-string-width",
  setup(b) {
    b.onLoad({ filter: /[\\/]string-width[\\/]index\.js$/ }, ({ path }) => {
      let code = readFileSync(path, "utf8");
      const eager = /^const (\w+) = (new Intl\.Segmenter\(\)|\/.*\\p\{.*\/[a-z]*);$/gm;
      for (const [decl, name, expr] of [...code.matchAll(eager)]) {
        // every use but the declaration itself (`let NAME;`)
        code = code
          .replace(decl, () => `let ${name};`)
          .replace(new RegExp(`(?<![.\\w])${name}\\b(?!;)`, "g"), () => `(${name} ??= ${expr})`);
      }
      return { contents: code, loader: "js" };
    });
  },
};

/**
 * yargs' platform shim, as the CLI uses it:
 * - It imports node:assert (with its error classes, ~0.7 ms of each run's start) for two checks that
 *   hold on every run; `assert` is now required only when one fails, to throw the same error.
 * - Its `mainFilename`, where yargs looks for a package.json to guess a version (which it does as its
 *   factory starts, before the CLI gives its own), is the directory above `node_modules` in its path;
 *   a bundle has none, so it fell back to the working directory and read each directory from there to
 *   the root (`lsmscope` run from /tmp read all of /tmp's names). Now it is the bundle itself: the walk
 *   stays in lsmscope's own directories.
 * test/cli_bundle.test.ts checks both on the built bundle.
 */
const yargsShim = {
  name: "yargs-shim",
  setup(b) {
    b.onLoad({ filter: /[\\/]yargs[\\/]lib[\\/]platform-shims[\\/]esm\.mjs$/ }, ({ path }) => {
      const edits = [
        [
          "import { notStrictEqual, strictEqual } from 'assert'",
          "const notStrictEqual = (a, b, m) => { if (Object.is(a, b)) require('node:assert').notStrictEqual(a, b, m) };\n" +
            "const strictEqual = (a, b, m) => { if (!Object.is(a, b)) require('node:assert').strictEqual(a, b, m) };",
        ],
        ["mainFilename: mainFilename || process.cwd(),", "mainFilename: fileURLToPath(import.meta.url),"],
      ];
      let code = readFileSync(path, "utf8");
      for (const [from, to] of edits) {
        // a yargs whose shim reads otherwise fails the build rather than bundling it unchanged
        if (!code.includes(from)) throw new Error(`yargs-shim: ${path} no longer has: ${from}`);
        code = code.replace(from, () => to);
      }
      return { contents: code, loader: "js" };
    });
  },
};

/**
 * One CommonJS file from tsc's `entry` (the CLI, a worker script), with yargs and csv-stringify inside,
 * in ASCII only: a launcher reads a file it finds ASCII as Latin-1 (bin/load_cli.js), ~2 ms sooner
 * than decoding 1.2 MB of UTF-8, and V8 gets a one-byte string. esbuild escapes the characters of
 * string and template literals (its default ASCII charset) but leaves those of comments and regular
 * expression literals; there `\uXXXX` (each UTF-16 unit) means the same character. `wrapped`: written
 * inside Node's CommonJS wrapper (the CLI's bundle, below).
 */
const commonJsBundle = async (entry, outfile, plugins = [], { wrapped = false } = {}) => {
  await bundleOnce(entry, outfile, plugins);
  const text = readFileSync(outfile, "utf8");
  const ascii = text.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
  const final = wrapped ? Module.wrap(ascii) : ascii;
  if (final === text) return;
  // a new file in the old one's place: a run that mapped the old one (bin/load_cli.js) keeps it
  const temp = `${outfile}.${process.pid}`;
  writeFileSync(temp, final);
  renameSync(temp, outfile);
};

const bundleOnce = (entry, outfile, plugins) =>
  build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    format: "cjs",
    platform: "node",
    target: "node20",
    external: deps.filter((d) => !BUNDLED.has(d)),
    // a CommonJS file has no import.meta: the modules' own URL is the bundle's
    define: { "import.meta.url": "__lsmscope_bundle_url" },
    banner: { js: 'const __lsmscope_bundle_url = require("node:url").pathToFileURL(__filename).href;' },
    plugins,
    logLevel: "warning",
  });

rmSync(out, { recursive: true, force: true });
// The CLI bundle is written inside Node's CommonJS wrapper (Module.wrap: `(function (exports, require,
// module, __filename, __dirname) { ... \n});`), which bin/load_cli.js compiles as it is. Wrapped as it
// loaded, the source was a concatenation that V8 copied into one flat string before compiling (1.2 MB:
// ~300 fresh pages of memory a run; on a virtual machine that hands each such page back to its host,
// 13-17 us a page). Only the launcher loads this file: required, it would export nothing. Worker
// scripts stay plain: Node loads them as files.
await commonJsBundle(
  join(root, "dist", "src", "cli", "main.js"),
  join(out, "cli.cjs"),
  [lazyStringWidth, yargsShim],
  { wrapped: true },
);

// The TUI, which the CLI imports as an ES module (util/es_import.ts), bundled as one of its own beside
// tsc's src/tui/run.js (so module-relative paths name the same files): its ~100 modules, most of them
// Ink's and React's, loaded one by one from node_modules took 1.0-1.5 s of the TUI's time to its first
// screen on a loaded 2-core machine, against 0.2-0.4 s as one file (bench/tui.ts). CommonJS inside it
// (React, Ink's signal-exit) gets a require.
const TUI_BUNDLED = new Set(["ink", "react"]);
/** Ink imports its devtools hook only with DEV=true; the package is not installed: an empty stand-in. */
const noDevtools = {
  name: "no-react-devtools",
  setup(b) {
    b.onResolve({ filter: /^react-devtools-core$/ }, () => ({ path: "devtools", namespace: "stub" }));
    b.onLoad({ filter: /.*/, namespace: "stub" }, () => ({ contents: "export default {};" }));
  },
};
await build({
  entryPoints: [join(root, "dist", "src", "tui", "run.js")],
  outfile: join(root, "dist", "src", "tui", "bundle.js"),
  bundle: true,
  format: "esm",
  platform: "node",
  target: "node20",
  external: deps.filter((d) => !TUI_BUNDLED.has(d)),
  plugins: [noDevtools],
  // React and its reconciler ship a development build beside the production one and pick by NODE_ENV
  // when they load: bundled, only the production build is kept (the TUI bundle 2.4 -> ~1 MB)
  define: { "process.env.NODE_ENV": '"production"' },
  // whitespace and syntax only: names stay readable in a stack trace
  minifyWhitespace: true,
  minifySyntax: true,
  banner: {
    js: 'import { createRequire as __lsmscopeRequire } from "node:module"; const require = __lsmscopeRequire(import.meta.url);',
  },
  logLevel: "warning",
});

// Worker scripts that start on every multi-threaded run, bundled as one CommonJS file beside tsc's
// script (worker.js -> worker.cjs; the pool prefers the bundle): loading the sizes worker's ~40 ES
// modules one by one took 90-150 ms of its start, as one file 30-70 ms (sizes --full --workers 2 on
// a 131 MB store starts scanning in the second thread that much sooner). Same externals as the CLI.
const WORKERS = ["sizes/worker.js"];
for (const rel of WORKERS) {
  const script = join(root, "dist", "src", rel);
  await commonJsBundle(script, script.replace(/\.js$/, ".cjs"));
}

const sample = join(root, "samples", "modern");
if (existsSync(sample)) {
  const r = spawnSync(process.execPath, [join(root, "bin", "lsmscope.js"), "inspect", sample], {
    env: { ...process.env, LSMSCOPE_CODE_CACHE_WRITE: "1" },
    stdio: ["ignore", "ignore", "pipe"],
    encoding: "utf8",
  });
  if (r.status !== 0) throw new Error(`writing the code cache failed: ${r.stderr.slice(-500)}`);
}
