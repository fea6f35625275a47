/**
 * Internal keys (db/dbformat.h): what data blocks, range-deletion blocks, MANIFEST file boundaries and
 * (unless index_key_is_user_key) index blocks hold as keys.
 *
 *   internal key := user key [n] | trailer fixed64 LE = (sequence number << 8) | value type
 *
 * Value types in tables: 0x0 deletion, 0x1 value, 0x2 merge, 0x7 single deletion, 0xf range deletion
 * (range-deletion block; its value is the end key), 0x11 blob index (value points into a blob file),
 * 0x14 deletion with timestamp, 0x16 wide-column entity, 0x18 value with preferred seqno. The other
 * values (WAL records, column-family variants, transaction markers) never reach a table; they have
 * names here so every reader prints the same one.
 */

export enum ValueType {
  Deletion = 0x0,
  Value = 0x1,
  Merge = 0x2,
  SingleDeletion = 0x7,
  RangeDeletion = 0xf,
  BlobIndex = 0x11,
  DeletionWithTimestamp = 0x14,
  WideColumnEntity = 0x16,
  ValuePreferredSeqno = 0x18,
}

/** Value type names as RocksDB calls them (db/dbformat.h), for every type byte RocksDB defines. */
export const VALUE_TYPE_NAMES: Readonly<Record<number, string>> = {
  0x0: "deletion",
  0x1: "value",
  0x2: "merge",
  0x3: "log-data",
  0x4: "cf-deletion",
  0x5: "cf-value",
  0x6: "cf-merge",
  0x7: "single-deletion",
  0x8: "cf-single-deletion",
  0x9: "begin-prepare",
  0xa: "end-prepare",
  0xb: "commit",
  0xc: "rollback",
  0xd: "noop",
  0xe: "cf-range-deletion",
  0xf: "range-deletion",
  0x10: "cf-blob-index",
  0x11: "blob-index",
  0x12: "begin-persisted-prepare",
  0x13: "begin-unprepare",
  0x14: "deletion-with-timestamp",
  0x15: "commit-with-timestamp",
  0x16: "wide-column-entity",
  0x17: "cf-wide-column-entity",
  0x18: "value-preferred-seqno",
  0x19: "cf-value-preferred-seqno",
};

/** The name of a value type byte, "type-0x.." for one RocksDB does not define. */
export function valueTypeName(t: number): string {
  return VALUE_TYPE_NAMES[t] ?? `type-0x${t.toString(16)}`;
}

/**
 * True for the point tombstones a read stops at with "not found": Deletion, SingleDeletion and
 * DeletionWithTimestamp (a range deletion is a different kind of entry, in its own block).
 */
export function isTombstone(t: number): boolean {
  return t === ValueType.Deletion || t === ValueType.SingleDeletion || t === ValueType.DeletionWithTimestamp;
}

export const INTERNAL_KEY_TRAILER = 8;

/**
 * Sequence number of an internal key stored in buf[0, len). Exact below 2^53; above (only the
 * 2^56−1 range-deletion sentinel) approximate.
 */
export function internalKeySeqno(buf: Uint8Array, len: number): number {
  const p = len - 8;
  const lo = (buf[p + 1]! | (buf[p + 2]! << 8) | (buf[p + 3]! << 16)) >>> 0; // bits 0..23 of seq
  const hi = (buf[p + 4]! | (buf[p + 5]! << 8) | (buf[p + 6]! << 16) | (buf[p + 7]! << 24)) >>> 0; // bits 24..55
  return hi * 16777216 + lo;
}

/** Value type byte of an internal key stored in buf[0, len). */
export function internalKeyType(buf: Uint8Array, len: number): number {
  return buf[len - 8]!;
}

export interface InternalKey {
  /** A view of the user key inside the bytes given to decodeInternalKey. */
  userKey: Uint8Array;
  /** Sequence number. Values above 2^53 (only the 2^56−1 range-deletion sentinel) are approximate. */
  seqno: number;
  type: number;
}

/** Split an internal key; throws a RangeError (the caller names the field) when it is under 8 bytes. */
export function decodeInternalKey(bytes: Uint8Array): InternalKey {
  if (bytes.length < INTERNAL_KEY_TRAILER)
    throw new RangeError(`internal key of ${bytes.length} bytes (< 8)`);
  return {
    userKey: bytes.subarray(0, bytes.length - 8),
    seqno: internalKeySeqno(bytes, bytes.length),
    type: internalKeyType(bytes, bytes.length),
  };
}

export interface ParsedInternalKey {
  userKey: Buffer;
  seqno: number;
  type: number;
}

/** Split an internal key with a copy of its user key; undefined when it is under 8 bytes. */
export function parseInternalKey(key: Uint8Array): ParsedInternalKey | undefined {
  if (key.length < INTERNAL_KEY_TRAILER) return undefined;
  const k = decodeInternalKey(key);
  return { userKey: Buffer.from(k.userKey), seqno: k.seqno, type: k.type };
}
