/**
 * A point lookup in one table, the way RocksDB's table reader does it (SstTable.get): filter
 * (full/partitioned) -> index (-> partition) -> [block-based filter] -> data block, with the table's
 * covering range deletion applied whatever the filter says.
 */
import { valueTypeName, ValueType } from "../base/internal_key.js";
import { BlockKind } from "./block_kind.js";
import type { DataBlock, DataEntryCursor } from "./data_block.js";
import type { FilterReader } from "./filter_reader.js";
import type { BlockHandle } from "./handle.js";
import { compareUserKey, type IndexReader } from "./index_reader.js";
import { countBlockRead, type LookupStats } from "./read_stats.js";
import type { TableBlocks } from "./table_blocks.js";
import type { BlockLifetime } from "./table_file.js";
import type { GetResult, RangeTombstone } from "./table_types.js";

/**
 * The data block the previous get() of one table read, for a caller that looks keys up in key order
 * (check's placement overlay): consecutive keys often fall in one block, which is then read and
 * decompressed once. Block read counts are unchanged by it.
 */
export interface LastDataBlock {
  block?: DataBlock;
  /**
   * A cursor of the table's layout that its lookups move from block to block (a cursor each was most
   * of what a lookup allocated).
   */
  cursor?: DataEntryCursor;
  /**
   * The caller reads no other table's blocks between its lookups with this object: the blocks may be
   * read transiently (TableFile.readBlock's "transient"), without a buffer of their own.
   */
  transient?: boolean;
}

/** How SstTable.readDataBlock reads a block (TableFile.readBlock: where its bytes live). */
export interface DataBlockReadOptions {
  /** Where the block's bytes live (TableFile.readBlock; default "owned"). */
  lifetime?: BlockLifetime;
  stats?: LookupStats;
}

/** What a point lookup uses of a table (SstTable has it). */
export interface PointLookupTable {
  readonly blocks: TableBlocks;
  readonly index: IndexReader;
  readonly filterReader: FilterReader;
  readDataBlock(handle: BlockHandle, opts: DataBlockReadOptions): DataBlock;
}

/** Look `key` up in `t`; `tomb` is the table's newest range deletion covering it, if any. */
export function pointLookup(
  t: PointLookupTable,
  key: Buffer,
  tomb: RangeTombstone | undefined,
  s: LookupStats,
  lastBlock?: LastDataBlock,
): GetResult {
  const filter = t.filterReader;
  filter.describe(s);
  if (!filter.needsDataBlockOffset && filter.mayContain(key, s) === false) return miss(tomb, true, s);
  const h = t.index.seek(key, s);
  if (!h) return miss(tomb, false, s);
  if (filter.needsDataBlockOffset && filter.mayContain(key, s, () => h.offset) === false)
    return miss(tomb, true, s);
  let block: DataBlock;
  if (lastBlock?.block !== undefined && lastBlock.block.handle.offset === h.offset) {
    // counted as read: the figures say what a Get reads, whatever this process kept
    countBlockRead(s, "data", h);
    block = lastBlock.block;
  } else {
    // the block is done with before this returns (its value copied out), unless it is kept for the
    // next lookup: then only where the caller says no other table's block is read meanwhile
    block = t.readDataBlock(h, {
      stats: s,
      lifetime: lastBlock === undefined || lastBlock.transient === true ? "transient" : "owned",
    });
    if (lastBlock) lastBlock.block = block;
  }
  const c = block.cursor(lastBlock?.cursor);
  if (lastBlock) lastBlock.cursor = c;
  const found = t.blocks.guard(BlockKind.Data, h.offset, () => c.seek(compareUserKey(key, true)));
  const hit = found && c.keyLength >= 8 && key.compare(c.key, 0, c.keyLength - 8) === 0;
  if (tomb && (!hit || c.seqno < tomb.seqno)) return covered(tomb, false, s);
  if (!hit) return { found: false, filterRejected: false, stats: s };
  const type = c.type;
  return {
    found: true,
    filterRejected: false,
    type,
    typeName: valueTypeName(type),
    seqno: c.seqno,
    value: c.valueCopy(),
    stats: s,
  };
}

/** The key is not in the table: found only as covered by `tomb`, the table's range deletion, if any. */
function miss(tomb: RangeTombstone | undefined, filterRejected: boolean, s: LookupStats): GetResult {
  return tomb ? covered(tomb, filterRejected, s) : { found: false, filterRejected, stats: s };
}

/** What a lookup finds of a key that range deletion `tomb` covers (and no newer entry holds). */
function covered(tomb: RangeTombstone, filterRejected: boolean, s: LookupStats): GetResult {
  return {
    found: true,
    filterRejected,
    type: ValueType.RangeDeletion,
    typeName: valueTypeName(ValueType.RangeDeletion),
    seqno: tomb.seqno,
    value: Buffer.from(tomb.end),
    stats: s,
  };
}
