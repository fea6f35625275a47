/**
 * Nethermind sample: `nethermind_db/mainnet/` with one RocksDB per database, written through the
 * engine addon with option strings shaped like Nethermind's DbConfig:
 *   code  — codeHash → bytecode; block 4096, hash-search index with capped:8 prefixes, no filter, Snappy
 *   flat  — CFs Account (keccak(addr)[0:20] → slim RLP; uncompressed, block 4096), Storage (52-byte keys),
 *           StateNodes, StorageNodes (path-keyed nodes); ribbon 10, LZ4, block 16000, restart interval 4,
 *           data-block hash index 0.7
 *   state — hash-keyed trie nodes; Snappy, two-level index with partitioned bloom 10 and
 *           optimize_filters_for_hits=true: the last level carries no filter, the levels above do
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { openDb } from "../engine/index.js";
import { encodeAccountSlim, nethermindAccountKey, nethermindStorageKey } from "../eth/index.js";
import {
  flushAndCompactAll,
  levelLayout,
  waitForCompactions,
  writePuts,
  type CfSpec,
  type Put,
} from "./engine-writer.js";
import type { PhasedEvents, StateEvent } from "./events.js";
import type { LogicalStore } from "./logical.js";
import { Prng } from "./prng.js";
import { branchNode, hashKeyed, leafNode } from "./trie.js";
import type { WrittenStore } from "./besu.js";
import { codeHashOf, codeOf, type World } from "./world.js";

const FLAT_TABLE = (blockSize: number) =>
  `block_based_table_factory={format_version=5;block_size=${blockSize};filter_policy=ribbonfilter:10;whole_key_filtering=true;index_type=kBinarySearch;block_restart_interval=4;data_block_index_type=kDataBlockBinaryAndHash;data_block_hash_table_util_ratio=0.7;cache_index_and_filter_blocks=true}`;

export const NETHERMIND_CODE_OPTIONS =
  "compression=kSnappyCompression;prefix_extractor=rocksdb.CappedPrefix.8;level_compaction_dynamic_level_bytes=true;block_based_table_factory={format_version=5;block_size=4096;index_type=kHashSearch;cache_index_and_filter_blocks=true}";
export const NETHERMIND_FLAT_OPTIONS = `compression=kLZ4Compression;level_compaction_dynamic_level_bytes=true;${FLAT_TABLE(16000)}`;
export const NETHERMIND_FLAT_ACCOUNT_OPTIONS = `compression=kNoCompression;level_compaction_dynamic_level_bytes=true;${FLAT_TABLE(4096)}`;
/** Small memtables and level targets so a few MB spread over more than one level. */
export const NETHERMIND_STATE_OPTIONS =
  "compression=kSnappyCompression;optimize_filters_for_hits=true;level_compaction_dynamic_level_bytes=true;write_buffer_size=262144;target_file_size_base=262144;max_bytes_for_level_base=524288;level0_file_num_compaction_trigger=4;block_based_table_factory={format_version=5;block_size=16000;index_type=kTwoLevelIndexSearch;partition_filters=true;metadata_block_size=4096;filter_policy=bloomfilter:10:false;cache_index_and_filter_blocks=true}";
const DB_OPTIONS = "max_open_files=-1";

export const NETHERMIND_INSTANCES: Record<string, CfSpec[]> = {
  "nethermind_db/mainnet/code": [
    { label: "default", name: Buffer.from("default"), options: NETHERMIND_CODE_OPTIONS },
  ],
  "nethermind_db/mainnet/flat": [
    { label: "default", name: Buffer.from("default"), options: NETHERMIND_FLAT_OPTIONS },
    { label: "Account", name: Buffer.from("Account"), options: NETHERMIND_FLAT_ACCOUNT_OPTIONS },
    { label: "Storage", name: Buffer.from("Storage"), options: NETHERMIND_FLAT_OPTIONS },
    { label: "StateNodes", name: Buffer.from("StateNodes"), options: NETHERMIND_FLAT_OPTIONS },
    { label: "StorageNodes", name: Buffer.from("StorageNodes"), options: NETHERMIND_FLAT_OPTIONS },
  ],
  "nethermind_db/mainnet/state": [
    { label: "default", name: Buffer.from("default"), options: NETHERMIND_STATE_OPTIONS },
  ],
};

/** Packed path key for a flat trie node: up to 8 bytes of nibbles (two per byte) ‖ nibble count. */
function packedPath(path: Buffer): Buffer {
  const out = Buffer.alloc(9);
  for (let i = 0; i < Math.min(path.length, 16); i++)
    out[i >> 1]! |= (path[i]! & 0x0f) << (i % 2 === 0 ? 4 : 0);
  out[8] = path.length;
  return out;
}

function flatAndCodePuts(
  world: World,
  events: StateEvent[],
  codeSeen: Set<string>,
  cache: Map<number, Buffer>,
): { flat: Put[]; code: Put[] } {
  const flat: Put[] = [];
  const code: Put[] = [];
  for (const e of events) {
    switch (e.t) {
      case "account": {
        const codeHash = codeHashOf(world, e.acc, "shared", cache);
        flat.push({
          cf: "Account",
          key: nethermindAccountKey(e.acc.hash),
          value: Buffer.from(encodeAccountSlim({ ...e.state, codeHash })),
        });
        break;
      }
      case "code": {
        const hash = codeHashOf(world, e.acc, "shared", cache);
        if (!codeSeen.has(hash.toString("hex"))) {
          codeSeen.add(hash.toString("hex"));
          code.push({ cf: "default", key: hash, value: codeOf(world, e.acc, "shared")! });
        }
        break;
      }
      case "slot":
        flat.push({ cf: "Storage", key: nethermindStorageKey(e.acc.hash, e.slotHash), value: e.value });
        break;
      case "accountTrieNode":
        flat.push({ cf: "StateNodes", key: packedPath(e.path), value: e.node });
        break;
      case "storageTrieNode":
        flat.push({
          cf: "StorageNodes",
          key: Buffer.concat([e.acc.hash.subarray(0, 20), packedPath(e.path)]),
          value: e.node,
        });
        break;
      default:
        break;
    }
  }
  return { flat, code };
}

/** Hash-scheme state nodes for the Snappy instance: about 1.5 per account, in `rounds` batches. */
function stateNodeRounds(world: World, rounds: number): Put[][] {
  const rng = Prng.derive(world.params.seed, "nethermind-state");
  const total = Math.round(world.accounts.length * 1.5);
  const out: Put[][] = [];
  for (let r = 0; r < rounds; r++) {
    const puts: Put[] = [];
    const n = r === 0 ? Math.round(total * 0.8) : Math.round((total * 0.2) / (rounds - 1));
    for (let i = 0; i < n; i++) {
      const node = rng.chance(0.35)
        ? branchNode(rng, rng.chance(0.5) ? 0.9 : 0.4)
        : leafNode(rng, rng.bytes(rng.int(40, 100)));
      const { key } = hashKeyed(node);
      puts.push({ cf: "default", key, value: node });
    }
    out.push(puts);
  }
  return out;
}

export function writeNethermind(
  root: string,
  world: World,
  events: PhasedEvents,
  log: LogicalStore,
): WrittenStore {
  const seen = new Set<string>();
  const cache = new Map<number, Buffer>();
  // a node keeps only the final state in flat and code: all phases, newest last
  const flat: Put[] = [];
  const code: Put[] = [];
  for (const phase of ["bulk", "pre-run", "wal"] as const) {
    const p = flatAndCodePuts(world, events[phase], seen, cache);
    flat.push(...p.flat);
    code.push(...p.code);
  }
  const levels: WrittenStore["levels"] = {};
  const cfOptions: WrittenStore["cfOptions"] = {};
  const dbOptions: WrittenStore["dbOptions"] = {};
  const notes: string[] = [];
  for (const [inst, cfs] of Object.entries(NETHERMIND_INSTANCES)) {
    const dir = join(root, inst);
    mkdirSync(dir, { recursive: true });
    const db = openDb(dir, {
      createIfMissing: true,
      dbOptions: DB_OPTIONS,
      columnFamilies: cfs.map((c) => ({ name: c.name, options: c.options })),
    });
    try {
      if (inst.endsWith("/code")) {
        writePuts(db, cfs, code, log, inst, "bulk");
        flushAndCompactAll(db, cfs);
      } else if (inst.endsWith("/flat")) {
        writePuts(db, cfs, flat, log, inst, "bulk");
        flushAndCompactAll(db, cfs);
      } else {
        // state: a bulk load compacted to the bottom (no filters there: optimize_filters_for_hits), then
        // later rounds flushed one by one so that automatic compaction builds the upper levels (with filters)
        const rounds = stateNodeRounds(world, 6);
        writePuts(db, cfs, rounds[0]!, log, inst, "bulk");
        flushAndCompactAll(db, cfs);
        for (const r of rounds.slice(1)) {
          writePuts(db, cfs, r, log, inst, "pre-run");
          db.flush();
          waitForCompactions(db, cfs[0]!.name);
        }
      }
      levels[inst] = levelLayout(db, cfs);
      notes.push(...db.notes.map((n) => `${inst}: ${n}`));
    } finally {
      db.close();
    }
    cfOptions[inst] = Object.fromEntries(cfs.map((c) => [c.label, c.options]));
    dbOptions[inst] = DB_OPTIONS;
  }
  return { levels, engineNotes: notes, cfOptions, dbOptions };
}
