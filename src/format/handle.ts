/**
 * Block handles: where a block lives in a table file (table/format.h BlockHandle).
 *
 *   BlockHandle := offset: varint64, size: varint64      (at most 20 bytes)
 *
 * `size` excludes the 5-byte block trailer (compression type + checksum) that follows every block of a
 * block-based table (and of a LevelDB table).
 */
import { getVarint64Number, type Cursor } from "../util/coding.js";

export interface BlockHandle {
  /** Offset of the block's first byte in the file. */
  offset: number;
  /** Stored size of the block, without its 5-byte trailer. */
  size: number;
}

/** Bytes after every block of a block-based (or LevelDB) table: 1 compression type + 4 checksum. */
export const BLOCK_TRAILER_SIZE = 5;

export function decodeBlockHandle(c: Cursor): BlockHandle {
  const offset = getVarint64Number(c);
  const size = getVarint64Number(c);
  return { offset, size };
}

/**
 * The bytes some blocks lie in, their trailers included: [start, end), end 0 while none is added. A
 * walk over a two-level index's partitions reads their span at once (TableFile.withSpan).
 */
export class BlockSpan {
  start = Infinity;
  end = 0;
  add(offset: number, size: number): void {
    if (offset < this.start) this.start = offset;
    const end = offset + size + BLOCK_TRAILER_SIZE;
    if (end > this.end) this.end = end;
  }
}
