/**
 * Index readers, one per index type, chosen once when a table opens (RocksDB's
 * BlockBasedTable::CreateIndexReader switch, table/block_based/block_based_table_reader.cc):
 *
 *   kBinarySearch (0)              one index block: separator -> data block handle
 *   kHashSearch (1)                the same block, plus prefix side blocks (hash_index.ts) that only a
 *                                  Get with the table's prefix extractor uses: read as kBinarySearch
 *   kTwoLevelIndexSearch (2)       a top-level block of separator -> index partition handles, each
 *                                  partition an index block as above (PartitionIndexReader)
 *   kBinarySearchWithFirstKey (3)  kBinarySearch whose values also carry the data block's first key
 *
 * Separators are internal keys unless the table says "rocksdb.index.key.is.user.key"; values are
 * delta-encoded handles with "rocksdb.index.value.is.delta.encoded" (block.ts). The top-level block is
 * read once and kept, like a table reader that pins it; partitions are read per call.
 */
import { indexTypeName, type IndexTypeName } from "../base/index_type.js";
import { LsmscopeError } from "../util/errors.js";
import { LIMITS } from "../util/limits.js";
import { Block, BlockCursor, type HandleTally } from "./block.js";
import { BlockKind } from "./block_kind.js";
import { BlockSpan, type BlockHandle } from "./handle.js";
import { countBlockRead, type LookupStats } from "./read_stats.js";
import type { TableBlocks } from "./table_blocks.js";
import type { BlockLifetime } from "./table_file.js";

export type IndexType = IndexTypeName;

/** How index entries are stored (from the table's properties). */
export interface IndexLayout {
  /** Separators are user keys ("rocksdb.index.key.is.user.key"). */
  keyIsUserKey: boolean;
  /** Values are delta-encoded handles ("rocksdb.index.value.is.delta.encoded"). */
  valueDeltaEncoded: boolean;
}

/** One step of an index walk: the cursor on a data block's entry, and the partition it came from. */
export interface IndexStep {
  cursor: BlockCursor;
  partition?: BlockHandle;
}

/** What a walk calls per data block: false stops the walk. */
export type IndexVisit = (step: IndexStep) => boolean | void;

export interface WalkOptions {
  /**
   * A user key: the walk starts at the first block that can hold a key ≥ `from`, the first entry whose
   * separator (≥ every key of its block, < every key of the next) has a user-key part ≥ `from`, found by
   * binary search over the restart points. Needs a bytewise comparator.
   */
  from?: Buffer;
  /**
   * False for a table closed after one walk: blocks stored uncompressed in the prefetched tail are read
   * in place and not kept, where the reader can (default true: the top level is kept).
   */
  pin?: boolean;
}

export interface IndexReader {
  readonly type: IndexType;
  /** The index block (the top level of a two-level index). */
  readonly handle: BlockHandle;
  readonly layout: IndexLayout;
  /** Handle of the data block whose key range may hold `key` (a user key); undefined past the last. */
  seek(key: Buffer, stats?: LookupStats): BlockHandle | undefined;
  /**
   * `visit` once per data block in key order, until it returns false; the step object is reused
   * (nothing allocated per entry). A loop calling back rather than a generator: deep mode walks ten
   * realistic tables' ~18,000 index entries in a run's first milliseconds, mostly before V8 has
   * optimised the walk, and the generator's resumption per entry cost ~15% of that walk (in-process,
   * 25 fresh processes each: median 17.3 against 14.7 ms).
   */
  walk(visit: IndexVisit, opts?: WalkOptions): void;
  /**
   * Every data-block handle, tallied (deep mode): the blocks walk() reads, refused as walk() refuses
   * them, faster where the index is in block format (BlockCursor.tallyHandles).
   */
  tallyHandles(tally: HandleTally, pin?: boolean): void;
  /** Handles of the index partitions (none for a single-level index). */
  partitions(): Generator<BlockHandle, void, undefined>;
  /**
   * `visit` about `count` entries spread over the index, in key order, without decoding the others: the
   * entries at every k-th restart point, then at the last one (at a restart point an entry shares no
   * key bytes and stores its whole handle, so each is read alone). Where an index cannot be sampled so
   * (a two-level index, a columnar one) the method is absent: walk() it.
   */
  sample?(count: number, visit: IndexVisit, pin?: boolean): void;
}

/** Comparison of a stored key (user or internal) against a user key, bytewise on the user-key part. */
export function compareUserKey(target: Buffer, internal: boolean): (key: Buffer, len: number) => number {
  return (key, len) => key.compare(target, 0, target.length, 0, internal ? len - 8 : len);
}

/** A cursor over a block of separator -> handle entries (an index, a partition or filter-partition index). */
export function handleCursor(layout: IndexLayout, firstKey = false): BlockCursor {
  return new BlockCursor({ index: true, valueDelta: layout.valueDeltaEncoded, firstKey });
}

/** The index reader for a table's index type number (BlockBasedTableOptions::IndexType). */
export function createIndexReader(
  blocks: TableBlocks,
  handle: BlockHandle,
  typeNumber: number,
  layout: IndexLayout,
  propertiesOffset: number | undefined,
): IndexReader {
  const type = indexTypeName(typeNumber);
  switch (type) {
    case "binary-search":
    case "hash-search":
    case "binary-search-with-first-key":
      return new SingleLevelIndexReader(blocks, handle, type, layout);
    case "two-level":
      return new TwoLevelIndexReader(blocks, handle, layout);
    default:
      throw new LsmscopeError(`unsupported index type ${typeNumber}`, {
        file: blocks.path,
        offset: propertiesOffset,
      });
  }
}

abstract class PinnedTopIndex {
  private top?: Block;
  constructor(
    protected readonly blocks: TableBlocks,
    readonly handle: BlockHandle,
    readonly layout: IndexLayout,
    private readonly topKind: BlockKind,
  ) {}

  /** The (top-level) index block, read at the first use and kept; that first read counts in `stats`. */
  protected loadTop(stats?: LookupStats): Block {
    if (!this.top) {
      this.top = this.blocks.parsed(this.handle, this.topKind);
      countBlockRead(stats, "index", this.handle);
    }
    return this.top;
  }

  /**
   * The top-level block for a walk: the kept one; with `pin` false while none is kept, the block in
   * place in the prefetched tail (stored uncompressed there; TableBlocks.tailParsed), not kept. Deep
   * mode walks each of thousands of tables' index once and closes the table: a buffer of its own per
   * table (an ArrayBuffer, ~2 µs with its share of the collector's work) bought nothing.
   */
  protected walkTop(pin: boolean): Block {
    if (!pin && !this.top) {
      const b = this.blocks.tailParsed(this.handle, this.topKind);
      if (b) return b;
    }
    return this.loadTop();
  }
}

class SingleLevelIndexReader extends PinnedTopIndex implements IndexReader {
  constructor(
    blocks: TableBlocks,
    handle: BlockHandle,
    readonly type: IndexType,
    layout: IndexLayout,
  ) {
    super(blocks, handle, layout, BlockKind.Index);
  }

  /** The cursor of seek(), made once: point lookups seek a table's index thousands of times. */
  private seeker?: BlockCursor;

  private cursor(): BlockCursor {
    return handleCursor(this.layout, this.type === "binary-search-with-first-key");
  }

  seek(key: Buffer, stats?: LookupStats): BlockHandle | undefined {
    const c = (this.seeker ??= this.cursor()).reset(this.loadTop(stats));
    const cmp = compareUserKey(key, !this.layout.keyIsUserKey);
    const ok = this.blocks.guard(BlockKind.Index, this.handle.offset, () => c.seek(cmp));
    return ok ? { offset: c.handleOffset, size: c.handleSize } : undefined;
  }

  walk(visit: IndexVisit, opts: WalkOptions = {}): void {
    const top = this.walkTop(opts.pin ?? true);
    const c = this.cursor().reset(top);
    const step: IndexStep = { cursor: c };
    const offset = this.handle.offset;
    let n = 0;
    if (opts.from) {
      const cmp = compareUserKey(opts.from, !this.layout.keyIsUserKey);
      if (!this.blocks.guard(BlockKind.Index, offset, () => c.seek(cmp))) return;
      n++;
      if (visit(step) === false) return;
    }
    while (this.blocks.step(BlockKind.Index, offset, c)) {
      if (++n > LIMITS.maxBlocksPerTable) throw top.corrupt("too many index entries");
      if (visit(step) === false) return;
    }
  }

  tallyHandles(tally: HandleTally, pin = true): void {
    const top = this.walkTop(pin);
    tallyBlock(this.blocks, BlockKind.Index, this.handle.offset, top, this.cursor().reset(top), tally, -1);
  }

  *partitions(): Generator<BlockHandle, void, undefined> {}

  sample(count: number, visit: IndexVisit, pin = true): void {
    const top = this.walkTop(pin);
    const c = this.cursor().reset(top);
    const step: IndexStep = { cursor: c };
    const offset = this.handle.offset;
    const n = top.numRestarts;
    const stride = Math.max(1, Math.ceil(n / Math.max(1, count)));
    for (let i = 0; i < n; i = Math.min(i + stride, n - 1)) {
      c.seekToRestart(i);
      // the cursor's key is empty after the seek: an entry that shares bytes is refused as corrupt
      if (!this.blocks.step(BlockKind.Index, offset, c))
        throw top.corrupt(`restart point ${i} holds no entry`);
      if (visit(step) === false || i === n - 1) return;
    }
  }
}

class TwoLevelIndexReader extends PinnedTopIndex implements IndexReader {
  readonly type: IndexType = "two-level";

  constructor(blocks: TableBlocks, handle: BlockHandle, layout: IndexLayout) {
    super(blocks, handle, layout, BlockKind.TopLevelIndex);
  }

  /** Partitions are index blocks; the top level never carries first keys. */
  private partitionCursor(): BlockCursor {
    return handleCursor(this.layout);
  }

  private readPartition(h: BlockHandle, stats?: LookupStats, lifetime?: BlockLifetime): Block {
    const b = this.blocks.parsed(h, BlockKind.IndexPartition, lifetime);
    countBlockRead(stats, "index", h);
    return b;
  }

  /**
   * A partition for a walk: with `pin` false, in place in the prefetched tail where it lies there.
   * `lifetime` for one read from the file (TableFile.readBlock): "transient" where nothing else is read
   * before the caller is done with it.
   */
  private walkPartition(h: BlockHandle, pin: boolean, lifetime?: BlockLifetime): Block {
    return (
      (!pin && this.blocks.tailParsed(h, BlockKind.IndexPartition)) ||
      this.readPartition(h, undefined, lifetime)
    );
  }

  /** The cursors of seek() (top level, partition), made once. */
  private seekers?: [BlockCursor, BlockCursor];

  seek(key: Buffer, stats?: LookupStats): BlockHandle | undefined {
    const cmp = compareUserKey(key, !this.layout.keyIsUserKey);
    const [top, partition] = (this.seekers ??= [this.partitionCursor(), this.partitionCursor()]);
    const tc = top.reset(this.loadTop(stats));
    if (!this.blocks.guard(BlockKind.TopLevelIndex, this.handle.offset, () => tc.seek(cmp))) return undefined;
    const ph = { offset: tc.handleOffset, size: tc.handleSize };
    const pc = partition.reset(this.readPartition(ph, stats));
    const ok = this.blocks.guard(BlockKind.IndexPartition, ph.offset, () => pc.seek(cmp));
    return ok ? { offset: pc.handleOffset, size: pc.handleSize } : undefined;
  }

  /**
   * The bytes the partitions a walk visits lie in, from the one the top level's entry at or after
   * `cmp` names (the first without) to the table's last: read at once (TableFile.withSpan) where they
   * lie together, as a table writer puts them. Undefined where the top level cannot be walked: the
   * walk itself then reports it, as without this.
   */
  private partitionSpan(top: Block, cmp?: (key: Buffer, len: number) => number): BlockSpan | undefined {
    const c = this.partitionCursor().reset(top);
    const span = new BlockSpan();
    try {
      for (let more = cmp ? c.seek(cmp) : c.next(), n = 0; more; more = c.next()) {
        if (++n > LIMITS.maxBlocksPerTable) return undefined;
        span.add(c.handleOffset, c.handleSize);
      }
    } catch {
      return undefined;
    }
    return span;
  }

  /** `walkParts` with the partitions from `cmp` on read at once where they can be (partitionSpan). */
  private overSpan(
    top: Block,
    cmp: ((key: Buffer, len: number) => number) | undefined,
    walkParts: () => void,
  ): void {
    const span = this.partitionSpan(top, cmp);
    if (span) this.blocks.file.withSpan(span.start, span.end, walkParts);
    else walkParts();
  }

  walk(visit: IndexVisit, opts: WalkOptions = {}): void {
    const pin = opts.pin ?? true;
    const cmp = opts.from ? compareUserKey(opts.from, !this.layout.keyIsUserKey) : undefined;
    const top = this.walkTop(pin);
    this.overSpan(top, cmp, () => this.walkPartitions(top, visit, pin, cmp));
  }

  private walkPartitions(
    top: Block,
    visit: IndexVisit,
    pin: boolean,
    cmp: ((key: Buffer, len: number) => number) | undefined,
  ): void {
    const tc = this.partitionCursor().reset(top);
    // one cursor and step for every partition: a walk over a table of 16,000-byte blocks goes through
    // ~90 partitions in 16 MiB, and a cursor each was a sixth of `inspect --deep`'s reads of them
    const pc = this.partitionCursor();
    const step: IndexStep = { cursor: pc };
    let n = 0;
    // with `from`: the first partition whose separator is ≥ from, then the seek inside it
    let seekTop = cmp !== undefined;
    for (;;) {
      const more = this.blocks.guard(BlockKind.TopLevelIndex, this.handle.offset, () =>
        seekTop ? tc.seek(cmp!) : tc.next(),
      );
      if (!more) return;
      const partition = { offset: tc.handleOffset, size: tc.handleSize };
      const pb = this.walkPartition(partition, pin);
      pc.reset(pb);
      step.partition = partition;
      if (seekTop) {
        seekTop = false;
        if (this.blocks.guard(BlockKind.IndexPartition, partition.offset, () => pc.seek(cmp!))) {
          n++;
          if (visit(step) === false) return;
        }
      }
      while (this.blocks.step(BlockKind.IndexPartition, partition.offset, pc)) {
        if (++n > LIMITS.maxBlocksPerTable) throw pb.corrupt("too many index entries");
        if (visit(step) === false) return;
      }
    }
  }

  tallyHandles(tally: HandleTally, pin = true): void {
    const top = this.walkTop(pin);
    this.overSpan(top, undefined, () => {
      const tc = this.partitionCursor().reset(top);
      const pc = this.partitionCursor();
      while (this.blocks.guard(BlockKind.TopLevelIndex, this.handle.offset, () => tc.next())) {
        const partition = { offset: tc.handleOffset, size: tc.handleSize };
        // tallied before the next block is read: the read's buffer serves the next one (a buffer of
        // its own per partition was fresh memory each time)
        const pb = this.walkPartition(partition, pin, pin ? "owned" : "transient");
        tallyBlock(
          this.blocks,
          BlockKind.IndexPartition,
          partition.offset,
          pb,
          pc.reset(pb),
          tally,
          partition.offset,
        );
      }
    });
  }

  *partitions(): Generator<BlockHandle, void, undefined> {
    const tc = this.partitionCursor().reset(this.loadTop());
    while (this.blocks.guard(BlockKind.TopLevelIndex, this.handle.offset, () => tc.next())) {
      yield { offset: tc.handleOffset, size: tc.handleSize };
    }
  }
}

/**
 * Tally the handles of one index block (or partition) with cursor `c` on it, from `partitionOffset`
 * (-1: single-level): BlockCursor.tallyHandles, and next() for each entry it leaves (refusing a
 * corrupt one as walk() does), with walk()'s limit on a table's index entries.
 */
function tallyBlock(
  blocks: TableBlocks,
  kind: BlockKind,
  offset: number,
  block: Block,
  c: BlockCursor,
  tally: HandleTally,
  partitionOffset: number,
): void {
  const limit = LIMITS.maxBlocksPerTable;
  const before = tally.blocks;
  try {
    for (;;) {
      if (c.tallyHandles(tally, limit) || !blocks.step(kind, offset, c)) return;
      if (tally.blocks >= limit) throw block.corrupt("too many index entries");
      tally.add(c.handleSize);
    }
  } finally {
    // a partition counts once it held a handle, as walk() tells each handle's partition
    if (partitionOffset >= 0 && tally.blocks > before) tally.partitions.add(partitionOffset);
  }
}

/**
 * Visit about `count` of the index's entries spread over the table (IndexReader.sample: every k-th
 * restart point and the last) without decoding the others; false, having visited nothing, when the
 * index cannot be sampled so (two-level, columnar): walk it instead (SstTable.forEachIndexHandle).
 */
export function sampleIndexHandles(
  index: IndexReader,
  count: number,
  visit: (offset: number, size: number, separator: Buffer, separatorLength: number) => void,
  pin = true,
): boolean {
  if (!index.sample) return false;
  index.sample(count, ({ cursor: c }) => visit(c.handleOffset, c.handleSize, c.key, c.keyLength), pin);
  return true;
}
