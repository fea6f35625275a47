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
