/**
 * The properties meta block "rocksdb.properties" (table/meta_blocks.cc ReadTablePropertiesHelper,
 * table/table_properties.cc TablePropertiesNames). A meta block (block.ts layout, restart interval 1
 * in practice) whose keys are property names and values:
 *   varint64              for the predefined numeric properties (NUMERIC_PROPERTIES below)
 *   raw bytes             for the predefined string properties and every user-collected property
 *                         (e.g. "rocksdb.block.based.table.index.type" = fixed32 LE)
 * Old RocksDB versions named the block "rocksdb.stats".
 */
import { isPrintableAscii, toHex } from "../util/bytes.js";

/** Predefined uint64 properties, stored as varint64. "deleted.keys"/"merge.operands" included. */
export const NUMERIC_PROPERTIES = new Set([
  "rocksdb.original.file.number",
  "rocksdb.data.size",
  "rocksdb.index.size",
  "rocksdb.index.partitions",
  "rocksdb.top-level.index.size",
  "rocksdb.index.key.is.user.key",
  "rocksdb.index.value.is.delta.encoded",
  "rocksdb.udi.is.primary.index",
  "rocksdb.filter.size",
  "rocksdb.raw.key.size",
  "rocksdb.raw.value.size",
  "rocksdb.num.data.blocks",
  "rocksdb.num.data.blocks.compression.rejected",
  "rocksdb.num.data.blocks.compression.bypassed",
  "rocksdb.num.uniform.blocks",
  "rocksdb.num.entries",
  "rocksdb.num.filter_entries",
  "rocksdb.deleted.keys",
  "rocksdb.merge.operands",
  "rocksdb.num.range-deletions",
  "rocksdb.format.version",
  "rocksdb.fixed.key.length",
  "rocksdb.column.family.id",
  "rocksdb.creation.time",
  "rocksdb.oldest.key.time",
  "rocksdb.newest.key.time",
  "rocksdb.file.creation.time",
  "rocksdb.sample_for_compression.slow.data.size",
  "rocksdb.sample_for_compression.fast.data.size",
  "rocksdb.tail.start.offset",
  "rocksdb.user.defined.timestamps.persisted",
  "rocksdb.key.largest.seqno",
  "rocksdb.key.smallest.seqno",
  "rocksdb.data.block.restart.interval",
  "rocksdb.index.block.restart.interval",
  "rocksdb.separate.key.value.in.data.block",
]);

/** Predefined string properties (stored as raw text). */
export const STRING_PROPERTIES = new Set([
  "rocksdb.creating.db.identity",
  "rocksdb.creating.session.identity",
  "rocksdb.creating.host.identity",
  "rocksdb.filter.policy",
  "rocksdb.column.family.name",
  "rocksdb.comparator",
  "rocksdb.merge.operator",
  "rocksdb.prefix.extractor.name",
  "rocksdb.property.collectors",
  "rocksdb.compression",
  "rocksdb.compression_options",
  "rocksdb.seqno.time.map",
]);

/** A property value: numbers for numeric properties, text when printable, else "0x" + hex. */
export type PropertyValue = number | string;

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
