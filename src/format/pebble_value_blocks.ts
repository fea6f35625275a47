/**
 * Pebble's value blocks ((Pebble,v3) and v4 row tables; Pebble's sstable/valblk/): where the values of
 * older versions of a key live when the data block keeps only a handle to them.
 *
 *   value in a data block   prefix byte 0x80|… (pebble.ts), then the handle:
 *                           value length: uvarint32, block number: uvarint32, offset in block: uvarint32
 *   value block             the values back to back, no lengths (the handle delimits a value); a block
 *                           with the usual 5-byte trailer (compression type, checksum)
 *   "pebble.value_index"    metaindex entry: block handle (two uvarint64) followed by three bytes, the
 *                           widths of the index's fixed-width fields (block number, offset, length)
 *   value index block       one row per value block, blocks numbered 0, 1, …: little-endian
 *                           block number | block offset | block length (without trailer), each of its width
 *
 * A value is resolved to its bytes by reading its value block (checksum checked, decompressed) and
 * slicing it; the last block read is kept, since a scan meets the values of one block in a row.
 */
import { cursor, getVarint32 } from "../util/coding.js";
import { LIMITS } from "../util/limits.js";
import { BlockKind } from "./block_kind.js";
import { BlockCorruptionError } from "./errors.js";
import type { BlockHandle } from "./handle.js";
import type { MetaBlockEntry } from "./metaindex.js";
import type { ResolvedValue } from "./pebble.js";
import type { TableBlocks } from "./table_blocks.js";

/** The metaindex value of "pebble.value_index": the index block's handle and its row layout. */
export interface ValueIndexHandle {
  handle: BlockHandle;
  blockNumBytes: number;
  offsetBytes: number;
  lengthBytes: number;
}

/**
 * The value index's handle from its metaindex entry (valblk.DecodeIndexHandle): the block handle and
 * the three field widths after it. Throws RangeError when they are not there.
 */
export function valueIndexHandleOf(entry: MetaBlockEntry): ValueIndexHandle {
  const w = entry.trailing;
  if (w?.length !== 3)
    throw new RangeError(`value index handle has ${w?.length ?? 0} bytes after the block handle, not 3`);
  const [blockNumBytes, offsetBytes, lengthBytes] = [w[0]!, w[1]!, w[2]!];
  for (const n of [blockNumBytes, offsetBytes, lengthBytes])
    if (n < 1 || n > 6) throw new RangeError(`value index field width ${n} (1 to 6 bytes)`);
  return { handle: entry.handle, blockNumBytes, offsetBytes, lengthBytes };
}

/** Little-endian unsigned integer of `n` (≤ 6) bytes. */
function le(b: Buffer, at: number, n: number): number {
  return b.readUIntLE(at, n);
}

/** One table's value blocks: the index read on first use, values resolved from their handles. */
export class PebbleValueBlocks {
  private index?: Buffer;
  private cachedNum = -1;
  private cached?: Buffer;

  constructor(
    private readonly blocks: TableBlocks,
    readonly indexHandle: ValueIndexHandle,
  ) {}

  private get rowWidth(): number {
    const h = this.indexHandle;
    return h.blockNumBytes + h.offsetBytes + h.lengthBytes;
  }

  private indexBlock(): Buffer {
    this.index ??= this.blocks.read(this.indexHandle.handle, BlockKind.PebbleValueIndex);
    return this.index;
  }

  private corrupt(detail: string): BlockCorruptionError {
    return new BlockCorruptionError(
      this.blocks.path,
      BlockKind.PebbleValueIndex,
      this.indexHandle.handle.offset,
      detail,
    );
  }

  /** Number of value blocks the index lists. */
  get count(): number {
    const n = this.indexBlock().length;
    if (n % this.rowWidth !== 0)
      throw this.corrupt(`${n} bytes is not a whole number of ${this.rowWidth}-byte rows`);
    return n / this.rowWidth;
  }

  /** Where value block `num` lives (valblk.DecodeBlockHandleFromIndex). */
  handleOf(num: number): BlockHandle {
    const ix = this.indexBlock();
    const h = this.indexHandle;
    const at = num * this.rowWidth;
    if (at + this.rowWidth > ix.length)
      throw this.corrupt(`value block ${num} is not in the index (${ix.length} bytes)`);
    const stated = le(ix, at, h.blockNumBytes);
    if (stated !== num) throw this.corrupt(`row ${num} names value block ${stated}`);
    return {
      offset: le(ix, at + h.blockNumBytes, h.offsetBytes),
      size: le(ix, at + h.blockNumBytes + h.offsetBytes, h.lengthBytes),
    };
  }

  /** Every value block's handle, in block-number order (for whole-table verification). */
  handles(): BlockHandle[] {
    const out: BlockHandle[] = [];
    for (let i = 0, n = this.count; i < n; i++) out.push(this.handleOf(i));
    return out;
  }

  /** The decompressed bytes of value block `num` (checksum checked), the last one kept. */
  block(num: number): Buffer {
    if (num !== this.cachedNum || this.cached === undefined) {
      this.cached = this.blocks.read(this.handleOf(num), BlockKind.PebbleValueBlock);
      this.cachedNum = num;
    }
    return this.cached;
  }

  /**
   * The value a handle (the bytes after the value prefix, data[offset, end)) points to. Throws a
   * RangeError on a malformed handle, a BlockCorruptionError on a handle outside its block.
   */
  resolve(data: Uint8Array, offset: number, end: number): ResolvedValue {
    const c = cursor(data, offset, end);
    const length = getVarint32(c);
    const num = getVarint32(c);
    const inBlock = getVarint32(c);
    if (length > LIMITS.maxBlockBytes) throw new RangeError(`value handle declares ${length} bytes`);
    const b = this.block(num);
    if (inBlock + length > b.length)
      throw new BlockCorruptionError(
        this.blocks.path,
        BlockKind.PebbleValueBlock,
        this.handleOf(num).offset,
        `value handle (offset ${inBlock}, length ${length}) runs past the block's ${b.length} bytes`,
      );
    return { data: b, offset: inBlock, length };
  }
}
