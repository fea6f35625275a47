/**
 * The block layer one table's readers share (index reader, filter reader, scan): read a block through
 * the table file (checksum, decompression), parse it, and turn a decoder's RangeError inside it into a
 * corruption error naming the file, the block's kind and its offset.
 */
import { Block, type BlockCursor } from "./block.js";
import type { BlockKind } from "./block_kind.js";
import { wrapDecodeError } from "./errors.js";
import type { BlockHandle } from "./handle.js";
import type { BlockLifetime, TableFile } from "./table_file.js";

export class TableBlocks {
  readonly file: TableFile;
  readonly path: string;

  constructor(file: TableFile) {
    this.file = file;
    this.path = file.path;
  }

  /** A block's payload, checked and decompressed, living where `lifetime` says (TableFile.readBlock). */
  read(handle: BlockHandle, kind: BlockKind | string, lifetime: BlockLifetime = "owned"): Buffer {
    return this.file.readBlock(handle, kind, lifetime);
  }

  /**
   * A block's payload for a caller that decodes it at once and keeps nothing of it: maybe a view of the
   * table's prefetched tail (TableFile.readBlockView), valid until the table closes.
   */
  view(handle: BlockHandle, kind: BlockKind | string): Buffer {
    return this.file.readBlockView(handle, kind);
  }

  /**
   * A block in block format stored uncompressed in the table's prefetched tail, as a view of it (valid
   * until the table closes: TableFile.tailBlockView); undefined for any other block.
   */
  tailParsed(handle: BlockHandle, kind: BlockKind | string): Block | undefined {
    const b = this.file.tailBlockView(handle, kind);
    return b && new Block(b, { file: this.path, kind, offset: handle.offset });
  }

  /** A block in block format (block.ts), read as `read()` does. */
  parsed(handle: BlockHandle, kind: BlockKind | string, lifetime: BlockLifetime = "owned"): Block {
    return new Block(this.file.readBlock(handle, kind, lifetime), {
      file: this.path,
      kind,
      offset: handle.offset,
    });
  }

  /**
   * guard() of one step of `cursor` (its next entry, false at the block's end) without a closure: an
   * index walk takes a step per data block.
   */
  step(kind: BlockKind | string, offset: number, cursor: BlockCursor): boolean {
    try {
      return cursor.next();
    } catch (err) {
      return wrapDecodeError(err, this.path, kind, offset);
    }
  }

  /** Run `fn` over the decoded bytes of a block; a RangeError inside becomes a located corruption error. */
  guard<T>(kind: BlockKind | string, offset: number, fn: () => T): T {
    try {
      return fn();
    } catch (err) {
      return wrapDecodeError(err, this.path, kind, offset);
    }
  }
}
