/**
 * Pebble's OPTIONS (parsed by pebble_store.ts) as the typed model RocksDB's OPTIONS give
 * (options_file.ts), so the knob analysis, `check` and the layout flags read one model. Pebble's
 * options.go writes, and what each becomes:
 *
 *   [Options] comparer, merger                       comparator, merge operator
 *             mem_table_size, mem_table_stop_writes_threshold   write_buffer_size, max_write_buffer_number
 *             l0_compaction_threshold               level0_file_num_compaction_trigger
 *             l0_stop_writes_threshold              level0_stop_writes_trigger, and the slowdown trigger:
 *                                                   Pebble has no slowdown step, writes stall at this count
 *                                                   (of L0 sublevels)
 *             lbase_max_bytes                       max_bytes_for_level_base
 *             max_open_files, wal_dir               the DB options of the same names
 *   [Level "N"] (every level, 0-6)
 *             compression                           compression (L0's) and, when levels differ,
                                                   compression_per_level; a name
 *                                                   of Pebble's compression profiles, case-insensitive:
 *                                                   NoCompression, Snappy (= "Default"), ZSTD, MinLZ
 *                                                   (= "Fastest"); mixed profiles (Fast, Balanced, Good)
 *                                                   choose per block and configure no one compression
 *             filter_policy                         filter policy: "none", or a policy name such as
 *                                                   geth's "rocksdb.BuiltinBloomFilter" (Pebble's
 *                                                   OPTIONS do not record bits per key); filter_type
 *                                                   "table" is a full (not partitioned) filter
 *             block_size, block_restart_interval, index_block_size, target_file_size (L0's: the base)
 *   [Value Separation] enabled, minimum_size        enable_blob_files, min_blob_size
 * Single-valued knobs take the value of level 0 (raw carries every level). Pebble has seven levels.
 */
import {
  parseFilterPolicy,
  type CfOptionsModel,
  type FilterPolicyInfo,
  type OptionsFileModel,
} from "./options_file.js";
import type { PebbleOptions } from "./pebble_store.js";
import { PEBBLE_NUM_LEVELS } from "./pebble_version_edit.js";

/** "default" as hex: Pebble's one keyspace plays RocksDB's default column family. */
const DEFAULT_CF_HEX = Buffer.from("default").toString("hex");

const COMPRESSION: Record<string, string> = {
  nocompression: "NoCompression",
  snappy: "Snappy",
  default: "Snappy",
  zstd: "ZSTD",
  minlz: "MinLZ",
  fastest: "MinLZ",
};

/** The compression a Pebble profile name writes every data block with; undefined for mixed profiles. */
export function pebbleCompression(name: string | undefined): string | undefined {
  return name === undefined ? undefined : COMPRESSION[name.trim().toLowerCase()];
}

/** A level's filter_policy: "none" (or empty) is no filter; a named policy is read as RocksDB's. */
export function pebbleFilterPolicy(raw: string | undefined): FilterPolicyInfo {
  const r = (raw ?? "none").trim();
  if (r === "" || r === "none" || r === "nullptr") return { raw: r === "" ? "none" : r, kind: "none" };
  return parseFilterPolicy(r);
}

function int(v: string | undefined): number | undefined {
  if (v === undefined || !/^\d+$/.test(v.trim())) return undefined;
  const n = Number(v);
  return Number.isSafeInteger(n) ? n : undefined;
}

function bool(v: string | undefined): boolean | undefined {
  return v === "true" ? true : v === "false" ? false : undefined;
}

/** The default column family's options from Pebble's [Options] and [Level "N"] sections. */
function cfOptions(o: PebbleOptions): CfOptionsModel {
  const opt = o.options;
  const l0 = o.levels[0] ?? {};
  const levels = Array.from({ length: PEBBLE_NUM_LEVELS }, (_, i) => o.levels[i]);
  const perLevel = levels.map((l) => l?.["compression"]);
  const vs = o.sections["Value Separation"];
  const stop = int(opt["l0_stop_writes_threshold"]);
  const raw: Record<string, string> = { ...opt };
  levels.forEach((l, i) => {
    for (const [k, v] of Object.entries(l ?? {})) raw[`Level "${i}".${k}`] = v;
  });
  return {
    nameHex: DEFAULT_CF_HEX,
    name: "default",
    raw,
    compression: pebbleCompression(l0["compression"]),
    // as RocksDB's compression_per_level: set only when the levels differ
    compressionPerLevel:
      perLevel.every((c) => c !== undefined) && new Set(perLevel).size > 1
        ? perLevel.map((c) => pebbleCompression(c) ?? c!)
        : undefined,
    numLevels: PEBBLE_NUM_LEVELS,
    writeBufferSize: int(opt["mem_table_size"]),
    maxWriteBufferNumber: int(opt["mem_table_stop_writes_threshold"]),
    targetFileSizeBase: int(l0["target_file_size"]),
    maxBytesForLevelBase: int(opt["lbase_max_bytes"]),
    comparator: opt["comparer"],
    mergeOperator: opt["merger"],
    level0FileNumCompactionTrigger: int(opt["l0_compaction_threshold"]),
    level0SlowdownWritesTrigger: stop,
    level0StopWritesTrigger: stop,
    blob: {
      enableBlobFiles: vs ? bool(vs["enabled"]) : undefined,
      minBlobSize: vs ? int(vs["minimum_size"]) : undefined,
    },
    table: {
      factory: "pebble",
      raw: l0,
      filterPolicy: pebbleFilterPolicy(l0["filter_policy"]),
      blockSize: int(l0["block_size"]),
      partitionFilters: l0["filter_type"] === undefined ? undefined : false,
      blockRestartInterval: int(l0["block_restart_interval"]),
      metadataBlockSize: int(l0["index_block_size"]),
    },
  };
}

/** Pebble's OPTIONS as an OptionsFileModel: one column family, "default"; no RocksDB version. */
export function pebbleOptionsModel(o: PebbleOptions, others: string[] = []): OptionsFileModel {
  const walDir = o.options["wal_dir"];
  return {
    file: o.file,
    path: o.path,
    optionsFileVersion: o.pebbleVersion,
    db: {
      raw: o.options,
      maxOpenFiles: int(o.options["max_open_files"]),
      walDir: walDir === undefined || walDir === "" ? undefined : walDir,
    },
    columnFamilies: [cfOptions(o)],
    others,
  };
}
