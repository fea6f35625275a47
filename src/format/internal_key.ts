/**
 * Internal keys (db/dbformat.h): what data blocks, range-deletion blocks and (unless
 * index_key_is_user_key) index blocks hold as keys.
 *
 *   internal key := user key [n] | trailer fixed64 LE = (sequence number << 8) | value type
 *
 * Value types in tables: 0x0 deletion, 0x1 value, 0x2 merge, 0x7 single deletion, 0xf range deletion
 * (range-deletion block; its value is the end key), 0x11 blob index (value points into a blob file),
 * 0x14 deletion with timestamp, 0x16 wide-column entity, 0x18 value with preferred seqno.
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

const NAMES: Record<number, string> = {
  0x0: "deletion",
  0x1: "value",
  0x2: "merge",
  0x7: "single-deletion",
  0xf: "range-deletion",
  0x11: "blob-index",
  0x14: "deletion-with-timestamp",
  0x16: "wide-column-entity",
  0x18: "value-preferred-seqno",
};

export function valueTypeName(t: number): string {
  return NAMES[t] ?? `type-0x${t.toString(16)}`;
}

export const INTERNAL_KEY_TRAILER = 8;

/** Sequence number of an internal key stored in buf[0, len) (exact below 2^53). */
export function internalKeySeqno(buf: Uint8Array, len: number): number {
  const p = len - 8;
  const lo = (buf[p + 1]! | (buf[p + 2]! << 8) | (buf[p + 3]! << 16)) >>> 0; // bits 0..23 of seq
  const hi = (buf[p + 4]! | (buf[p + 5]! << 8) | (buf[p + 6]! << 16) | (buf[p + 7]! << 24)) >>> 0; // bits 24..55
  return hi * 16777216 + lo;
}

export function internalKeyType(buf: Uint8Array, len: number): number {
  return buf[len - 8]!;
}

export interface ParsedInternalKey {
  userKey: Buffer;
  seqno: number;
  type: number;
}

export function parseInternalKey(key: Uint8Array): ParsedInternalKey | undefined {
  if (key.length < 8) return undefined;
  return {
    userKey: Buffer.from(key.subarray(0, key.length - 8)),
    seqno: internalKeySeqno(key, key.length),
    type: internalKeyType(key, key.length),
  };
}
