/**
 * "Modern" sample: a RocksDB 9.7 store written by @nxtedition/rocksdb, whose table options are fixed
 * by that binding: format_version 6 (footer with its own checksum), XXH3 block checksums, ZSTD with a
 * 16 KiB dictionary trained per file (compression_opts max_dict_bytes=16384,
 * zstd_max_train_bytes=1638400), bloom 10 filters. RocksDB 7.8.3 cannot read format 6; the pure-TS
 * readers can. CFs: accounts (keccak(addr) → full account RLP), code (codeHash → code),
 * storage (accHash‖slotHash → value). Only ever opened on a directory the generator created.
 */
import { createRequire } from "node:module";
import type { Put } from "./engine-writer.js";
import type { PhasedEvents, StateEvent } from "./events.js";
import type { LogicalStore } from "./logical.js";
import { besuStorageKey, encodeAccountFull } from "../eth/index.js";
import { codeHashOf, codeOf, type World } from "./world.js";

export const MODERN_INSTANCE = ".";
export const MODERN_CFS = ["default", "accounts", "code", "storage"] as const;

interface RocksLevelLike {
  open(opts: Record<string, unknown>): Promise<void>;
  close(): Promise<void>;
  batch(ops: { type: "put"; key: Buffer; value: Buffer; column: unknown }[]): Promise<void>;
  columns: Record<string, unknown>;
}

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

export async function writeModern(
  dir: string,
  world: World,
  events: PhasedEvents,
  log: LogicalStore,
): Promise<void> {
  const require = createRequire(import.meta.url);
  const { RocksLevel } = require("@nxtedition/rocksdb") as {
    RocksLevel: new (dir: string, opts: object) => RocksLevelLike;
  };
  const columns = Object.fromEntries(MODERN_CFS.map((c) => [c, {}]));
  const seen = new Set<string>();
  const cache = new Map<number, Buffer>();
  const puts: Put[] = [];
  for (const phase of ["bulk", "pre-run", "wal"] as const)
    puts.push(...modernPuts(world, events[phase], seen, cache));
  let db = new RocksLevel(dir, { columns, keyEncoding: "buffer", valueEncoding: "buffer" });
  await db.open({ createIfMissing: true, columns });
  for (let i = 0; i < puts.length; i += 1000) {
    const chunk = puts.slice(i, i + 1000);
    await db.batch(
      chunk.map((p) => ({ type: "put" as const, key: p.key, value: p.value, column: db.columns[p.cf] })),
    );
    for (const p of chunk) log.put(MODERN_INSTANCE, p.cf, p.key, p.value, "bulk");
  }
  // the binding has no flush: closing leaves the writes in the WAL, and the reopen's recovery writes
  // them into level-0 tables (format 6, dictionary-compressed)
  await db.close();
  db = new RocksLevel(dir, { columns, keyEncoding: "buffer", valueEncoding: "buffer" });
  await db.open({ columns });
  await db.close();
}
