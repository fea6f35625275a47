/**
 * The metaindex block (block.ts layout, restart interval 1): meta block name -> block handle. The
 * names this reader knows are in block_kind.ts.
 */
import { cursor as makeCursor } from "../util/coding.js";
import { BlockCursor, type Block } from "./block.js";
import { BlockKind } from "./block_kind.js";
import { decodeBlockHandle, type BlockHandle } from "./handle.js";
import type { TableBlocks } from "./table_blocks.js";

export interface MetaBlockEntry {
  name: string;
  handle: BlockHandle;
  /** Bytes after the handle in the entry's value (Pebble's value index appends three; a copy). */
  trailing?: Buffer;
}

export function decodeMetaindex(blocks: TableBlocks, block: Block, offset: number): MetaBlockEntry[] {
  const out: MetaBlockEntry[] = [];
  const c = new BlockCursor().reset(block);
  blocks.guard(BlockKind.Metaindex, offset, () => {
    while (c.next()) {
      const name = c.key.toString("latin1", 0, c.keyLength);
      const hc = makeCursor(c.data, c.valueOffset, c.valueOffset + c.valueLength);
      const entry: MetaBlockEntry = { name, handle: decodeBlockHandle(hc) };
      if (hc.pos < hc.end) entry.trailing = Buffer.from(c.data.subarray(hc.pos, hc.end));
      out.push(entry);
    }
  });
  return out;
}
