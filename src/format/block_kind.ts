/**
 * What a block of a table is (table_format.md). The value is the name errors and statistics use, so a
 * corruption message reads "index partition block @ 1234: ...".
 */
import type { IndexTypeName } from "../base/index_type.js";
import { HASH_INDEX_METADATA, HASH_INDEX_PREFIXES } from "./hash_index.js";

export enum BlockKind {
  Data = "data",
  Index = "index",
  /** The top level of a two-level (partitioned) index: handles of index partitions. */
  TopLevelIndex = "top-level index",
  IndexPartition = "index partition",
  Metaindex = "metaindex",
  Properties = "properties",
  /** A full filter, or a legacy block-based filter. */
  Filter = "filter",
  /** The index of a partitioned filter: handles of filter partitions. */
  FilterPartitionIndex = "filter partition index",
  FilterPartition = "filter partition",
  RangeDeletion = "range deletion",
  /** Pebble: range keys (RANGEKEYSET / UNSET / DEL). */
  RangeKey = "range-key",
  /** Pebble: the index of a table's value blocks ("pebble.value_index"). */
  PebbleValueIndex = "value index",
  /** Pebble: a block of values that data blocks point to with value handles. */
  PebbleValueBlock = "value",
  CompressionDictionary = "compression dictionary",
  HashIndexMeta = "hash index meta block",
  /** A meta block this reader only checks (its name says what it is). */
  Meta = "meta block",
}

/** Metaindex names of the meta blocks every reader understands (block-based and LevelDB tables). */
export const META_PROPERTIES = "rocksdb.properties";
/** The properties block's name before RocksDB 3.x. */
export const META_PROPERTIES_OLD = "rocksdb.stats";
export const META_INDEX = "rocksdb.index";
export const META_COMPRESSION_DICT = "rocksdb.compression_dict";
export const META_RANGE_DEL = "rocksdb.range_del";
/** Pebble's name for the range-deletion block (same layout). */
export const META_RANGE_DEL2 = "rocksdb.range_del2";
/** Pebble's range-key block (pebble.ts). */
export const META_PEBBLE_RANGE_KEY = "pebble.range_key";
/** Pebble's value-block index (pebble_value_blocks.ts). */
export const META_PEBBLE_VALUE_INDEX = "pebble.value_index";
export const FULL_FILTER_PREFIX = "fullfilter.";
export const PARTITIONED_FILTER_PREFIX = "partitionedfilter.";
export const BLOCK_BASED_FILTER_PREFIX = "filter.";

/** The kind of a meta block from its metaindex name (verification reads them all). */
export function metaBlockKind(name: string): BlockKind {
  if (name === META_PROPERTIES || name === META_PROPERTIES_OLD) return BlockKind.Properties;
  if (name === META_INDEX) return BlockKind.Index;
  if (name === META_COMPRESSION_DICT) return BlockKind.CompressionDictionary;
  if (name === META_RANGE_DEL || name === META_RANGE_DEL2) return BlockKind.RangeDeletion;
  if (name === META_PEBBLE_RANGE_KEY) return BlockKind.RangeKey;
  if (name === META_PEBBLE_VALUE_INDEX) return BlockKind.PebbleValueIndex;
  if (name.startsWith(PARTITIONED_FILTER_PREFIX)) return BlockKind.FilterPartitionIndex;
  if (name.startsWith(FULL_FILTER_PREFIX) || name.startsWith(BLOCK_BASED_FILTER_PREFIX))
    return BlockKind.Filter;
  if (name === HASH_INDEX_PREFIXES || name === HASH_INDEX_METADATA) return BlockKind.HashIndexMeta;
  return BlockKind.Meta;
}

/** The kind of a table's top index block: the top level of a two-level index, or the whole index. */
export function topIndexBlockKind(indexType: IndexTypeName): BlockKind {
  return indexType === "two-level" ? BlockKind.TopLevelIndex : BlockKind.Index;
}
