/**
 * Data blocks of one table read one after another into a reused buffer, each pointed at by a cursor
 * of the table's block layout: the merge's hot path (SstTable.dataBlockReader()).
 */
import type { BlockOrigin } from "./block.js";
import type { BlockHandle } from "./handle.js";
import { BlockKind } from "./block_kind.js";
import type { DataEntryCursor } from "./data_block.js";
import type { TableBlocks } from "./table_blocks.js";
import type { BlockLifetime } from "./table_file.js";

/** See SstTable.dataBlockReader(). */
export class DataBlockReader {
  constructor(
    private readonly blocks: TableBlocks,
    /** A cursor of the table's block layout (SstTable.newDataCursor, without the table). */
    readonly newCursor: () => DataEntryCursor,
    /**
     * No entry's value is read from elsewhere in the file (no Pebble value blocks): nothing but the
     * next load() reads the file while the cursor is on a block, so a block may stay in the read-ahead
     * window (TableFile.readBlock's "window").
     */
    inPlace = false,
  ) {
    this.lifetime = inPlace ? "window" : "scratch";
  }

  private readonly lifetime: BlockLifetime;

  /**
   * Read one data block and point `cursor` at it; its bytes live in a buffer the next read overwrites.
   * Returns the block's uncompressed size.
   */
  load(cursor: DataEntryCursor, handle: BlockHandle): number {
    const data = this.blocks.read(handle, BlockKind.Data, this.lifetime);
    // one origin per reader, re-pointed per block: it only names the block in errors, and the block
    // it names is the one the cursor is on
    const origin = (this.origin ??= { file: this.blocks.path, kind: BlockKind.Data, offset: 0 });
    origin.offset = handle.offset;
    cursor.load(data, origin, handle);
    return data.length;
  }

  private origin: BlockOrigin | undefined;

  close(): void {
    this.blocks.file.close();
  }

  /** The reader will not read the file again soon: its descriptor may go back (TableFile.rest). */
  rest(): void {
    this.blocks.file.rest();
  }
}
