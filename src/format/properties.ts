/**
 * The properties meta block "rocksdb.properties" (table/meta_blocks.cc ReadTablePropertiesHelper,
 * table/table_properties.cc TablePropertiesNames). A meta block (block.ts layout, restart interval 1
 * in practice) whose keys are property names and values:
 *   varint64              for the predefined numeric properties (NUMERIC_FIELDS below)
 *   raw bytes             for the predefined string properties and every user-collected property
 *                         (e.g. "rocksdb.block.based.table.index.type" = fixed32 LE)
 * Old RocksDB versions named the block "rocksdb.stats".
 *
 * Decoded once per table into TableProperties: typed fields named after what they hold (each field's
 * on-disk name written once, in the tables below, like Pebble's sstable.Properties tags), every property
 * under its on-disk name for display, and the user-collected ones in their own map.
 */
import { sharedString } from "../util/shared_text.js";
import { isPrintableAscii, toHex } from "../util/bytes.js";
import { PEBBLE_NUMERIC_PROPERTIES } from "./pebble.js";

/** Predefined uint64 properties, stored as varint64. "deleted.keys"/"merge.operands" included. */
export const NUMERIC_FIELDS = {
  originalFileNumber: "rocksdb.original.file.number",
  dataSize: "rocksdb.data.size",
  indexSize: "rocksdb.index.size",
  indexPartitions: "rocksdb.index.partitions",
  topLevelIndexSize: "rocksdb.top-level.index.size",
  indexKeyIsUserKey: "rocksdb.index.key.is.user.key",
  indexValueIsDeltaEncoded: "rocksdb.index.value.is.delta.encoded",
  udiIsPrimaryIndex: "rocksdb.udi.is.primary.index",
  filterSize: "rocksdb.filter.size",
  rawKeySize: "rocksdb.raw.key.size",
  rawValueSize: "rocksdb.raw.value.size",
  numDataBlocks: "rocksdb.num.data.blocks",
  numDataBlocksCompressionRejected: "rocksdb.num.data.blocks.compression.rejected",
  numDataBlocksCompressionBypassed: "rocksdb.num.data.blocks.compression.bypassed",
  numUniformBlocks: "rocksdb.num.uniform.blocks",
  numEntries: "rocksdb.num.entries",
  numFilterEntries: "rocksdb.num.filter_entries",
  numDeletions: "rocksdb.deleted.keys",
  numMergeOperands: "rocksdb.merge.operands",
  numRangeDeletions: "rocksdb.num.range-deletions",
  formatVersion: "rocksdb.format.version",
  fixedKeyLength: "rocksdb.fixed.key.length",
  columnFamilyId: "rocksdb.column.family.id",
  creationTime: "rocksdb.creation.time",
  oldestKeyTime: "rocksdb.oldest.key.time",
  newestKeyTime: "rocksdb.newest.key.time",
  fileCreationTime: "rocksdb.file.creation.time",
  slowCompressionEstimatedDataSize: "rocksdb.sample_for_compression.slow.data.size",
  fastCompressionEstimatedDataSize: "rocksdb.sample_for_compression.fast.data.size",
  tailStartOffset: "rocksdb.tail.start.offset",
  userDefinedTimestampsPersisted: "rocksdb.user.defined.timestamps.persisted",
  keyLargestSeqno: "rocksdb.key.largest.seqno",
  keySmallestSeqno: "rocksdb.key.smallest.seqno",
  dataBlockRestartInterval: "rocksdb.data.block.restart.interval",
  indexBlockRestartInterval: "rocksdb.index.block.restart.interval",
  separateKeyValueInDataBlock: "rocksdb.separate.key.value.in.data.block",
} as const;

/** Predefined string properties (stored as raw text). */
export const STRING_FIELDS = {
  dbId: "rocksdb.creating.db.identity",
  dbSessionId: "rocksdb.creating.session.identity",
  dbHostId: "rocksdb.creating.host.identity",
  filterPolicyName: "rocksdb.filter.policy",
  columnFamilyName: "rocksdb.column.family.name",
  comparatorName: "rocksdb.comparator",
  mergeOperatorName: "rocksdb.merge.operator",
  prefixExtractorName: "rocksdb.prefix.extractor.name",
  propertyCollectorsNames: "rocksdb.property.collectors",
  compressionName: "rocksdb.compression",
  compressionOptions: "rocksdb.compression_options",
  seqnoToTimeMapping: "rocksdb.seqno.time.map",
} as const;

/**
 * Properties that BlockBasedTable's own collector adds (table/block_based/block_based_table_builder.cc
 * BlockBasedTablePropertiesCollector): user-collected by RocksDB's rules (raw bytes), but the reader
 * needs them, so they are decoded into typed fields too.
 */
export const BLOCK_BASED_FIELDS = {
  /** fixed32 LE: BlockBasedTableOptions::IndexType. */
  indexType: "rocksdb.block.based.table.index.type",
  /** "0" / "1" text. */
  wholeKeyFiltering: "rocksdb.block.based.table.whole.key.filtering",
  prefixFiltering: "rocksdb.block.based.table.prefix.filtering",
} as const;

/** Numeric properties: RocksDB's, and Pebble's own (pebble.ts), all uvarint-encoded. */
export const NUMERIC_PROPERTIES: ReadonlySet<string> = new Set([
  ...Object.values(NUMERIC_FIELDS),
  ...PEBBLE_NUMERIC_PROPERTIES,
]);
export const STRING_PROPERTIES: ReadonlySet<string> = new Set(Object.values(STRING_FIELDS));

/** A property value: numbers for numeric properties, text when printable, else "0x" + hex. */
export type PropertyValue = number | string;

type NumericFields = { -readonly [K in keyof typeof NUMERIC_FIELDS]?: number };
type StringFields = { -readonly [K in keyof typeof STRING_FIELDS]?: string };

/** A table's properties, decoded once. A field is absent when the table does not carry it. */
export interface TableProperties extends NumericFields, StringFields {
  /** BlockBasedTableOptions::IndexType number ("rocksdb.block.based.table.index.type"). */
  indexType?: number;
  /** Whole keys were added to the filter (absent: RocksDB's default, true). */
  wholeKeyFiltering?: boolean;
  /** Every property under its on-disk name, rendered (numbers, text, or "0x" + hex). */
  readonly all: Record<string, PropertyValue>;
  /** The user-collected properties (neither numeric nor string predefined ones), rendered. */
  readonly user: Map<string, PropertyValue>;
}

const NUMERIC_BY_NAME = new Map<string, keyof NumericFields>(
  Object.entries(NUMERIC_FIELDS).map(([k, v]) => [v, k as keyof NumericFields]),
);
const STRING_BY_NAME = new Map<string, keyof StringFields>(
  Object.entries(STRING_FIELDS).map(([k, v]) => [v, k as keyof StringFields]),
);

/** No properties (LevelDB tables have no properties block). */
export function emptyTableProperties(): TableProperties {
  return { all: {}, user: new Map() };
}

/**
 * `p` once every property is added, as plain objects V8 lays out like every other table's: built one
 * key at a time (addProperty) the typed fields and `all` each become a hash table (~1.6 KiB per table
 * for RocksDB's ~38 properties against ~0.4 KiB), which readers holding thousands of tables open
 * (probe's reader path, a merge over an L0 pile-up) keep per table. Same keys, same order.
 */
export function settledProperties(p: TableProperties): TableProperties {
  return { ...p, all: { ...p.all } };
}

/**
 * Add one property (name and raw value bytes, read during the call and not kept) to `p`. The raw bytes
 * are not kept: a reader holding thousands of tables open (probe's reader path) kept ~40 small buffers
 * per table for them; SstTable.rawProperties reads them again for the tests that compare them.
 */
export function addProperty(p: TableProperties, name: string, raw: Buffer): void {
  // text that thousands of tables repeat (comparator, compression options, db and session ids): one copy
  const rendered = propertyValue(name, raw);
  const value = typeof rendered === "string" ? sharedString(rendered) : rendered;
  p.all[name] = value;
  const numeric = NUMERIC_BY_NAME.get(name);
  if (numeric !== undefined) {
    if (typeof value === "number") p[numeric] = value;
    return;
  }
  const text = STRING_BY_NAME.get(name);
  if (text !== undefined) {
    p[text] = String(value);
    return;
  }
  p.user.set(name, value);
  if (name === BLOCK_BASED_FIELDS.indexType && raw.length >= 4) p.indexType = raw.readUInt32LE(0);
  else if (name === BLOCK_BASED_FIELDS.wholeKeyFiltering)
    p.wholeKeyFiltering = raw.toString("latin1") !== "0";
}

export function decodeVarint64Value(v: Uint8Array): number | bigint | undefined {
  // values of up to 7 bytes (< 2^49) exactly in doubles: most properties, without BigInt's cost
  let small = 0;
  let mul = 1;
  for (let i = 0; i < v.length && i < 7; i++) {
    const b = v[i]!;
    small += (b & 0x7f) * mul;
    if (b < 0x80) return small;
    mul *= 128;
  }
  let result = 0n;
  let shift = 0n;
  for (let i = 0; i < v.length && i < 10; i++) {
    const b = v[i]!;
    result |= BigInt(b & 0x7f) << shift;
    if (b < 0x80) return result <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(result) : result;
    shift += 7n;
  }
  return undefined;
}

/** Render one raw property value the way lsmscope reports it. */
export function propertyValue(name: string, raw: Uint8Array): PropertyValue {
  if (NUMERIC_PROPERTIES.has(name)) {
    const v = decodeVarint64Value(raw);
    if (typeof v === "number") return v;
    if (typeof v === "bigint") return v.toString();
    return "0x" + toHex(raw); // malformed: RocksDB skips it, we show the bytes
  }
  if (raw.length === 0) return "";
  if (isPrintableAscii(raw))
    return (Buffer.isBuffer(raw) ? raw : Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength)).toString(
      "latin1",
    );
  return "0x" + toHex(raw);
}
