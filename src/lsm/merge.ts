/**
 * Newest-version merge of one column family's sorted runs, over a user-key range [lo, hi): a k-way merge
 * of sorted runs (each L0 file on its own, each deeper level's files concatenated in key order, plus the
 * memtable layer replayed from the WALs), ordered like internal keys — user key ascending, sequence
 * number descending — so the first entry seen for a user key is its newest version. Memory: one data
 * block per run plus a tree of losers over the runs (merge_runs.ts). Used by `sizes` (sizes and counts
 * only) and the compact digest (values): mergeNewest() tells each entry's fate, the caller decides what
 * to do with it.
 *
 * A run restricted to [lo, hi) skips files whose key range (from the MANIFEST) ends below lo, seeks
 * each table's index to lo (the first separator ≥ lo: separators are ≥ every key of their block),
 * skips entries below lo, and ends at the first key ≥ hi or the first file that starts at or after
 * hi. Each data block is counted (bytes, ratio) by exactly one range: the one holding the block's first
 * key, so ranges processed by different workers add up to the whole column family.
 */
import { goneTolerated, isFileGone, noteGone } from "./gone.js";
import { SstTable, type DataBlockReader } from "../format/table.js";
import { openLeanTable, type LeanTable } from "./lean_table.js";
import { DataCursor, writtenValueLength, type DataEntryCursor } from "../format/data_block.js";
import { PackedIndex } from "../format/packed_index.js";
import { TableCache, uncachedTables, type TableSource } from "./table_cache.js";
import type { BlockHandle } from "../format/handle.js";
import { internalKeySeqno } from "../base/internal_key.js";
import { bySmallestKey } from "./version.js";
import { compareMemKey, type MemEntries } from "../datadir/memtable.js";
import { expectedFileSize } from "../datadir/model.js";
import { keyPrefix, LoserTree, mergeRuns, prefixNumber, type MergeSink, type Run } from "./merge_runs.js";
import { compareBytewise } from "../base/comparator.js";

export { keyPrefix, mergeRuns, prefixNumber, type MergeSink, type Run };

/**
 * Who is told of each data block a run reads, and who gets each merged entry: objects with a method
 * rather than callbacks, because every scan task would bring a new closure to the same call sites, and
 * V8 threw away its optimised merge loop at the start of each task ("wrong call target" in
 * --trace-deopt); on two busy cores the re-compilation competes with the scan itself.
 */
export interface BlockSink {
  /** `e` is re-filled for the next block: valid during the call only. */
  block(e: BlockEvent): void;
  /**
   * The run has left the table at `path` (read to its end, or closed): progress counted in file bytes
   * takes the rest of the file here (index, filter, properties, footer), which no block event covers.
   */
  tableLeft?(path: string): void;
}

export interface BlockEvent {
  path: string;
  handle: BlockHandle;
  /** Uncompressed block bytes. */
  logical: number;
  /** The block's first key lies in this range: count it. */
  counted: boolean;
}

/**
 * A run reads its tables front to back: 256 KiB per read call instead of one call per data block
 * (sizes --full on a 86 MiB LZ4 store, 16 KiB blocks: ~5,500 -> ~350 reads).
 */
const SCAN_READ_AHEAD = 256 * 1024;

/**
 * Read-ahead bytes of all the runs of one merge together. A merge keeps every run's current table
 * open at once, so over thousands of L0 files (a bulk load with auto-compaction off) full windows
 * would hold hundreds of MiB (sizes --full on 2,321 L0 tables: peak RSS 306 MiB with 256 KiB windows,
 * 204 MiB with 16 KiB, same time); beyond 128 runs each run's window shrinks to its share.
 */
const MERGE_READ_AHEAD_TOTAL = 32 * 1024 * 1024;

/** The read-ahead window of each run in a merge of `runs` runs (see MERGE_READ_AHEAD_TOTAL). */
export function mergeReadAhead(runs: number): number {
  return Math.min(SCAN_READ_AHEAD, Math.floor(MERGE_READ_AHEAD_TOTAL / Math.max(1, runs)));
}

/**
 * Whether a merge of `runs` runs reads its tables lean (TableRun's `lean`: see there), and so can take
 * tables opened ahead of it (lean_table.ts).
 */
export function leanRuns(runs: number): boolean {
  return mergeReadAhead(runs) < SCAN_READ_AHEAD;
}

/** Tables a scanning thread keeps open between key ranges (a few per sorted run). */
const IDLE_SCAN_TABLES = 64;

/** The table cache of one scanning thread (the main thread's and each worker's). */
export function scanTableCache(): TableCache {
  // every block read is checked, as RocksDB does with verify_checksums: damage is an error, not a size
  return new TableCache({ readAhead: SCAN_READ_AHEAD, verifyChecksums: true }, IDLE_SCAN_TABLES);
}

/** One file of a sorted run, with its user-key range and size from the MANIFEST when known. */
export interface RunFile {
  path: string;
  smallestHex?: string;
  largestHex?: string;
  /** The file's size in its MANIFEST entry: a lean run's open confirms it instead of an fstat. */
  size?: number;
}

/** Sorted, non-overlapping files (one level) or a single L0 file, read block by block. */
export class TableRun implements Run {
  key: Uint8Array = Buffer.alloc(0);
  keyView: DataView<ArrayBufferLike> = new DataView(new ArrayBuffer(0));
  ukLen = 0;
  pfxHi = 0;
  pfxLo = 0;
  pfx = 0;
  type = 0;
  data: Uint8Array = Buffer.alloc(0);
  vOff = 0;
  vLen = 0;
  vSize = 0;
  path: string | undefined;
  block: BlockHandle | undefined;

  /**
   * Decoded from the key when asked: the merge needs it only for equal user keys and range
   * tombstones, so most entries never pay for it.
   */
  get seqno(): number {
    return internalKeySeqno(this.key, this.ukLen + 8);
  }

  /** What `blocks` is told of each block read: one object re-filled per block (valid during the call). */
  private readonly event: BlockEvent = {
    path: "",
    handle: { offset: 0, size: 0 },
    logical: 0,
    counted: false,
  };
  private fileIdx = -1;
  /** The current table, held until the run leaves it (from `tables`; undefined in a lean run)... */
  private table: SstTable | undefined;
  /** ...and its data-block reader (in a lean run, what is kept of the table: see `lean`). */
  private reader: DataBlockReader | undefined;
  /** The current table's data blocks from lo on (up to the first that reaches hi), and the next one. */
  private index: PackedIndex | undefined;
  private indexPos = 0;
  private cursor: DataEntryCursor | undefined;
  /** The current table's cursor, loaded with each of its blocks in turn (cursor is it, or undefined). */
  private tableCursor: DataEntryCursor | undefined;
  private done = false;
  /** The buffer keyView views: the cursor's key buffer, viewed again when the cursor replaces it. */
  private keyViewOf: Uint8Array | undefined;
  /** The current block may hold keys ≥ hi: check every entry. */
  private checkHi = false;
  /** lo and hi in hex, to compare with the files' key ranges (hex order is byte order). */
  private loHex: string | undefined;
  private readonly hiHex: string | undefined;
  /**
   * A run of a merge over many runs (its read-ahead shrunk below the full window: mergeReadAhead())
   * keeps of its current table only the file and the data-block handles (a LeanTable), taken from
   * `tables` when it was opened ahead (TableSource.takeOpened), else opened by the run itself: over an
   * L0 pile-up every run has a table open at once, and the tables' metadata (properties, metaindex)
   * made most of the merge's memory. Descriptors are bounded by TableFile either way.
   */
  private readonly lean: boolean;

  constructor(
    private readonly files: readonly RunFile[],
    private lo: Buffer | undefined,
    private readonly hi: Buffer | undefined,
    private readonly blocks: BlockSink,
    private readonly tables: TableSource = uncachedTables({ readAhead: SCAN_READ_AHEAD }),
    /** Read-ahead window of this run's tables (mergeReadAhead() of the merge's run count). */
    private readonly readAhead?: number,
  ) {
    this.loHex = lo?.toString("hex");
    this.hiHex = hi?.toString("hex");
    this.lean = readAhead !== undefined && readAhead < SCAN_READ_AHEAD;
  }

  private openNext(): boolean {
    this.closeTable();
    while (++this.fileIdx < this.files.length) {
      const f = this.files[this.fileIdx]!;
      // the run's files are sorted and disjoint: once one starts at or after hi, so do the rest
      if (this.hiHex !== undefined && f.smallestHex !== undefined && f.smallestHex >= this.hiHex) break;
      if (this.loHex !== undefined && f.largestHex !== undefined && f.largestHex < this.loHex) continue;
      let t: SstTable | LeanTable;
      try {
        t = this.lean
          ? (this.tables.takeOpened?.(f.path) ??
            openLeanTable(f.path, f.size, this.readAhead!, this.lo, this.hi, (o) => this.tables.prepare?.(o)))
          : this.tables.acquire(f.path, this.readAhead);
      } catch (e) {
        // deleted since the version was read (a live node compacted it): skipped, and noted
        if (!goneTolerated() || !isFileGone(e)) throw e;
        noteGone(f.path);
        continue;
      }
      this.path = t.path;
      this.indexPos = 0;
      this.checkHi = false;
      if (t instanceof SstTable) {
        this.tables.prepare?.(t);
        try {
          this.index = this.blockList(t);
        } catch (err) {
          this.tables.release(t);
          throw err;
        }
        this.reader = t.dataBlockReader();
        this.table = t;
      } else {
        this.index = t.index;
        this.reader = t.reader;
      }
      const c = this.reader.newCursor();
      // a key buffer of its own: a slice of Node's shared 8 KiB pool would keep the whole pool chunk
      // alive while the run is on this table (a chunk per run of a merge over an L0 pile-up)
      if (c instanceof DataCursor) c.key = Buffer.allocUnsafeSlow(256);
      this.tableCursor = c;
      return true;
    }
    this.fileIdx = this.files.length;
    return false;
  }

  /** The table's data blocks from the one that may hold lo, up to the first whose separator reaches hi. */
  private blockList(t: SstTable): PackedIndex {
    // packed straight from the index walk: no entry object or separator copy per data block
    return t.packedIndex(this.lo, this.hi);
  }

  private closeTable(): void {
    if (this.reader) this.blocks.tableLeft?.(this.path!);
    // a table from `tables` goes back with its file; a lean run's reader owns the file
    if (this.table) this.tables.release(this.table);
    else this.reader?.close();
    this.table = undefined;
    this.reader = undefined;
    this.index = undefined;
    this.cursor = undefined;
    this.tableCursor = undefined;
  }

  rest(): void {
    this.reader?.rest();
  }

  /** Load the next data block in range; false at the end of the run. */
  private nextBlock(): boolean {
    for (;;) {
      if (!this.index && !this.openNext()) return false;
      const idx = this.index!;
      if (this.indexPos >= idx.count) {
        this.index = undefined;
        continue;
      }
      const i = this.indexPos++;
      const lo = this.lo;
      if (lo !== undefined && idx.compare(i, lo) < 0) continue; // whole block below lo
      // the block before reached hi (its separator ≥ hi, and every key of this block lies above that
      // separator): nothing from here on is in range (a table opened ahead lists all its blocks)
      if (this.checkHi) return false;
      // the separator is ≥ every key of its block: below hi, no entry of the block needs the hi check
      this.checkHi = this.hi !== undefined && idx.compare(i, this.hi) >= 0;
      const handle = idx.handle(i);
      const c = this.tableCursor!;
      // one read buffer per table (the reader's "scratch" reads): a fresh buffer per block made two
      // scanning threads contend on allocation so badly that the second gained nothing (measured:
      // 50 ms -> 144 ms per table per thread); a run reads its next block only after leaving this one
      const logical = this.reader!.load(c, handle);
      if (!c.next()) continue; // empty block
      const first = c.key;
      const fl = c.keyLength - 8;
      const hi = this.hi;
      if (hi !== undefined && compareBytewise(first, 0, fl, hi, 0, hi.length) >= 0) return false;
      const counted = lo === undefined || compareBytewise(first, 0, fl, lo, 0, lo.length) >= 0;
      this.block = handle;
      const e = this.event;
      e.path = this.path!;
      e.handle = handle;
      e.logical = logical;
      e.counted = counted;
      this.blocks.block(e);
      this.cursor = c;
      // skip entries below lo (only in the block that straddles lo)
      if (!counted) {
        while (compareBytewise(c.key, 0, c.keyLength - 8, lo!, 0, lo!.length) < 0) {
          if (!c.next()) {
            this.cursor = undefined;
            break;
          }
        }
        if (!this.cursor) continue;
      }
      return true;
    }
  }

  private load(): boolean {
    const c = this.cursor!;
    const kl = c.keyLength;
    if (kl < 8) throw new RangeError(`internal key of ${kl} bytes`);
    if (this.checkHi && compareBytewise(c.key, 0, kl - 8, this.hi!, 0, this.hi!.length) >= 0) return false;
    const k = c.key;
    this.key = k;
    this.ukLen = kl - 8;
    let v = this.keyView;
    if (this.keyViewOf !== k) {
      v = this.keyView = new DataView(k.buffer, k.byteOffset, k.byteLength);
      this.keyViewOf = k;
    }
    if (kl >= 16) {
      // keyPrefix() for a key of 8 bytes or more: two loads through the view instead of eight byte loads
      const hi = v.getUint32(0);
      const lo = v.getUint32(4);
      this.pfxHi = hi;
      this.pfxLo = lo;
      this.pfx = hi * 4294967296 + lo;
    } else keyPrefix(this);
    this.type = k[kl - 8]!;
    this.data = c.data;
    this.vOff = c.valueOffset;
    this.vLen = c.valueLength;
    this.vSize = writtenValueLength(c);
    return true;
  }

  advance(): boolean {
    if (this.again) {
      this.again = false;
      return true;
    }
    if (this.done) return false;
    if (this.cursor) {
      if (this.cursor.next()) {
        if (this.load()) return true;
        return this.finish();
      }
      this.cursor = undefined;
    }
    if (this.nextBlock() && this.load()) return true;
    return this.finish();
  }

  private finish(): boolean {
    this.done = true;
    this.closeTable();
    return false;
  }

  /** The entry seek() left the run on is the next advance()'s. */
  private again = false;

  /**
   * Move on to the first entry at or past `target`, which the next advance() gives: the entry the
   * last advance() gave when it lies there already, else the next ones of its block, else from the
   * first block and table that may hold `target` (nextBlock skips those below lo). Forward only: a
   * target before the run's position finds that position.
   */
  seek(target: Buffer): void {
    this.lo = target;
    this.loHex = target.toString("hex");
    if (this.done) return;
    const c = this.cursor;
    if (c !== undefined) {
      if (compareBytewise(this.key, 0, this.ukLen, target, 0, target.length) >= 0) {
        this.again = true;
        return;
      }
      while (c.next())
        if (compareBytewise(c.key, 0, c.keyLength - 8, target, 0, target.length) >= 0) {
          this.again = this.load() || this.finish();
          return;
        }
      this.cursor = undefined;
    }
    this.again = (this.nextBlock() && this.load()) || this.finish();
  }

  close(): void {
    this.done = true;
    this.closeTable();
  }
}

/** The WAL layer: its sorted entries (memtable.ts MemEntries, already restricted to the range). */
export class MemRun implements Run {
  key: Uint8Array = Buffer.alloc(0);
  keyView: DataView<ArrayBufferLike> = new DataView(new ArrayBuffer(0));
  ukLen = 0;
  pfxHi = 0;
  pfxLo = 0;
  pfx = 0;
  seqno = 0;
  type = 0;
  data: Uint8Array = Buffer.alloc(0);
  vOff = 0;
  vLen = 0;
  vSize = 0;
  path: string | undefined = undefined;
  block: BlockHandle | undefined = undefined;
  private i: number;
  constructor(private readonly entries: MemEntries) {
    this.i = entries.from - 1;
    // a value is read where it lies in the columns' bytes
    this.data = entries.bytes;
  }

  /** Move on to the first entry at or past `target` (the one last given, if it is): advance() gives it. */
  seek(target: Buffer): void {
    const m = this.entries;
    let i = Math.max(this.i, m.from);
    while (i < m.to && compareMemKey(m, i, target) < 0) i++;
    this.i = i - 1;
  }
  advance(): boolean {
    const m = this.entries;
    const i = ++this.i;
    if (i >= m.to) return false;
    const bytes = m.bytes;
    const at = bytes.byteOffset + m.keyAt[i]!;
    const len = m.keyLen[i]!;
    this.key = Buffer.from(bytes.buffer, at, len);
    this.keyView = new DataView(bytes.buffer, at, len);
    this.ukLen = len;
    keyPrefix(this);
    this.seqno = m.seqno[i]!;
    this.type = m.type[i]!;
    this.vOff = m.valueAt[i]!;
    this.vLen = m.valueLen[i]!;
    this.vSize = this.vLen;
    return true;
  }
  close(): void {
    this.i = this.entries.to;
  }
}

/** What levelRuns() needs of a table's MANIFEST entry (SstFileModel has it). */
interface RunSource {
  path: string;
  smallestKey: string;
  largestKey: string;
  fileSize?: number;
  virtualBacking?: number;
}

/** Runs of one column family: each L0 file alone, each deeper level's files sorted by smallest key. */
export function levelRuns(levels: { level: number; files: RunSource[] }[]): RunFile[][] {
  const runs: RunFile[][] = [];
  const runFile = (f: RunSource): RunFile => ({
    path: f.path,
    smallestHex: f.smallestKey,
    largestHex: f.largestKey,
    size: expectedFileSize(f),
  });
  for (const lvl of levels) {
    if (lvl.files.length === 0) continue;
    if (lvl.level === 0) for (const f of lvl.files) runs.push([runFile(f)]);
    else {
      const sorted = [...lvl.files].sort(bySmallestKey);
      runs.push(sorted.map(runFile));
    }
  }
  return runs;
}

export interface RangeTombstone {
  start: Uint8Array;
  end: Uint8Array;
  seqno: number;
}

/** What the merge found an entry to be. */
export const Fate = {
  /** An older version of the user key just visited: hidden by it. */
  Shadowed: 0,
  /** The newest version of its user key, covered by a range tombstone with a higher sequence number. */
  RangeDeleted: 1,
  /** The newest version of its user key, not range-deleted (point tombstones included: see its type). */
  Newest: 2,
} as const;
export type Fate = (typeof Fate)[keyof typeof Fate];

/** Gets every entry of mergeNewest() with its fate; the run is valid during the call only. */
export interface NewestVisitor {
  visit(r: Run, fate: Fate): void;
}

/**
 * Whether a range tombstone [start, end) at sequence s covers the entry of user key key[0, len) at
 * `seqno`: start ≤ the key < end, and seqno below s.
 */
export function rangeDeletedKey(
  rangeDels: readonly RangeTombstone[],
  key: Uint8Array,
  len: number,
  seqno: number,
): boolean {
  for (const rd of rangeDels) {
    if (
      rd.seqno > seqno &&
      compareBytewise(rd.start, 0, rd.start.length, key, 0, len) <= 0 &&
      compareBytewise(key, 0, len, rd.end, 0, rd.end.length) < 0
    )
      return true;
  }
  return false;
}

/** Tells each merged entry's fate from the previous user key and the range tombstones. */
class NewestFilter implements MergeSink {
  /**
   * The previous user key: its length, its first 8 bytes as the run's prefix numbers (Run.pfxHi and
   * pfxLo, zero-padded), and its bytes from the 8th on in `prevTail`. Length and prefix numbers alone
   * tell most new keys (and every key under 8 bytes) apart; the rest is compared and copied four
   * bytes at a time (bytewise, the copy was ~7% of a scan's CPU over 20-byte keys).
   */
  private prevTail = Buffer.allocUnsafeSlow(256);
  private prevView = new DataView(this.prevTail.buffer, 0, this.prevTail.length);
  private prevLen = -1;
  private prevHi = 0;
  private prevLo = 0;

  constructor(
    private readonly rangeDels: readonly RangeTombstone[],
    private readonly visitor: NewestVisitor,
  ) {}

  entry(r: Run): void {
    const kl = r.ukLen;
    const hi = r.pfxHi;
    const lo = r.pfxLo;
    if (this.prevLen === kl && hi === this.prevHi && lo === this.prevLo) {
      // same length and first 8 bytes (all of a shorter key): compare the rest
      if (this.sameTail(r, kl)) {
        this.visitor.visit(r, Fate.Shadowed);
        return;
      }
    } else {
      if (kl - 8 > this.prevTail.length) {
        this.prevTail = Buffer.allocUnsafeSlow(Math.max(kl, this.prevTail.length * 2));
        this.prevView = new DataView(this.prevTail.buffer, 0, this.prevTail.length);
      }
      this.prevLen = kl;
      this.prevHi = hi;
      this.prevLo = lo;
    }
    this.copyTail(r, kl);
    const rangeDels = this.rangeDels;
    const deleted = rangeDels.length > 0 && rangeDeletedKey(rangeDels, r.key, kl, r.seqno);
    this.visitor.visit(r, deleted ? Fate.RangeDeleted : Fate.Newest);
  }

  /** r's user key from byte 8 to kl equals prevTail's first kl - 8 bytes. */
  private sameTail(r: Run, kl: number): boolean {
    const v = r.keyView;
    const pv = this.prevView;
    let i = 8;
    for (; i + 4 <= kl; i += 4) if (v.getInt32(i) !== pv.getInt32(i - 8)) return false;
    const key = r.key;
    const tail = this.prevTail;
    for (; i < kl; i++) if (key[i] !== tail[i - 8]) return false;
    return true;
  }

  /** Copy r's user key from byte 8 to kl into prevTail. */
  private copyTail(r: Run, kl: number): void {
    const v = r.keyView;
    const pv = this.prevView;
    let i = 8;
    for (; i + 4 <= kl; i += 4) pv.setInt32(i - 8, v.getInt32(i));
    const key = r.key;
    const tail = this.prevTail;
    for (; i < kl; i++) tail[i - 8] = key[i]!;
  }
}

/**
 * Merge the runs and give `visitor` every entry in internal-key order with its fate. A range tombstone
 * [start, end) at sequence s covers user keys start ≤ k < end of entries with sequence < s.
 */
export function mergeNewest(runs: Run[], rangeDels: readonly RangeTombstone[], visitor: NewestVisitor): void {
  mergeRuns(runs, new NewestFilter(rangeDels, visitor));
}

/**
 * Pull form of mergeNewest(): each next() gives the following entry in internal-key order (valid until
 * the next call) and sets `fate`. For walking two stores in step (diff), where one push-driven merge
 * cannot wait for the other. The same order and fate rules as mergeRuns()/NewestFilter.
 */
export class NewestCursor implements NewestVisitor {
  fate: Fate = Fate.Newest;
  /**
   * The same tree of losers as mergeRuns: a binary heap here took ~9 of the ~30 s of `diff` of a
   * 4,865-table L0 pile-up against itself in its comparisons (two a level, each reading two runs).
   */
  private tree: LoserTree;
  private filter: NewestFilter;
  private started = false;

  constructor(
    private readonly runs: Run[],
    private readonly rangeDels: readonly RangeTombstone[],
  ) {
    this.tree = new LoserTree(runs);
    this.filter = new NewestFilter(rangeDels, this);
  }

  /**
   * Go on from the first key at or past `target` (every run seeks, Run.seek): the next next() gives
   * its newest version. `target` must lie at or past every entry next() gave since the last seek but
   * the last one, which is still its run's position: then every version of a key at or past `target`
   * lies ahead in its run, the tree is played again from the runs' new positions and the fates start
   * afresh.
   */
  seek(target: Buffer): void {
    for (const r of this.runs) {
      if (r.seek === undefined) throw new Error("a run that cannot seek");
      r.seek(target);
    }
    this.tree = new LoserTree(this.runs);
    this.filter = new NewestFilter(this.rangeDels, this);
    this.started = false;
  }

  visit(_r: Run, fate: Fate): void {
    this.fate = fate;
  }

  next(): Run | undefined {
    const tree = this.tree;
    if (this.started && tree.top() !== undefined) tree.advanceTop();
    this.started = true;
    const top = tree.top();
    if (top === undefined) return undefined;
    this.filter.entry(top);
    return top;
  }
}
