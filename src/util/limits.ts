/**
 * Caps on sizes that a file declares about itself. Datadirs are untrusted input: a corrupt handle or a
 * hostile file must not make us allocate gigabytes or loop forever. Values are far above anything
 * RocksDB or LevelDB writes in practice.
 */
export const LIMITS = {
  /** Largest on-disk block (data, index, filter, properties) we are willing to read. */
  maxBlockBytes: 256 * 1024 * 1024,
  /** Largest decompressed block we are willing to produce. */
  maxUncompressedBlockBytes: 256 * 1024 * 1024,
  /** Largest single MANIFEST/WAL logical record (reassembled from fragments). */
  maxLogRecordBytes: 512 * 1024 * 1024,
  /** Largest OPTIONS / CURRENT / metadata text file. */
  maxTextFileBytes: 16 * 1024 * 1024,
  /** Largest single key. */
  maxKeyBytes: 64 * 1024 * 1024,
  /** Largest number of index partitions / blocks followed in one table. */
  maxBlocksPerTable: 50_000_000,
} as const;
