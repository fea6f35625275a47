/**
 * "Modern" sample: a RocksDB 9.7 store written by @nxtedition/rocksdb, whose table options are fixed
 * by that binding: format_version 6 (footer with its own checksum), XXH3 block checksums, ZSTD with a
 * 16 KiB dictionary trained per file (compression_opts max_dict_bytes=16384,
 * zstd_max_train_bytes=1638400), bloom 10 filters. RocksDB 7.8.3 cannot read format 6; the pure-TS
 * readers can. CFs: accounts (keccak(addr) → full account RLP), code (codeHash → code),
 * storage (accHash‖slotHash → value). Only ever opened on a directory the generator created.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Put } from "./engine-writer.js";
import type { PhasedEvents, StateEvent } from "./events.js";
import type { LogicalStore } from "./logical.js";
import { besuStorageKey, encodeAccountFull } from "../eth/index.js";
import { codeHashOf, codeOf, type World } from "./world.js";

export const MODERN_INSTANCE = ".";
export const MODERN_CFS = ["default", "accounts", "code", "storage"] as const;

function modernPuts(
  world: World,
  events: StateEvent[],
  seen: Set<string>,
  cache: Map<number, Buffer>,
): Put[] {
  const puts: Put[] = [];
  for (const e of events) {
    if (e.t === "account")
      puts.push({
        cf: "accounts",
        key: e.acc.hash,
        value: Buffer.from(
          encodeAccountFull({ ...e.state, codeHash: codeHashOf(world, e.acc, "shared", cache) }),
        ),
      });
    else if (e.t === "code") {
      const hash = codeHashOf(world, e.acc, "shared", cache);
      if (seen.has(hash.toString("hex"))) continue;
      seen.add(hash.toString("hex"));
      puts.push({ cf: "code", key: hash, value: codeOf(world, e.acc, "shared")! });
    } else if (e.t === "slot")
      puts.push({ cf: "storage", key: besuStorageKey(e.acc.hash, e.slotHash), value: e.value });
  }
  return puts;
}

/**
 * The writer runs in a child process: @nxtedition/rocksdb carries its own RocksDB 9.7 and must never
 * share a process with the engine addon's system RocksDB 7.8.3 (their symbols collide and the process
 * crashes). Puts go over a temporary JSON file.
 */
const CHILD = `
const fs = require("node:fs");
const [modulePath, dir, putsFile, cfsJson] = process.argv.slice(1);
const { RocksLevel } = require(modulePath);
(async () => {
  const columns = Object.fromEntries(JSON.parse(cfsJson).map((c) => [c, {}]));
  const puts = JSON.parse(fs.readFileSync(putsFile, "utf8"));
  const enc = { columns, keyEncoding: "buffer", valueEncoding: "buffer" };
  let db = new RocksLevel(dir, enc);
  await db.open({ createIfMissing: true, columns });
  for (let i = 0; i < puts.length; i += 1000) {
    await db.batch(puts.slice(i, i + 1000).map(([cf, k, v]) => ({
      type: "put", key: Buffer.from(k, "hex"), value: Buffer.from(v, "hex"), column: db.columns[cf] })));
  }
  // the binding has no flush: closing leaves the writes in the WAL, and the reopen's recovery writes
  // them into level-0 tables (format 6, dictionary-compressed)
  await db.close();
  db = new RocksLevel(dir, enc);
  await db.open({ columns });
  await db.close();
})().catch((e) => { console.error(e); process.exit(1); });
`;

export async function writeModern(
  dir: string,
  world: World,
  events: PhasedEvents,
  log: LogicalStore,
): Promise<void> {
  const require = createRequire(import.meta.url);
  const modulePath = require.resolve("@nxtedition/rocksdb");
  const seen = new Set<string>();
  const cache = new Map<number, Buffer>();
  const puts: Put[] = [];
  for (const phase of ["bulk", "pre-run", "wal"] as const)
    puts.push(...modernPuts(world, events[phase], seen, cache));
  const tmp = mkdtempSync(join(tmpdir(), "lsmscope-modern-"));
  try {
    const putsFile = join(tmp, "puts.json");
    writeFileSync(
      putsFile,
      JSON.stringify(puts.map((p) => [p.cf, p.key.toString("hex"), p.value.toString("hex")])),
    );
    const r = spawnSync(
      process.execPath,
      ["-e", CHILD, modulePath, dir, putsFile, JSON.stringify(MODERN_CFS)],
      {
        encoding: "utf8",
      },
    );
    if (r.status !== 0)
      throw new Error(`modern sample writer failed (${r.status ?? r.signal}): ${r.stderr || r.error}`);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  for (const p of puts) log.put(MODERN_INSTANCE, p.cf, p.key, p.value, "bulk");
}
