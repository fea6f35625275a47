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

/** The cursor over metaindex blocks (decoded one at a time, at once): one per thread. */
const metaindexCursor = new BlockCursor();

/**
 * Meta block names by their bytes: every table repeats the same few ("rocksdb.properties", its filter's),
 * so a name is decoded once, not once per table.
 */
const knownNames: { bytes: Buffer; name: string }[] = [];
const MAX_KNOWN_NAMES = 64;

function metaBlockName(key: Buffer, length: number): string {
  for (const k of knownNames)
    if (k.bytes.length === length && k.bytes.compare(key, 0, length) === 0) return k.name;
  const name = key.toString("latin1", 0, length);
  if (knownNames.length < MAX_KNOWN_NAMES) knownNames.push({ bytes: Buffer.from(name, "latin1"), name });
  return name;
}

export function decodeMetaindex(blocks: TableBlocks, block: Block, offset: number): MetaBlockEntry[] {
  const out: MetaBlockEntry[] = [];
  const c = metaindexCursor.reset(block);
  blocks.guard(BlockKind.Metaindex, offset, () => {
    while (c.next()) {
      const name = metaBlockName(c.key, c.keyLength);
      const hc = makeCursor(c.data, c.valueOffset, c.valueOffset + c.valueLength);
      const entry: MetaBlockEntry = { name, handle: decodeBlockHandle(hc) };
      if (hc.pos < hc.end) entry.trailing = Buffer.from(c.data.subarray(hc.pos, hc.end));
      out.push(entry);
    }
  });
  return out;
}
