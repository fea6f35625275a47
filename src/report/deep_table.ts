/**
 * Deep read of one table (see deep.ts for what cheap and deep mean): the same details the datadir
 * model's cheap reader fills, plus the whole index walked and checksums verified on every block read.
 * Imports only the SST reader, so worker threads load it quickly.
 */
import type { ReadTail } from "../util/tail_batches.js";
import type { TableDetails } from "../datadir/model.js";
import { tableDetailsOf } from "../datadir/table_details.js";
import { openTable, type SstTable } from "../format/table.js";
import { HandleTally } from "../format/block.js";
import { TABLE_TAIL_BYTES, TailEstimate } from "../util/tail_estimate.js";

/** What deep mode measured in one table. */
export interface DeepTableInfo {
  /** Data blocks counted by walking the index. */
  dataBlocks: number;
  /** Stored (possibly compressed) bytes of the data blocks, from their handles, without trailers. */
  dataBlockBytes: number;
  minBlockBytes?: number;
  maxBlockBytes?: number;
  /** Two-level index: partitions of the index. */
  indexPartitions?: number;
  /** Partitioned filter: partitions. */
  filterPartitions?: number;
  /** "rocksdb.num.data.blocks" equals the count from the index (undefined when there is no property). */
  propertiesAgree?: boolean;
  /** Positioned reads and bytes spent on this table. */
  reads: number;
  bytesRead: number;
  /** Checksums were verified on every block read. */
  checksumsVerified: boolean;
  /** Tables without "rocksdb.num.entries" (LevelDB): entries counted by reading every data block. */
  entriesCounted?: number;
  error?: string;
}

/** Deep read of one table: details (as cheap mode) and the index walk, checksums verified. */
export interface DeepTableResult {
  details: TableDetails;
  deep: DeepTableInfo;
  /** The file's size when it opened (the model leaves it to this open: InspectOptions.tableSizes). */
  size?: number;
}

/**
 * The most read at once from the end of each table. The metadata a deep read needs (filter metadata,
 * index, properties, metaindex, footer) lies at the end; 32 KiB holds it for tables up to some MiB, and
 * costs about what one more syscall does. Blocks outside it are read as before. How much of it a table
 * is given is learned from the tables read before (a TailEstimate up to this): a tiny table's metadata
 * is a few KiB, and copying 32 KiB of each out of the page cache cost `inspect --deep --json` on 4,354
 * such tables ~10% of its wall time.
 */
export const TAIL_PREFETCH = TABLE_TAIL_BYTES;

/**
 * Tables whose results a deep-mode worker posts at once, and the runs in which its tables alternate with
 * the reader's (deep_reads.ts WorkerReads). Small, so that a batch is taken before V8's young generation
 * (1 MiB here: bin/load_cli.js) has been collected twice over it: a batch of 512 results (~1 MiB of
 * cloned details) was promoted to the old generation whole, where it stayed as garbage until the next
 * full collection. `inspect --deep --json` with a worker on 43,726 tables: 64 at a time ~205 MiB peak,
 * 512 ~230 MiB.
 */
export const WORKER_BATCH = 64;
/**
 * Batches a deep-mode worker reads beyond the one the reader is taking: one to hand when the reader
 * comes to it, one more in the reading (deep_reads.ts WorkerReads).
 */
export const WORKER_AHEAD = 2;

/**
 * How much of each table's end a deep reader reads at once: TAIL_PREFETCH at first (a deep read of a
 * large table needs all of it: its index), then learned from the tables read, down to a few KiB over
 * some tens of small tables.
 */
export function deepTailEstimate(): TailEstimate {
  return new TailEstimate(TAIL_PREFETCH, TAIL_PREFETCH);
}

/**
 * `expectedSize`: the file's size by its MANIFEST entry (not a virtual table's), confirmed at open;
 * `tail`: a reader's estimate of the bytes to read at once from the table's end, taught by this read
 * (a table read alone: a new one, whose first read is TAIL_PREFETCH bytes); `preread`: those bytes,
 * already read (util/tail_batches.ts).
 */
export function readTableDeep(
  path: string,
  expectedSize?: number,
  tail: TailEstimate = deepTailEstimate(),
  preread?: ReadTail,
): DeepTableResult {
  let t: SstTable | undefined;
  try {
    // one read of the file's last bytes serves the metadata of a small table
    t = openTable(path, { verifyChecksums: true, prefetchTail: tail.bytes, expectedSize, preread });
    const details = tableDetailsOf(t); // the same fields the datadir model's cheap reader fills
    const tally = new HandleTally();
    const deep: DeepTableInfo = {
      dataBlocks: 0,
      dataBlockBytes: 0,
      reads: 0,
      bytesRead: 0,
      checksumsVerified: true,
    };
    try {
      // the table is closed after, so its index blocks are read in place where they lie in the tail
      // (not pinned)
      t.index.tallyHandles(tally, false);
    } catch (e) {
      deep.error = `index: ${(e as Error).message}`;
    }
    const blocks = tally.blocks;
    deep.dataBlocks = blocks;
    deep.dataBlockBytes = tally.bytes;
    deep.minBlockBytes = blocks > 0 ? tally.min : undefined;
    deep.maxBlockBytes = blocks > 0 ? tally.max : undefined;
    if (t.indexType === "two-level") deep.indexPartitions = tally.partitions.size;
    try {
      if (t.filter.partitioned) deep.filterPartitions = t.filter.partitions;
    } catch {
      /* reported in details.error */
    }
    if (details.numEntries === undefined && !deep.error && !details.error) {
      try {
        deep.entriesCounted = t.scan().entries;
      } catch (e) {
        deep.error = `data: ${(e as Error).message}`;
      }
    }
    if (details.numDataBlocks !== undefined && !deep.error)
      deep.propertiesAgree = details.numDataBlocks === blocks;
    deep.reads = t.io.reads;
    deep.bytesRead = t.io.bytes;
    return { details, deep, size: t.fileSize };
  } catch (e) {
    const msg = (e as Error).message;
    return {
      details: { error: msg },
      deep: { dataBlocks: 0, dataBlockBytes: 0, reads: 0, bytesRead: 0, checksumsVerified: true, error: msg },
      size: t?.fileSize,
    };
  } finally {
    if (t) {
      tail.note(t.tailReach);
      t.close();
    }
  }
}
