/**
 * Besu (Bonsai) sample datadirs: `DATABASE_METADATA.json` + `database/`, one RocksDB with byte-named
 * column families, written through the engine addon with Besu's per-CF options.
 *
 * besu-snapshot: a synced node after a benchmark pre-run — bulk state compacted to the bottom level,
 *   the pre-run's rewrites flushed into small files above it, the last writes only in the WAL, shared
 *   bytecodes (many contracts per distinct code), bloom filters on every CF.
 * besu-generated: the same final state written by a state generator — no filters on the state CFs
 *   (06, 07, 08, 09), everything in the bottom level, no WAL left, every contract its own bytecode.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openDb } from "../engine/index.js";
import { bigintToBytes, besuStorageKey, encodeAccountFull, keccak256, rlpEncode } from "../eth/index.js";
import { flushAndCompactAll, levelLayout, writePuts, type CfSpec, type Put } from "./engine-writer.js";
import type { PhasedEvents, StateEvent } from "./events.js";
import { byteCfLabel, type LogicalStore } from "./logical.js";
import { codeHashOf, codeOf, type CodePopulation, type World } from "./world.js";

/** Besu's table options (RocksDBColumnarKeyValueStorage). Besu also sets partition_filters=true with the
 * default binary-search index, which RocksDB ignores and Debian's assertion-enabled 7.8.3 aborts on, so
 * the samples are written with partition_filters=false (same files). */
const BESU_TABLE_BLOOM =
  "block_based_table_factory={format_version=5;block_size=32768;filter_policy=bloomfilter:10:false;partition_filters=false;cache_index_and_filter_blocks=false;whole_key_filtering=true}";
const GENERATOR_TABLE_NO_FILTER =
  "block_based_table_factory={format_version=5;block_size=32768;cache_index_and_filter_blocks=false;whole_key_filtering=true}";
const LZ4 = "compression=kLZ4Compression;level_compaction_dynamic_level_bytes=true";
const BLOBS = "enable_blob_files=true;min_blob_size=100;blob_compression_type=kLZ4Compression";

/** Besu's DB options. 7.8.3 sanitises recycle_log_file_num to 0 under kPointInTimeRecovery (OPTIONS shows 0). */
export const BESU_DB_OPTIONS_SNAPSHOT =
  "max_open_files=1024;max_total_wal_size=1073741824;recycle_log_file_num=16;avoid_flush_during_shutdown=true";
export const BESU_DB_OPTIONS_GENERATED = "max_open_files=1024";

const STATE_CFS = [0x06, 0x07, 0x08, 0x09];
const BLOB_CFS = [0x01, 0x0a];
const ALL_CFS = [0x01, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b];

export function besuCfSpecs(variant: "snapshot" | "generated"): CfSpec[] {
  const specs: CfSpec[] = [
    { label: "default", name: Buffer.from("default"), options: `${LZ4};${BESU_TABLE_BLOOM}` },
  ];
  for (const b of ALL_CFS) {
    const table =
      variant === "generated" && STATE_CFS.includes(b) ? GENERATOR_TABLE_NO_FILTER : BESU_TABLE_BLOOM;
    const blob = BLOB_CFS.includes(b) ? `;${BLOBS}` : "";
    specs.push({ label: byteCfLabel(b), name: Buffer.from([b]), options: `${LZ4}${blob};${table}` });
  }
  return specs;
}

function u256(n: number): Buffer {
  const b = Buffer.alloc(32);
  b.writeUIntBE(n, 26, 6);
  return b;
}

/** Map events to Besu puts. `codeSeen` dedups code writes within one store. */
export function besuPuts(
  world: World,
  events: StateEvent[],
  population: CodePopulation,
  codeSeen: Set<string>,
  hashCache: Map<number, Buffer>,
): Put[] {
  const puts: Put[] = [];
  const p = (cf: number, key: Buffer, value: Buffer) => puts.push({ cf: byteCfLabel(cf), key, value });
  for (const e of events) {
    switch (e.t) {
      case "account": {
        const codeHash = codeHashOf(world, e.acc, population, hashCache);
        p(0x06, e.acc.hash, Buffer.from(encodeAccountFull({ ...e.state, codeHash })));
        break;
      }
      case "code": {
        const hash = codeHashOf(world, e.acc, population, hashCache);
        if (codeSeen.has(hash.toString("hex"))) break;
        codeSeen.add(hash.toString("hex"));
        p(0x07, hash, codeOf(world, e.acc, population)!);
        break;
      }
      case "slot":
        p(0x08, besuStorageKey(e.acc.hash, e.slotHash), e.value);
        break;
      case "accountTrieNode":
        p(0x09, e.path, e.node);
        break;
      case "storageTrieNode":
        p(0x09, Buffer.concat([e.acc.hash, e.path]), e.node);
        break;
      case "block": {
        const b = e.block;
        p(0x01, Buffer.concat([Buffer.of(0x02), b.hash]), b.header);
        p(0x01, Buffer.concat([Buffer.of(0x03), b.hash]), b.body);
        p(0x01, Buffer.concat([Buffer.of(0x04), b.hash]), b.receipts);
        p(0x01, Buffer.concat([Buffer.of(0x05), u256(b.number)]), b.hash);
        p(0x01, Buffer.concat([Buffer.of(0x06), b.hash]), u256(58_750_000));
        b.txHashes.forEach((tx, i) =>
          p(
            0x01,
            Buffer.concat([Buffer.of(0x07), tx]),
            Buffer.from(rlpEncode([b.hash, bigintToBytes(BigInt(i))])),
          ),
        );
        p(0x0a, b.hash, b.trieLog);
        break;
      }
      case "head": {
        const b = e.block;
        p(0x09, Buffer.from("worldRoot"), keccak256(Buffer.concat([b.hash, Buffer.from("root")])));
        p(0x09, Buffer.from("worldBlockHash"), b.hash);
        p(0x09, Buffer.from("worldBlockNumber"), Buffer.from(bigintToBytes(BigInt(b.number))));
        p(0x0b, Buffer.from("chainHeadHash"), b.hash);
        p(0x0b, Buffer.from("forkHeads"), Buffer.from(rlpEncode([b.hash])));
        p(0x0b, Buffer.from("finalizedBlockHash"), e.finalized.hash);
        p(0x0b, Buffer.from("safeBlockHash"), e.finalized.hash);
        break;
      }
    }
  }
  return puts;
}

export interface WrittenStore {
  /** files per level per CF after writing, from the engine */
  levels: Record<string, Record<string, number[]>>;
  /** option adjustments the engine reported at open */
  engineNotes: string[];
  cfOptions: Record<string, Record<string, string>>;
  dbOptions: Record<string, string>;
}

/** Write a Besu sample into `root` (already created and marked). */
export function writeBesu(
  root: string,
  variant: "snapshot" | "generated",
  world: World,
  events: PhasedEvents,
  log: LogicalStore,
): WrittenStore {
  writeFileSync(
    join(root, "DATABASE_METADATA.json"),
    JSON.stringify({ v2: { format: "BONSAI", version: 2 } }) + "\n",
  );
  const dir = join(root, "database");
  mkdirSync(dir);
  const cfs = besuCfSpecs(variant);
  const dbOptions = variant === "snapshot" ? BESU_DB_OPTIONS_SNAPSHOT : BESU_DB_OPTIONS_GENERATED;
  const db = openDb(dir, {
    createIfMissing: true,
    dbOptions,
    columnFamilies: cfs.map((c) => ({ name: c.name, options: c.options })),
  });
  const population: CodePopulation = variant === "snapshot" ? "shared" : "distinct";
  const seen = new Set<string>();
  const cache = new Map<number, Buffer>();
  const inst = "database";
  let levels: Record<string, number[]>;
  let notes: string[] = [];
  try {
    if (variant === "snapshot") {
      writePuts(db, cfs, besuPuts(world, events.bulk, population, seen, cache), log, inst, "bulk");
      flushAndCompactAll(db, cfs);
      writePuts(db, cfs, besuPuts(world, events["pre-run"], population, seen, cache), log, inst, "pre-run");
      db.flush();
      // the last writes as a node makes them: small batches (one WAL record each), never flushed
      writePuts(db, cfs, besuPuts(world, events.wal, population, seen, cache), log, inst, "wal", 25);
    } else {
      // a generator writes the final state once: all three phases' newest values, then compacts
      for (const phase of ["bulk", "pre-run", "wal"] as const)
        writePuts(db, cfs, besuPuts(world, events[phase], population, seen, cache), log, inst, "bulk");
      flushAndCompactAll(db, cfs);
    }
    levels = levelLayout(db, cfs);
    notes = db.notes;
  } finally {
    db.close();
  }
  return {
    levels: { [inst]: levels },
    engineNotes: notes,
    cfOptions: { [inst]: Object.fromEntries(cfs.map((c) => [c.label, c.options])) },
    dbOptions: { [inst]: dbOptions },
  };
}
