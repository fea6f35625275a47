/**
 * Comparator names. RocksDB, LevelDB and Pebble order user keys by bytes by default and write that
 * comparator's name, "leveldb.BytewiseComparator" (RocksDB and Pebble keep LevelDB's, so that stores
 * move between them), in a MANIFEST and in each table's properties. Every reader that compares user
 * keys as bytes (point lookups, merges, seeks, the key-set scans) asks isBytewiseComparator first.
 */

/** The default comparator's name, as the three engines write it. */
export const BYTEWISE_COMPARATOR = "leveldb.BytewiseComparator";

/**
 * Whether user keys under comparator `name` are in byte order: the default's name, its alias
 * "rocksdb.BytewiseComparator", or none given (a table without the property, a MANIFEST without
 * the field: RocksDB then takes the default).
 */
export function isBytewiseComparator(name: string | undefined): boolean {
  return (
    name === undefined || name === "" || name === BYTEWISE_COMPARATOR || name === "rocksdb.BytewiseComparator"
  );
}

/**
 * The bytewise comparator (BytewiseComparatorImpl::Compare: the common length by bytes, then the
 * shorter first) over a[aStart, aEnd) and b[bStart, bEnd): negative, zero or positive. A loop, not
 * Buffer#compare: the merges, seeks and lookups compare keys of tens of bytes per entry and per block,
 * where the native call's argument checks cost more than the bytes (a range scan's block bounds: 3% of
 * a two-thread `sizes --full`; an L0 pile-up's table ranges: more than the rest of a lookup).
 */
export function compareBytewise(
  a: Uint8Array,
  aStart: number,
  aEnd: number,
  b: Uint8Array,
  bStart: number,
  bEnd: number,
): number {
  const aLength = aEnd - aStart;
  const bLength = bEnd - bStart;
  const n = aLength < bLength ? aLength : bLength;
  for (let i = 0; i < n; i++) {
    const d = a[aStart + i]! - b[bStart + i]!;
    if (d !== 0) return d;
  }
  return aLength - bLength;
}
