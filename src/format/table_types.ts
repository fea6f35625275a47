/**
 * The shapes SstTable (table.ts) takes and gives: how a table is opened, its format family, an index
 * entry, the result of a point lookup.
 */
import type { BlockHandle } from "./handle.js";
import type { ReadTail } from "../util/tail_batches.js";
import type { LookupStats } from "./read_stats.js";

export interface OpenTableOptions {
  /**
   * Verify the checksum of every block read (default true, as RocksDB's verify_checksums; the footer
   * checksum of format >= 6 is always verified). False only for callers that measure raw decoding.
   */
  verifyChecksums?: boolean;
  /**
   * Read this many bytes at the end of the file at once (instead of the footer alone) and serve the
   * metadata blocks inside them from memory (TableFile.prefetchTail). For whole-table metadata reads.
   */
  prefetchTail?: number;
  /**
   * With prefetchTail: the size the file should have (its MANIFEST entry's). The tail is then read
   * without an fstat first, one byte past that size to confirm the file ends there; a file of another
   * size (or not a regular file) is opened as without it.
   */
  expectedSize?: number;
  /**
   * With prefetchTail: the file's last bytes, already read (util/tail_batches.ts). The table is
   * parsed from them without opening the file; its size is the one they were read at, not
   * expectedSize. A read outside them opens the file then. The table reads from these bytes in place:
   * they must stay as they are until it is closed (the readers that pass them close each table before
   * taking the next one's).
   */
  preread?: ReadTail;
  /** Sequential scans: read this many bytes at a time and serve the blocks inside them (TableFile.readAhead). */
  readAhead?: number;
}

export type TableFormat = "block-based" | "leveldb" | "pebble";

/** One index entry: the separator key as stored and the data block it points to. */
export interface IndexEntry {
  /** Separator key (internal key, or user key when index_key_is_user_key). A copy. */
  separator: Buffer;
  /** True when `separator` is an internal key (user key + 8-byte trailer). */
  separatorIsInternal: boolean;
  handle: BlockHandle;
  /** kBinarySearchWithFirstKey: first internal key of the data block. */
  firstKey?: Buffer;
  /** Two-level index: handle of the partition this entry came from. */
  partition?: BlockHandle;
}

/** What SstTable.forEachIndexHandle gives for each data block: its handle, partition and separator. */
export type IndexHandleVisit = (
  offset: number,
  size: number,
  partitionOffset: number,
  separator: Buffer,
  separatorLength: number,
) => boolean | void;

export interface GetResult {
  found: boolean;
  /** Rejected by the filter (no index or data block read for the key). */
  filterRejected: boolean;
  type?: number;
  typeName?: string;
  seqno?: number;
  /**
   * Value bytes (copy); for blob-index entries the blob index (db/blob/blob_index.h), for merges one
   * operand, for a covering range deletion (type 0xf) its end key.
   */
  value?: Buffer;
  stats: LookupStats;
}

/** A range deletion: user keys in [start, end) deleted at seqno. */
export interface RangeTombstone {
  start: Buffer;
  end: Buffer;
  seqno: number;
}
