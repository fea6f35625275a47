/**
 * Legacy geth sample: `geth/chaindata`, a LevelDB store written with classic-level (LevelDB 1.20,
 * Snappy, bloom 10, 4 KiB blocks — goleveldb's defaults), keyed with geth's rawdb prefixes:
 *   "a"‖accHash → slim account RLP     "o"‖accHash‖slotHash → slot RLP     "c"‖codeHash → code
 *   32-byte keccak(node) → trie node (hash scheme)
 *   "h"‖num‖hash → header   "h"‖num‖"n" → canonical hash   "H"‖hash → num   "b"‖num‖hash → body
 *   "r"‖num‖hash → receipts   "l"‖txHash → num   "LastBlock", "LastHeader", "LastFast" → head hash
 * History like a node's: bulk load compacted down, the pre-run flushed into a new table on reopen,
 * and the last writes left in the LevelDB log (*.log), unflushed.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { ClassicLevel } from "classic-level";
import {
  bigintToBytes,
  encodeAccountSlim,
  gethAccountKey,
  gethCodeKey,
  gethStorageKey,
} from "../eth/index.js";
import type { Put } from "./engine-writer.js";
import type { PhasedEvents, StateEvent } from "./events.js";
import type { LogicalStore, Phase } from "./logical.js";
import { hashKeyed } from "./trie.js";
import { codeHashOf, codeOf, type World } from "./world.js";

export const GETH_INSTANCE = "geth/chaindata";
const CF = "default";

function num8(n: number): Buffer {
  const b = Buffer.alloc(8);
  b.writeBigUInt64BE(BigInt(n));
  return b;
}

export function gethPuts(
  world: World,
  events: StateEvent[],
  codeSeen: Set<string>,
  cache: Map<number, Buffer>,
): Put[] {
  const puts: Put[] = [];
  const p = (key: Buffer, value: Buffer) => puts.push({ cf: CF, key, value });
  for (const e of events) {
    switch (e.t) {
      case "account":
        p(
          gethAccountKey(e.acc.hash),
          Buffer.from(encodeAccountSlim({ ...e.state, codeHash: codeHashOf(world, e.acc, "shared", cache) })),
        );
        break;
      case "code": {
        const hash = codeHashOf(world, e.acc, "shared", cache);
        if (codeSeen.has(hash.toString("hex"))) break;
        codeSeen.add(hash.toString("hex"));
        p(gethCodeKey(hash), codeOf(world, e.acc, "shared")!);
        break;
      }
      case "slot":
        p(gethStorageKey(e.acc.hash, e.slotHash), e.value);
        break;
      case "accountTrieNode":
      case "storageTrieNode": {
        const { key, node } = hashKeyed(e.node);
        p(key, node);
        break;
      }
      case "block": {
        const b = e.block;
        const n = num8(b.number);
        p(Buffer.concat([Buffer.from("h"), n, b.hash]), b.header);
        p(Buffer.concat([Buffer.from("h"), n, Buffer.from("n")]), b.hash);
        p(Buffer.concat([Buffer.from("H"), b.hash]), n);
        p(Buffer.concat([Buffer.from("b"), n, b.hash]), b.body);
        p(Buffer.concat([Buffer.from("r"), n, b.hash]), b.receipts);
        for (const tx of b.txHashes)
          p(Buffer.concat([Buffer.from("l"), tx]), Buffer.from(bigintToBytes(BigInt(b.number))));
        break;
      }
      case "head":
        for (const k of ["LastBlock", "LastHeader", "LastFast"]) p(Buffer.from(k), e.block.hash);
        break;
    }
  }
  return puts;
}

type Db = ClassicLevel<Buffer, Buffer>;

/** A LevelDB store opened (created when missing) with goleveldb's defaults, as geth keeps chaindata. */
export async function openLevel(dir: string): Promise<Db> {
  const db = new ClassicLevel<Buffer, Buffer>(dir, { keyEncoding: "buffer", valueEncoding: "buffer" });
  await db.open({
    createIfMissing: true,
    compression: true,
    blockSize: 4096,
    writeBufferSize: 4 << 20,
    maxFileSize: 2 << 20,
  });
  return db;
}

async function write(db: Db, puts: Put[], log: LogicalStore, phase: Phase, batchSize = 1000): Promise<void> {
  for (let i = 0; i < puts.length; i += batchSize) {
    const chunk = puts.slice(i, i + batchSize);
    await db.batch(chunk.map((p) => ({ type: "put" as const, key: p.key, value: p.value })));
    for (const p of chunk) log.put(GETH_INSTANCE, p.cf, p.key, p.value, phase);
  }
}

export async function writeGeth(
  root: string,
  world: World,
  events: PhasedEvents,
  log: LogicalStore,
): Promise<void> {
  const dir = join(root, GETH_INSTANCE);
  mkdirSync(dir, { recursive: true });
  const seen = new Set<string>();
  const cache = new Map<number, Buffer>();
  // bulk load, then a full manual compaction pushes it out of level 0
  let db = await openLevel(dir);
  await write(db, gethPuts(world, events.bulk, seen, cache), log, "bulk");
  await db.close();
  db = await openLevel(dir);
  await db.compactRange(Buffer.alloc(0), Buffer.alloc(64, 0xff));
  // pre-run: written, then the reopen's log recovery flushes it into a new table above the bulk data
  await write(db, gethPuts(world, events["pre-run"], seen, cache), log, "pre-run");
  await db.close();
  db = await openLevel(dir);
  // last writes: LevelDB never flushes the memtable on close, so they stay in the log
  await write(db, gethPuts(world, events.wal, seen, cache), log, "wal", 25);
  await db.close();
}
