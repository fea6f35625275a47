/** Pebble's range keys (set, unset, delete) counted by kind, from a row or a columnar range-key block. */
import { BlockCursor } from "./block.js";
import { BlockKind } from "./block_kind.js";
import { blockCorruption } from "./errors.js";
import type { BlockHandle } from "./handle.js";
import { pebbleKind, PebbleKind, type RangeKeyCounts } from "./pebble.js";
import type { KeyspanBlock } from "./pebble/colblk_keyspan.js";
import type { TableBlocks } from "./table_blocks.js";

/** Range keys of a row range-key block ((Pebble,v2)-v4) by kind. */
export function countRowRangeKeys(blocks: TableBlocks, h: BlockHandle): RangeKeyCounts {
  const b = blocks.parsed(h, BlockKind.RangeKey);
  const c = new BlockCursor().reset(b);
  const counts: RangeKeyCounts = { sets: 0, unsets: 0, deletes: 0 };
  blocks.guard(BlockKind.RangeKey, h.offset, () => {
    while (c.next()) {
      if (c.keyLength < 8) throw b.corrupt(`internal key of ${c.keyLength} bytes`, c.entryOffset);
      const k = pebbleKind(c.key[c.keyLength - 8]!);
      if (k === PebbleKind.RangeKeySet) counts.sets++;
      else if (k === PebbleKind.RangeKeyUnset) counts.unsets++;
      else if (k === PebbleKind.RangeKeyDelete) counts.deletes++;
      else throw b.corrupt(`range-key block entry of kind ${k}`, c.entryOffset);
    }
  });
  return counts;
}

/** Range keys of a columnar range-key block by kind. */
export function countColumnarRangeKeys(b: KeyspanBlock, h: BlockHandle, file: string): RangeKeyCounts {
  const counts: RangeKeyCounts = { sets: 0, unsets: 0, deletes: 0 };
  for (const k of b.keys) {
    const kind = pebbleKind(k.kind);
    if (kind === PebbleKind.RangeKeySet) counts.sets++;
    else if (kind === PebbleKind.RangeKeyUnset) counts.unsets++;
    else if (kind === PebbleKind.RangeKeyDelete) counts.deletes++;
    else throw blockCorruption(file, BlockKind.RangeKey, h.offset, `range-key block entry of kind ${kind}`);
  }
  return counts;
}
