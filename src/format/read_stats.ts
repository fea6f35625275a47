/**
 * What a lookup read, for probes: passed explicitly to every call that may read a block on a lookup's
 * behalf (SstTable.get / mayContain, the index and filter readers).
 */
import { BLOCK_TRAILER_SIZE, type BlockHandle } from "./handle.js";

/** Counters for one lookup (or a sequence of calls), for probes. */
export interface LookupStats {
  filterChecked: number;
  filterRejected: number;
  indexBlocksRead: number;
  filterBlocksRead: number;
  dataBlocksRead: number;
  /** Bytes read from the file (block bytes + trailers) by this call. */
  bytesRead: number;
}

/** Zeroed lookup statistics, to pass to mayContain/get. */
export function emptyLookupStats(): LookupStats {
  return {
    filterChecked: 0,
    filterRejected: 0,
    indexBlocksRead: 0,
    filterBlocksRead: 0,
    dataBlocksRead: 0,
    bytesRead: 0,
  };
}

/** Count one block read (its stored bytes and trailer) in `stats`, when there are stats to count in. */
export function countBlockRead(
  stats: LookupStats | undefined,
  kind: "index" | "filter" | "data",
  handle: BlockHandle,
): void {
  if (!stats) return;
  if (kind === "index") stats.indexBlocksRead++;
  else if (kind === "filter") stats.filterBlocksRead++;
  else stats.dataBlocksRead++;
  stats.bytesRead += handle.size + BLOCK_TRAILER_SIZE;
}
