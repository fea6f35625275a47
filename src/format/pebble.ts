/**
 * What Pebble (github.com/cockroachdb/pebble) changes in a table, as read by the block-based reader
 * (table.ts). Layouts from Pebble's sstable/format.go, table.go, block/kv.go, valblk/ and
 * internal/base/internal.go; see table_format.md "Pebble tables".
 *
 * Pebble writes three table families, told apart by the footer's magic and version:
 *   (LevelDB)      LevelDB magic, LevelDB layout                         -> read as a LevelDB table
 *   (RocksDB,v2)   RocksDB block-based magic, format_version 2           -> read as a RocksDB table
 *   (Pebble,vN)    magic bytes f0 9f aa b3 f0 9f aa b3, version N in the footer:
 *     v1           RocksDB v2 layout (53-byte footer, row blocks); index values are block handles followed
 *                  by encoded block properties (BlockHandleWithProperties)
 *     v2           + range-key block "pebble.range_key"
 *     v3           + value prefixes: every SET value in a data block starts with one byte (0x00 in place,
 *                  0x80 a handle into a value block: varint value length, block number, offset), value
 *                  blocks indexed by the meta block "pebble.value_index"
 *     v4           + DELSIZED, and the "obsolete" bit (64) or-ed into a key's kind inside a table
 *     v5           columnar data, index and keyspan blocks
 *     v6           + footer checksum, blob value handles, columnar metaindex (longer footer)
 *     v7, v8       + columnar compressed properties, footer attributes; tiering metadata
 * Row formats (v1-v4) are read here; columnar formats (v5+) by the modules of pebble/ (columnar.ts).
 */
import { cursor, getVarint32 } from "../util/coding.js";
import { ValueType } from "../base/internal_key.js";
import type { PebbleValueBlocks } from "./pebble_value_blocks.js";

/** Bytes f0 9f aa b3 f0 9f aa b3 (UTF-8 of U+1FAB3, a cockroach, twice), read as a little-endian uint64. */
export const PEBBLE_MAGIC = 0xb3aa9ff0b3aa9ff0n;
/** Newest Pebble table format version with row blocks. */
export const PEBBLE_LAST_ROW_FORMAT = 4;
/** Newest Pebble table format version known (sstable/format.go TableFormatPebblev8). */
export const PEBBLE_LAST_KNOWN_FORMAT = 8;
/** First version whose SET values carry a one-byte value prefix (TableFormatPebblev3). */
const PEBBLE_VALUE_PREFIX_FORMAT = 3;

/** Pebble's name of a footer's (magic, version) tuple, e.g. "(Pebble,v3)". */
export function pebbleFormatName(version: number): string {
  return `(Pebble,v${version})`;
}

/** Meta blocks that only Pebble writes (sstable/table.go). */
export const PEBBLE_RANGE_KEY_BLOCK = "pebble.range_key";
/** Pebble names its range-deletion block "rocksdb.range_del2"; RocksDB's is "rocksdb.range_del". */
export const RANGE_DEL_BLOCKS = ["rocksdb.range_del", "rocksdb.range_del2"] as const;

/** Pebble's internal key kinds (internal/base/internal.go); not all match RocksDB's value types. */
export const PebbleKind = {
  Delete: 0,
  Set: 1,
  Merge: 2,
  LogData: 3,
  SingleDelete: 7,
  RangeDelete: 15,
  Separator: 17,
  SetWithDelete: 18,
  RangeKeyDelete: 19,
  RangeKeyUnset: 20,
  RangeKeySet: 21,
  IngestSST: 22,
  DeleteSized: 23,
  Excise: 24,
} as const;

/** Or-ed into a kind inside (Pebble,v4)+ tables: the entry is shadowed within its table. */
export const PEBBLE_OBSOLETE_BIT = 64;

const KIND_NAMES: Record<number, string> = {
  0: "DEL",
  1: "SET",
  2: "MERGE",
  3: "LOGDATA",
  7: "SINGLEDEL",
  15: "RANGEDEL",
  17: "SEPARATOR",
  18: "SETWITHDEL",
  19: "RANGEKEYDEL",
  20: "RANGEKEYUNSET",
  21: "RANGEKEYSET",
  22: "INGESTSST",
  23: "DELSIZED",
  24: "EXCISE",
};

/** Kind without the obsolete bit. */
export function pebbleKind(trailerKind: number): number {
  return trailerKind & ~PEBBLE_OBSOLETE_BIT;
}

export function pebbleKindName(trailerKind: number): string {
  const k = pebbleKind(trailerKind);
  return KIND_NAMES[k] ?? `kind ${k}`;
}

/**
 * How a Pebble row table's entries differ from RocksDB's: kinds carry an "obsolete" bit and Pebble-only
 * kinds, and from (Pebble,v3) SET values start with a value prefix byte.
 */
export interface PebbleEntries {
  valuePrefix: boolean;
  /** The table's value blocks, when its metaindex lists a value index: values are resolved through it. */
  valueBlocks?: PebbleValueBlocks;
  /** The store's blob files for this table, when the caller attached them (SstTable.attachBlobValues). */
  blobValues?: PebbleBlobValues;
}

/**
 * A Pebble kind as the RocksDB value type every reader of entries understands: the obsolete bit dropped,
 * SETWITHDEL read as a value, DELSIZED as a deletion. Idempotent, which matters because a key shares its
 * trailer bytes with the previous key in a block (a cursor rewrites them in its own key buffer).
 */
export function pebbleAsValueType(trailerKind: number): number {
  const k = pebbleKind(trailerKind);
  if (k === PebbleKind.SetWithDelete) return ValueType.Value;
  if (k === PebbleKind.DeleteSized) return ValueType.Deletion;
  return k;
}

/** Whether the SET values of a table with this footer carry Pebble's value prefix byte. */
export function hasValuePrefix(pebbleFormatVersion: number): boolean {
  return pebbleFormatVersion >= PEBBLE_VALUE_PREFIX_FORMAT;
}

/** Value prefix kinds (block/kv.go ValuePrefix): the prefix byte's top two bits. */
export const VALUE_KIND_MASK = 0xc0;
export const VALUE_KIND_VALUE_BLOCK_HANDLE = 0x80;
export const VALUE_KIND_BLOB_HANDLE = 0x40;

/**
 * The value length a handle declares, its varints at data[start, end) after a prefix byte of `kind`:
 * a value-block handle starts with it (valblk.DecodeLenFromHandle: length, block number, offset in
 * block), a blob handle with the reference index into the table's blob references and then it
 * (blob.DecodeInlineHandlePreface: reference, length, block, value id). Undefined for another kind.
 */
export function handleValueLength(
  data: Uint8Array,
  start: number,
  end: number,
  kind: number,
): number | undefined {
  const c = cursor(data, start, end);
  if (kind === VALUE_KIND_VALUE_BLOCK_HANDLE) return getVarint32(c);
  if (kind === VALUE_KIND_BLOB_HANDLE) {
    getVarint32(c); // reference index
    return getVarint32(c);
  }
  return undefined;
}

export interface PrefixedValue {
  /** Where the value lives. */
  where: "in-place" | "value-block" | "blob-file";
  /** Length of the user value (for handles: the length the handle declares). */
  length: number;
  /** In place: offset of the value bytes after the prefix; for handles: of the handle's bytes. */
  offset: number;
}

/**
 * Decode a prefixed SET value stored at data[offset, offset + length). Throws on an empty value, an
 * unknown prefix, or a handle whose varints are malformed (handleValueLength).
 */
export function decodePrefixedValue(data: Uint8Array, offset: number, length: number): PrefixedValue {
  if (length < 1) throw new Error("value without its Pebble value prefix");
  const prefix = data[offset]!;
  const kind = prefix & VALUE_KIND_MASK;
  if (kind === 0) return { where: "in-place", length: length - 1, offset: offset + 1 };
  const declared = handleValueLength(data, offset + 1, offset + length, kind);
  if (declared === undefined) throw new Error(`unknown Pebble value prefix 0x${prefix.toString(16)}`);
  return {
    where: kind === VALUE_KIND_VALUE_BLOCK_HANDLE ? "value-block" : "blob-file",
    length: declared,
    offset: offset + 1,
  };
}

/** A value's bytes: data[offset, offset + length). */
export interface ResolvedValue {
  data: Buffer;
  offset: number;
  length: number;
}

/** Where a table's blob handles point: supplied by the store (its MANIFEST names the blob files). */
export interface PebbleBlobValues {
  /** The value the blob handle at data[start, end) (after its prefix byte) names. */
  resolve(data: Uint8Array, start: number, end: number): ResolvedValue;
}

/** A blob handle after its prefix byte (blob.InlineHandle): reference index, length, block, value id. */
export interface BlobHandle {
  /** Index into the table's blob references (its MANIFEST entry). */
  reference: number;
  length: number;
  block: number;
  valueId: number;
}

export function decodeBlobHandle(data: Uint8Array, start: number, end: number): BlobHandle {
  const c = cursor(data, start, end);
  return {
    reference: getVarint32(c),
    length: getVarint32(c),
    block: getVarint32(c),
    valueId: getVarint32(c),
  };
}

/** Pebble's numeric properties (sstable/properties.go, uvarint-encoded), beyond RocksDB's. */
export const PEBBLE_NUMERIC_PROPERTIES = [
  "pebble.raw.point-tombstone.key.size",
  "pebble.raw.point-tombstone.value.size",
  "pebble.num.deletions.sized",
  "pebble.num.range-key-dels",
  "pebble.num.range-key-sets",
  "pebble.num.range-key-unsets",
  "pebble.value-blocks.size",
  "pebble.num.tombstone-dense-blocks",
  "pebble.num.value-blocks",
  "pebble.num.values.in.value-blocks",
  "pebble.num.values.in.blob-files",
  "pebble.raw.range-key.key.size",
  "pebble.raw.range-key.value.size",
  "pebble.num.snapshot-pinned-keys",
  "pebble.raw.snapshot-pinned-keys.size",
  "pebble.raw.snapshot-pinned-values.size",
  "pebble.value-separation.min-size",
  // older Pebble names of the range-key counts
  "rocksdb.num.range-key-dels",
  "rocksdb.num.range-key-sets",
  "rocksdb.num.range-key-unsets",
];

/** Range keys of a table by kind (entries of its "pebble.range_key" block). */
export interface RangeKeyCounts {
  sets: number;
  unsets: number;
  deletes: number;
}
