#!/usr/bin/env node
// Builds the optional RocksDB engine addon (binding.gyp → build/Release/lsmscope_engine.node) against the
// system RocksDB (Debian librocksdb-dev), and beside it the read-ahead helper for cold datadirs
// (build/Release/lsmscope_readahead.node from native/readahead.c; without it the read-ahead goes through
// Node's fs) and the launcher's file mapper (build/Release/lsmscope_map_file.node from
// native/map_file.c; without it the launcher reads the CLI's bundle and code cache) and the block codec
// helper (build/Release/lsmscope_codec.node from native/codec.c, over libsnappy and liblz4, which
// librocksdb-dev brings) and the checksum helper (build/Release/lsmscope_checksum.node from
// native/checksum.c, over ISA-L and xxHash: libisal-dev, libxxhash-dev). Where a helper's headers
// are missing it is not built (scripts/helper-headers.mjs) and the npm bindings do its work. `--optional`
// (used by `npm install`): a missing header or a failed build prints one note and exits 0, since
// everything read-only works without the engine.
// Without it (`npm run build:addon`) any failure is an error. Either way node-gyp's output goes to
// build-addon.log beside package.json (named in the message when the build fails), and one line is printed.
import { closeSync, existsSync, openSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { helperHeaders } from "./helper-headers.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const optional = process.argv.includes("--optional");
// LSMSCOPE_ROCKSDB_HEADER lets tests simulate a machine without librocksdb-dev.
const header = process.env.LSMSCOPE_ROCKSDB_HEADER ?? "/usr/include/rocksdb/db.h";
const installHint = "sudo apt-get install -y librocksdb-dev && npm run build:addon";
const logFile = join(root, "build-addon.log");

function giveUp(why) {
  if (optional) {
    console.log(
      `lsmscope: engine addon not built (${why}); read-only features work; to enable: ${installHint}`,
    );
    process.exit(0);
  }
  console.error(`lsmscope: engine addon build failed: ${why}`);
  process.exit(1);
}

if (!existsSync(header)) giveUp(`${header} not found: librocksdb-dev is not installed`);

// node-gyp from the dev dependencies (a clone), else the one npm runs install scripts with (an installed
// package: npm names it in npm_config_node_gyp)
const localGyp = join(root, "node_modules", ".bin", "node-gyp");
const npmGyp = process.env.npm_config_node_gyp;
const gyp = existsSync(localGyp)
  ? [localGyp]
  : npmGyp && existsSync(npmGyp)
    ? [process.execPath, npmGyp]
    : undefined;
if (!gyp) giveUp("node-gyp not found (neither in node_modules nor npm's own)");

// Debian ships the Node headers under /usr/include/node; --nodedir=/usr avoids a download.
const args = ["rebuild", "--release"];
if (existsSync("/usr/include/node/node_api.h")) args.push("--nodedir=/usr");
const log = openSync(logFile, "w");
const r = spawnSync(gyp[0], [...gyp.slice(1), ...args], { cwd: root, stdio: ["ignore", log, log] });
closeSync(log);
if (r.error) giveUp(`${r.error.message}; full log: ${logFile}`);
if (r.status !== 0) giveUp(`node-gyp exited with status ${r.status}; full log: ${logFile}`);
// the helpers with system libraries only where their headers are (binding.gyp asks the same)
const targets = ["lsmscope_engine", "lsmscope_readahead", "lsmscope_map_file"];
const codec = helperHeaders("codec");
const checksum = helperHeaders("checksum");
if (codec) targets.push("lsmscope_codec");
if (checksum) targets.push("lsmscope_checksum");
for (const target of targets)
  if (!existsSync(join(root, "build", "Release", `${target}.node`)))
    giveUp(`no build/Release/${target}.node`);
// the helpers: the read-ahead helper, the file mapper, the block codec, the checksums (80 columns)
console.log(
  codec && checksum
    ? "lsmscope: engine addon built, with its four helpers: build/Release/"
    : checksum
      ? "lsmscope: engine addon built; no block codec (libsnappy-dev liblz4-dev)"
      : codec
        ? "lsmscope: engine addon built; no checksum helper (libisal-dev libxxhash-dev)"
        : "lsmscope: engine addon built; no block codec or checksum helper (README)",
);
