/**
 * User-key orders a table names in "rocksdb.comparator" that this reader can check key order under:
 * the bytewise comparators, and CockroachDB's "cockroach_comparator" (Pebble's cockroachkvs.Compare),
 * which columnar tables with the crdb1 key schema use:
 *
 *   an engine key = roach key | 0x00 | version | length of the version + 1 (no version: the 0x00 alone);
 *   keys order by roach key bytewise, then a key without a version first, then versions descending
 *   (newest first), compared without their length byte, a zero logical part (4 bytes) and a synthetic
 *   bit (the 13th byte) of an MVCC timestamp.
 */
import { isBytewiseComparator } from "../../base/comparator.js";

/** Compares user keys a[0, al) and b[0, bl): < 0, 0, > 0. */
export type UserKeyCompare = (a: Buffer, al: number, b: Buffer, bl: number) => number;

const bytewise: UserKeyCompare = (a, al, b, bl) => a.compare(b, 0, bl, 0, al);

const WALL = 8;
const WALL_LOGICAL = 12;
const WALL_LOGICAL_SYNTHETIC = 13;

/** The bytes of a version [start, end) that take part in comparisons (normalizeVersionForCompare). */
function normalizedVersionEnd(k: Buffer, start: number, end: number): number {
  let n = end - start;
  if (n === WALL_LOGICAL_SYNTHETIC) n = WALL_LOGICAL;
  if (n === WALL_LOGICAL && k.readUInt32BE(start + WALL) === 0) n = WALL;
  return start + n;
}

const cockroach: UserKeyCompare = (a, al, b, bl) => {
  if (al === 0 || bl === 0) return al - bl;
  const aSuffix = Math.min(a[al - 1]!, al);
  const bSuffix = Math.min(b[bl - 1]!, bl);
  const c = a.compare(b, 0, bl - bSuffix, 0, al - aSuffix);
  if (c !== 0) return c;
  if (aSuffix === 0 || bSuffix === 0) return aSuffix - bSuffix;
  // versions descending: compare b's against a's, each without its trailing length byte
  const as = al - aSuffix;
  const bs = bl - bSuffix;
  return b.compare(a, as, normalizedVersionEnd(a, as, al - 1), bs, normalizedVersionEnd(b, bs, bl - 1));
};

/** The user-key order of a comparator name; undefined when this reader does not know it. */
export function userKeyCompare(comparator: string): UserKeyCompare | undefined {
  if (isBytewiseComparator(comparator)) return bytewise;
  if (comparator === "cockroach_comparator") return cockroach;
  return undefined;
}
