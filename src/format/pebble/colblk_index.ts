/**
 * Pebble's columnar index blocks ((Pebble,v5)+; sstable/colblk/index_block.go): a columnar block
 * (colblk.ts) of four columns, one row per data block (or, in the top level of a two-level index, per
 * index partition):
 *
 *   separator         bytes  a user key ≥ every key of its block and < every key of the next
 *   offset            uint   the block's handle: offset
 *   length            uint   and length
 *   block properties  bytes  encoded block properties (read past)
 *
 * The reader implements the IndexReader of the row formats (index_reader.ts): a walk step's cursor is
 * a BlockCursor whose key is the separator (a user key: the table's layout says keyIsUserKey) and whose
 * handle is the row's. Seeks compare separators bytewise (the table allows seeks under a bytewise
 * comparator only).
 */
import { LIMITS } from "../../util/limits.js";
import { lowerBound } from "../../util/lower_bound.js";
import { BlockCursor, type HandleTally } from "../block.js";
import { BlockKind, topIndexBlockKind } from "../block_kind.js";
import { blockCorruption } from "../errors.js";
import { BlockSpan, type BlockHandle } from "../handle.js";
import type {
  IndexLayout,
  IndexReader,
  IndexStep,
  IndexType,
  IndexVisit,
  WalkOptions,
} from "../index_reader.js";
import { countBlockRead, type LookupStats } from "../read_stats.js";
import type { TableBlocks } from "../table_blocks.js";
import { ColumnarBlock, type RawBytes, type Uints } from "./colblk.js";

const INDEX_COLUMNS = 4;

/** One decoded columnar index block. */
class IndexBlock {
  readonly rows: number;
  private readonly data: Buffer;
  private readonly separators: RawBytes;
  private readonly offsets: Uints;
  private readonly lengths: Uints;

  constructor(data: Buffer) {
    const b = new ColumnarBlock(data, 0);
    if (b.columns !== INDEX_COLUMNS) throw new RangeError(`index block of ${b.columns} columns (expected 4)`);
    if (b.rows > LIMITS.maxBlocksPerTable) throw new RangeError(`index block of ${b.rows} rows`);
    this.data = data;
    this.rows = b.rows;
    this.separators = b.rawBytes(0);
    this.offsets = b.uints(1);
    this.lengths = b.uints(2);
    b.rawBytes(3);
  }

  /** Put row i's separator and handle into the cursor. */
  set(c: BlockCursor, i: number): void {
    const sep = this.separators;
    sep.bounds(i);
    const s = sep.s;
    const e = sep.e;
    if (c.key.length < e - s) c.key = Buffer.allocUnsafe(Math.max(e - s, c.key.length * 2));
    this.data.copy(c.key, 0, s, e);
    c.keyLength = e - s;
    c.handleOffset = this.offsets.at(i);
    c.handleSize = this.lengths.at(i);
  }

  /** The first row whose separator is ≥ key (bytewise); rows when none is. */
  seek(key: Buffer): number {
    const sep = this.separators;
    const data = this.data;
    return lowerBound(this.rows, (i) => {
      sep.bounds(i);
      return data.compare(key, 0, key.length, sep.s, sep.e) < 0;
    });
  }
}

/** The index reader of a columnar table: single-level (index type 0) or two-level (2). */
export class ColumnarIndexReader implements IndexReader {
  readonly type: IndexType;
  readonly layout: IndexLayout = { keyIsUserKey: true, valueDeltaEncoded: false };
  private top?: IndexBlock;

  constructor(
    private readonly blocks: TableBlocks,
    readonly handle: BlockHandle,
    twoLevel: boolean,
  ) {
    this.type = twoLevel ? "two-level" : "binary-search";
  }

  private read(h: BlockHandle, kind: BlockKind): IndexBlock {
    const data = this.blocks.read(h, kind);
    return this.blocks.guard(kind, h.offset, () => new IndexBlock(data));
  }

  private loadTop(stats?: LookupStats): IndexBlock {
    if (!this.top) {
      this.top = this.read(this.handle, topIndexBlockKind(this.type));
      countBlockRead(stats, "index", this.handle);
    }
    return this.top;
  }

  private guarded<T>(kind: BlockKind, h: BlockHandle, fn: () => T): T {
    return this.blocks.guard(kind, h.offset, fn);
  }

  seek(key: Buffer, stats?: LookupStats): BlockHandle | undefined {
    const top = this.loadTop(stats);
    const c = new BlockCursor();
    const i = this.guarded(topIndexBlockKind(this.type), this.handle, () => top.seek(key));
    if (i >= top.rows) return undefined;
    this.guarded(topIndexBlockKind(this.type), this.handle, () => top.set(c, i));
    if (this.type !== "two-level") return { offset: c.handleOffset, size: c.handleSize };
    const ph = { offset: c.handleOffset, size: c.handleSize };
    const part = this.read(ph, BlockKind.IndexPartition);
    countBlockRead(stats, "index", ph);
    const j = this.guarded(BlockKind.IndexPartition, ph, () => part.seek(key));
    if (j >= part.rows) return undefined;
    this.guarded(BlockKind.IndexPartition, ph, () => part.set(c, j));
    return { offset: c.handleOffset, size: c.handleSize };
  }

  walk(visit: IndexVisit, opts: WalkOptions = {}): void {
    const from = opts.from;
    const top = this.loadTop();
    const topStart = from ? this.guarded(topIndexBlockKind(this.type), this.handle, () => top.seek(from)) : 0;
    if (this.type !== "two-level") {
      const step: IndexStep = { cursor: new BlockCursor({ index: true }) };
      for (let i = topStart; i < top.rows; i++) {
        this.guarded(topIndexBlockKind(this.type), this.handle, () => top.set(step.cursor, i));
        if (visit(step) === false) return;
      }
      return;
    }
    const tc = new BlockCursor({ index: true });
    // the partitions lie together before the top level: read at once (TableFile.withSpan), as the
    // block-based two-level reader reads them (index_reader.ts partitionSpan); a top level that cannot
    // be read through is walked as it is, and the walk reports where
    let span = new BlockSpan();
    try {
      for (let p = topStart; p < top.rows; p++) {
        top.set(tc, p);
        span.add(tc.handleOffset, tc.handleSize);
      }
    } catch {
      span = new BlockSpan();
    }
    this.blocks.file.withSpan(span.start, span.end, () =>
      this.walkPartitions(top, topStart, tc, visit, from),
    );
  }

  private walkPartitions(
    top: IndexBlock,
    topStart: number,
    tc: BlockCursor,
    visit: IndexVisit,
    from: Buffer | undefined,
  ): void {
    let n = 0;
    for (let p = topStart; p < top.rows; p++) {
      this.guarded(BlockKind.TopLevelIndex, this.handle, () => top.set(tc, p));
      const partition = { offset: tc.handleOffset, size: tc.handleSize };
      const part = this.read(partition, BlockKind.IndexPartition);
      const step: IndexStep = { cursor: new BlockCursor({ index: true }), partition };
      const start =
        from && p === topStart ? this.guarded(BlockKind.IndexPartition, partition, () => part.seek(from)) : 0;
      for (let i = start; i < part.rows; i++) {
        if (++n > LIMITS.maxBlocksPerTable)
          throw blockCorruption(
            this.blocks.path,
            BlockKind.IndexPartition,
            partition.offset,
            "too many index entries",
          );
        this.guarded(BlockKind.IndexPartition, partition, () => part.set(step.cursor, i));
        if (visit(step) === false) return;
      }
    }
  }

  tallyHandles(tally: HandleTally): void {
    this.walk(({ cursor, partition }) => tally.add(cursor.handleSize, partition ? partition.offset : -1));
  }

  *partitions(): Generator<BlockHandle, void, undefined> {
    if (this.type !== "two-level") return;
    const top = this.loadTop();
    const c = new BlockCursor({ index: true });
    for (let p = 0; p < top.rows; p++) {
      this.guarded(BlockKind.TopLevelIndex, this.handle, () => top.set(c, p));
      yield { offset: c.handleOffset, size: c.handleSize };
    }
  }
}
