/**
 * Positioned reads of one table file and the block trailer (table/format.cc ReadBlock, BlockFetcher).
 *
 * Every block of a block-based or LevelDB table is stored as
 *   block bytes [handle.size] | compression type [1] | checksum fixed32 [4]
 * The checksum covers the block bytes and the type byte (see checksum.ts); from format_version 6 it
 * carries a context modifier of the block's offset. After the check, the payload is decompressed
 * (compression.ts).
 *
 * One file descriptor, synchronous `fs.readSync` at explicit positions: metadata takes a handful of
 * small reads and a scan reuses one scratch buffer. Synchronous because every caller (CLI, probes,
 * worker threads) reads one table at a time and the async fs API costs a thread-pool hop per block.
 */
import { throttleRead } from "../util/throttle.js";
import type { ReadTail } from "../util/tail_batches.js";
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { tableDescriptorBudget } from "../util/open_files.js";
import {
  holdDescriptor,
  markRead,
  tableDescriptorsInUse,
  unlinkHeld,
  type HeldFile,
} from "./held_descriptors.js";

export { tableDescriptorsInUse, tableDescriptorsOpened } from "./held_descriptors.js";
// not openRegularFile: with the size expected, a table is opened without an fstat (the constructor);
// a FIFO then fails as not a regular file or at its first read
import { OPEN_FOR_READING, statRegularFile } from "../util/regular_file.js";
import { CorruptionError, fromFsError, LsmscopeError } from "../util/errors.js";
import { BlockCorruptionError } from "./errors.js";
import { LIMITS } from "../util/limits.js";
import { readFixed32 } from "../util/coding.js";
import { BLOCK_TRAILER_SIZE, type BlockHandle } from "./handle.js";
import { ChecksumType, CHECKSUM_NAMES } from "../base/checksum_type.js";
import { CompressionType, compressionName } from "../base/compression_type.js";
import { checksumModifierForContext, computeChecksumRange } from "./checksum.js";
import { atLeast, tableBuffer, toTransientOutput, transientBlock } from "./block_buffers.js";
import {
  BLOCK_HEADROOM,
  type BlockOutput,
  type Codecs,
  DecompressError,
  decompressBlock,
} from "./compression.js";

/** The tail buffer of the last table closed on this thread, for the next prefetchTail(). */
let spareTail: Buffer | undefined;

/**
 * The most withSpan() reads at once: the index partitions of a table of 256 MiB in 4 KiB blocks
 * (~65,000 entries) take about that. A longer span is read block by block, as without it.
 */
export const SPAN_MOST_BYTES = 4 * 1024 * 1024;

/**
 * withSpan()'s buffer on this thread, kept between spans: a span per table (deep mode opens thousands)
 * in a buffer of its own each was fresh memory each time, a page fault per 4 KiB.
 */
let spanBuffer: Buffer = Buffer.allocUnsafeSlow(0);
/** Whether spanBuffer serves a span now (a span inside another, of another table, takes its own). */
let spanBufferInUse = false;

/**
 * Where TableFile.readBlock puts an uncompressed block (and a compressed block's output, where the block
 * codec helper decompresses it: compression.ts), and so how long its bytes stay valid:
 *  - "owned": a buffer of its own, the caller's to keep (index and filter blocks kept with a table);
 *  - "scratch": this table's scratch buffer, which its next "scratch" or "window" read overwrites (the
 *    full scan's path);
 *  - "window": where it lies in the read-ahead window, checked there, valid until the next read of this
 *    file (else as "scratch"): for a caller that reads nothing else from the file while it uses the
 *    block (a scan of a table whose values all lie in its data blocks);
 *  - "transient": this thread's transient buffer, which the next "transient" read of any table
 *    overwrites: for a caller done with the block before it reads another so (a point lookup, which
 *    copies out the value it finds).
 */
export type BlockLifetime = "owned" | "scratch" | "window" | "transient";

/** Counters of what was read from the file. */
export interface IoStats {
  /** Positioned read calls. */
  reads: number;
  /** Bytes read (block bytes and trailers). */
  bytes: number;
}

export class TableFile implements HeldFile {
  readonly path: string;
  /** The file's size (fstat at open; or the size the caller expected, confirmed by prefetchTail). */
  size: number;
  /** -1 while closed, or while the descriptor is lent back (held_descriptors.ts) */
  private fd: number;
  /** Its neighbours in the list of files holding a descriptor (held_descriptors.ts). */
  olderHeld: HeldFile | undefined = undefined;
  newerHeld: HeldFile | undefined = undefined;
  isHeld = false;
  private closed = false;
  /** Identity of the file opened first: a reopen must find the same file (-1: not asked yet). */
  private ino: number;
  /** Opened with an expected size, not yet confirmed (prefetchTail confirms it or stats the file). */
  private sizeExpected: boolean;
  /**
   * The buffer of "scratch" (and "window") block reads, allocated at the first one and grown as
   * needed: a merge keeps thousands of tables open at once (an L0 pile-up), and most never read a block
   * that large.
   */
  private scratch: Buffer | undefined;
  /** Where "scratch" and "window" reads of a compressed block put its output, as `scratch`. */
  private decompressed: Buffer | undefined;
  private toDecompressed: BlockOutput | undefined;
  readonly io: IoStats = { reads: 0, bytes: 0 };
  checksumType: ChecksumType = ChecksumType.CRC32c;
  baseContextChecksum = 0;
  /** Check every block's trailer checksum (as RocksDB with verify_checksums=true). */
  verifyChecksums = true;
  /** Compression type byte of the last block read by readBlock (its trailer). */
  lastBlockType = 0;
  codecs: Codecs | undefined;
  /** End of the area where blocks may live (the footer offset, once known). */
  blockAreaEnd: number;
  /** The file's last bytes, read at once by prefetchTail(); reads inside them are served from memory. */
  private tail: Buffer | undefined;
  private tailBuffer: Buffer | undefined;
  /**
   * The file's last bytes as read before it was opened (by the read-ahead helper on another thread:
   * util/tail_batches.ts), until the table is closed.
   */
  private preread: Buffer | undefined;
  private tailStart = 0;
  /** The bytes [spanStart, + span.length) while withSpan() runs; reads inside them come from memory. */
  private span: Buffer | undefined;
  private spanStart = 0;
  /** Read-ahead window of sequential scans (readAhead()): the bytes [windowStart, + windowLen). */
  private windowSize = 0;
  private window: Buffer | undefined;
  private windowStart = 0;
  private windowLen = 0;

  /**
   * `expectedSize`: the size the file should have; no fstat now, the first prefetchTail() confirms it
   * (reading one byte past it) or stats the file and goes on as without it. Inspecting thousands of
   * tables, the fstat was a call and ~0.9 KiB of garbage (a Stats object and its Dates) per table.
   */
  constructor(path: string, expectedSize?: number, preread?: ReadTail) {
    this.path = path;
    if (preread !== undefined) {
      // nothing to open yet: the tail holds the table's metadata, and a read beyond it opens the file
      // then, checking that it is still the one the tail was read from (descriptor())
      this.fd = -1;
      this.size = preread.size;
      this.ino = preread.ino;
      this.sizeExpected = false;
      this.blockAreaEnd = this.size;
      this.preread = preread.tail;
      return;
    }
    let fd = -1;
    try {
      fd = openSync(path, OPEN_FOR_READING);
      this.fd = fd;
      if (expectedSize !== undefined && Number.isSafeInteger(expectedSize) && expectedSize >= 0) {
        this.size = expectedSize;
        this.ino = -1;
        this.sizeExpected = true;
      } else {
        const st = statRegularFile(fd, path);
        this.size = st.size;
        this.ino = st.ino;
        this.sizeExpected = false;
      }
    } catch (err) {
      if (fd >= 0) closeSync(fd);
      throw fromFsError(err) ?? err;
    }
    this.blockAreaEnd = this.size;
    holdDescriptor(this);
  }

  /** The file's size and identity from its descriptor (the open's expected size not confirmed). */
  private statNow(): void {
    try {
      const st = statRegularFile(this.fd, this.path);
      this.size = st.size;
      this.ino = st.ino;
    } catch (err) {
      throw fromFsError(err) ?? err;
    }
    this.sizeExpected = false;
    this.blockAreaEnd = this.size;
  }

  /** Close the descriptor but not the table: the next read from the file opens it again. */
  releaseDescriptor(): void {
    unlinkHeld(this);
    if (this.fd >= 0) {
      // lent back while open: the reopen checks the file's identity, so learn it first
      if (!this.closed && this.ino === -1) this.statNow();
      closeSync(this.fd);
      this.fd = -1;
    }
  }

  /**
   * This file will not be read again before the thread's other files that hold a descriptor have been
   * (a run's turn in a sub-range is over: lsm/newest_by_hash.ts reads the runs one after another, in
   * every sub-range). When those files hold the whole budget, this file's descriptor goes back now:
   * the least recently read file, which the budget would close next, is the next one that cycle reads.
   * Cycling through more files than the budget, least-recently-read closing reopened every file at
   * every turn (`sizes --full` on 5,260 L0 tables under a budget of 5,000 a thread: 37,525 opens);
   * this way all but one of the budget stay open and only the files beyond it are opened again.
   */
  rest(): void {
    if (this.fd >= 0 && tableDescriptorsInUse() >= tableDescriptorBudget()) this.releaseDescriptor();
  }

  /** The descriptor, opened again if it was lent back; the file must be the one first opened. */
  private descriptor(): number {
    if (this.fd >= 0) {
      markRead(this);
      return this.fd;
    }
    let fd = -1;
    try {
      fd = openSync(this.path, OPEN_FOR_READING);
      const st = fstatSync(fd);
      if (st.ino !== this.ino || st.size !== this.size)
        throw new LsmscopeError("the file was replaced while being read", { file: this.path });
    } catch (err) {
      if (fd >= 0) closeSync(fd);
      throw fromFsError(err) ?? err;
    }
    this.fd = fd;
    holdDescriptor(this);
    return fd;
  }

  close(): void {
    this.closed = true;
    // a closed file reads nothing more, and its object may outlive it (a merge's finished run, a table
    // kept by its caller): its buffers go now. A block returned as a view of one keeps what it views
    this.detach();
  }

  /**
   * Let go of what an open file holds (its descriptor, tail and buffers) but stay open: the next read
   * opens the file again, checking it is the same one (descriptor()). For a table kept parsed between
   * readers (lsm/kept_tables.ts).
   */
  detach(): void {
    this.releaseDescriptor();
    this.dropTail();
    this.window = undefined;
    this.windowLen = 0;
    this.scratch = undefined;
    this.decompressed = undefined;
  }

  /**
   * Forget the prefetched tail (its buffer serves the next prefetchTail() on this thread): for a table
   * kept open after its metadata has been read, which would otherwise hold the tail as long as it is.
   */
  dropTail(): void {
    if (this.tailBuffer) spareTail = this.tailBuffer;
    this.tailBuffer = undefined;
    this.tail = undefined;
    this.preread = undefined;
  }

  /**
   * Read the last `bytes` bytes of the file (at most the whole file) in one positioned read; later reads
   * that fall inside them copy from memory (counted neither as reads nor as bytes: the prefetch was).
   * A table's metadata (footer, metaindex, properties, index, filter metadata) sits at its end, so a
   * deep open of a small table takes one read instead of five or six. Returns the prefetched bytes.
   * A table opened from a tail read before (the constructor's `preread`) takes them from there when
   * they reach as far, as one read of as many bytes.
   */
  prefetchTail(bytes: number): Buffer {
    const want = Math.min(this.size, bytes);
    const pre = this.preread;
    if (pre !== undefined && pre.length >= want) {
      // as much of it as asked for, no more: reads beyond are counted as reads, as without it
      const tail = pre.length === want ? pre : pre.subarray(pre.length - want);
      this.tail = tail;
      this.tailStart = this.size - want;
      this.io.reads++;
      this.io.bytes += want;
      throttleRead(want);
      return tail;
    }
    // read before, but less than asked for now (the estimate of how much a table needs has grown)
    this.preread = undefined;
    this.tail = undefined;
    // the last closed table's tail buffer when it fits: blocks read from a tail are copies, so a
    // closed table's tail is free (a fresh buffer per table left ~30 MiB more peak RSS on 6,500 tables)
    const spare = spareTail;
    spareTail = undefined;
    // one byte more than the tail while the size is only expected: reading it confirms the file ends
    const room = Math.min(this.size, bytes) + 1;
    let whole = spare && spare.length >= room ? spare : Buffer.allocUnsafe(room);
    if (this.sizeExpected && !this.tailAtExpectedEnd(whole, room - 1)) this.statNow();
    const len = Math.min(this.size, bytes);
    const start = this.size - len;
    if (whole.length < len) whole = Buffer.allocUnsafe(len);
    const tail = whole.subarray(0, len);
    if (this.sizeExpected) this.sizeExpected = false;
    // raw, not through readInto: that notes the reader's own reach (tailReach), which this is not
    else this.readRaw(tail, 0, len, start);
    this.tail = tail;
    this.tailBuffer = whole;
    this.tailStart = start;
    return tail;
  }

  /**
   * The last `len` bytes of a file of the expected size into `buf`, and whether the file ends there
   * (the byte past them is end of file): counted as one read of `len` bytes. False for a file of any
   * other size, or one that cannot be read this way (a directory): the caller stats it and reads again.
   */
  private tailAtExpectedEnd(buf: Buffer, len: number): boolean {
    if (this.closed) throw new Error(`table ${this.path} is closed`);
    const start = this.size - len;
    let done: number;
    try {
      // one call: a read of a regular file ends short only at the file's end (Linux reads on until
      // the count or the end), so `len` bytes of `len + 1` asked say the file ends there, without a
      // second call to read 0 bytes (~2 µs per table, one pread in three on an L0 pile-up)
      done = readSync(this.descriptor(), buf, 0, len + 1, start);
    } catch {
      return false;
    }
    if (done !== len) return false;
    this.io.reads++;
    this.io.bytes += len;
    throttleRead(len);
    return true;
  }

  /**
   * The reading settings a table is opened with (OpenTableOptions): checksums verified unless turned
   * off, the read-ahead window where one is given. Applied again to a table kept parsed when a new
   * reader takes it (lsm/table_cache.ts), with that reader's settings.
   */
  readWith(opts: { verifyChecksums?: boolean; readAhead?: number }): void {
    this.verifyChecksums = opts.verifyChecksums ?? true;
    if (opts.readAhead !== undefined) this.readAhead(opts.readAhead);
  }

  /**
   * Sequential scans: serve reads shorter than `bytes` from a window of `bytes` read at once from the
   * position of the first miss. A full scan of 16 KiB data blocks then makes one read call per `bytes`
   * instead of one per block (the call, not the copy, is most of a small read's cost).
   */
  readAhead(bytes: number): void {
    this.windowSize = bytes;
  }

  /** The read-ahead window size (0: none). */
  get readAheadBytes(): number {
    return this.windowSize;
  }

  /** Bytes the window's buffer holds (0 before its first fill): what its fills needed, at most its size. */
  get windowBufferBytes(): number {
    return this.window?.length ?? 0;
  }

  /** Bytes the scratch buffer of readBlock's "scratch" reads holds (0 before the first such read). */
  get scratchBufferBytes(): number {
    return this.scratch?.length ?? 0;
  }

  /**
   * The lowest file offset the reader has asked for so far (a block or the footer, whether from the
   * prefetched tail or not; the prefetch itself not): how far from the end its reads reached, which
   * tells the next table's prefetch how much to take (util/tail_estimate.ts). Counting the prefetch made
   * the estimate a ratchet: never below the most it had once prefetched.
   */
  lowestRead = Infinity;

  /** Read exactly `length` bytes at `position` into `buf[at...]`. */
  readInto(buf: Buffer, at: number, length: number, position: number): void {
    if (this.closed) throw new Error(`table ${this.path} is closed`);
    if (position < this.lowestRead) this.lowestRead = position;
    if (position < 0 || position + length > this.size) {
      throw new CorruptionError(
        `read of ${length} bytes at ${position} runs past the end of the file (${this.size} bytes)`,
        this.path,
        position,
      );
    }
    const tail = this.tail;
    if (tail !== undefined && position >= this.tailStart) {
      const from = position - this.tailStart;
      tail.copy(buf, at, from, from + length);
      return;
    }
    const span = this.span;
    if (
      span !== undefined &&
      position >= this.spanStart &&
      position + length <= this.spanStart + span.length
    ) {
      const from = position - this.spanStart;
      span.copy(buf, at, from, from + length);
      return;
    }
    const from = this.windowed(position, length);
    if (from >= 0) {
      this.window!.copy(buf, at, from, from + length);
      return;
    }
    this.readRaw(buf, at, length, position);
  }

  /**
   * Run `fn` with the bytes [start, end) of the file read in one call, and reads that lie inside them
   * served from memory: blocks that lie together and are all about to be read (a two-level index's
   * partitions, written one after another before its top level) take one read instead of one each, as
   * RocksDB's PartitionIndexReader prefetches them (CacheDependencies). A span that the prefetched
   * tail holds already is not read; one that reaches into it is read whole (a block across the tail's
   * start is then in memory too). A span past the block area, or longer than SPAN_MOST_BYTES, is not
   * read: the blocks are read one by one, and checked, as without it.
   */
  withSpan<T>(start: number, end: number, fn: () => T): T {
    const length = end - start;
    if (
      (this.tail !== undefined && start >= this.tailStart) ||
      this.span !== undefined ||
      !(start >= 0 && length > 0 && length <= SPAN_MOST_BYTES && end <= this.blockAreaEnd)
    )
      return fn();
    const own = spanBufferInUse;
    const buf = own
      ? Buffer.allocUnsafeSlow(length)
      : (spanBuffer = atLeast(spanBuffer, length, SPAN_MOST_BYTES));
    spanBufferInUse = true;
    try {
      this.readRaw(buf, 0, length, start);
      this.span = buf.subarray(0, length);
      this.spanStart = start;
      return fn();
    } finally {
      this.span = undefined;
      if (!own) spanBufferInUse = false;
    }
  }

  /**
   * Where the `length` bytes at `position` (inside the file, before the cached tail) are in the
   * read-ahead window, filled from there on a miss; -1 without a window for reads this long.
   */
  private windowed(position: number, length: number): number {
    if (this.windowSize <= length) return -1;
    // a scan whose blocks outgrew the window reads into its scratch buffer (readBlock): its short last
    // block goes there too rather than into a window of its own, one buffer a table. A merge over
    // 10,206 L0 tables (a 3.2 KiB window each, ~4.1 KiB blocks) made 10,206 windows in its last key
    // range, 30 MiB for its last milliseconds
    if (this.window === undefined && this.scratch !== undefined) return -1;
    const ws = this.windowStart;
    if (position < ws || position + length > ws + this.windowLen) {
      // miss: refill from up to BLOCK_HEADROOM bytes before (room for decodeInWindow), never past the
      // end of the file (position + length is inside it) and still covering position + length
      this.windowLen = 0;
      const start = position - Math.min(position, BLOCK_HEADROOM, this.windowSize - length);
      // a window too small to hold the next block as well would read its start now and again with
      // the next miss: read up to this block's end only
      const needed = position + length - start;
      const want = this.windowSize >= 2 * length ? this.windowSize : needed;
      let n = Math.min(want, this.size - start);
      // the buffer holds what the fills need, up to the window's size: a merge over thousands of runs
      // gives each run a share too small for two blocks (32 MiB over 4,884 L0 tables: 6.7 KiB a run),
      // which then fills one block at a time (~4.1 KiB) and left the rest of its share unused but
      // resident (mixed into the pages of the next run's buffer); and a table shorter than the window
      // needs no more than the table. A buffer that holds this read is filled as far as it goes, not
      // grown: a table's short last block, under half such a share, would grow it to the whole share
      // (1,907 of the pile-up's 4,884 windows did) to read ahead into the table's metadata
      if (this.window !== undefined && this.window.length >= needed) n = Math.min(n, this.window.length);
      else this.window = tableBuffer(n, this.windowSize);
      this.readRaw(this.window, 0, n, start);
      this.windowStart = start;
      this.windowLen = n;
    }
    return position - this.windowStart;
  }

  private readRaw(buf: Buffer, at: number, length: number, position: number): void {
    if (this.closed) throw new Error(`table ${this.path} is closed`);
    let done = 0;
    this.io.reads++;
    const fd = this.descriptor();
    while (done < length) {
      const n = readSync(fd, buf, at + done, length - done, position + done);
      if (n <= 0) throw new CorruptionError(`unexpected end of file`, this.path, position + done);
      done += n;
    }
    this.io.bytes += length;
    throttleRead(length);
  }

  /** Read `length` bytes at `position` into a new buffer. */
  read(position: number, length: number): Buffer {
    const buf = Buffer.allocUnsafe(length);
    this.readInto(buf, 0, length, position);
    return buf;
  }

  /** Put before every block kind in errors, e.g. "Pebble table " (a table is named by its family). */
  kindPrefix = "";

  /**
   * Read, check and decompress one block. `kind` names the block in errors ("data", "index", ...);
   * `lifetime` says where the bytes may live (BlockLifetime): a compressed block's output is a new
   * buffer but where the block codec helper decompresses it.
   */
  readBlock(handle: BlockHandle, blockKind: string, lifetime: BlockLifetime = "owned"): Buffer {
    const reuse = lifetime === "scratch" || lifetime === "window";
    const kind = this.kindPrefix + blockKind;
    const { offset, size } = handle;
    if (size > LIMITS.maxBlockBytes) {
      throw new BlockCorruptionError(this.path, kind, offset, `declared size ${size} exceeds the limit`);
    }
    if (offset + size + BLOCK_TRAILER_SIZE > this.blockAreaEnd) {
      throw new BlockCorruptionError(
        this.path,
        kind,
        offset,
        `handle (offset ${offset}, size ${size}) points past the block area (${this.blockAreaEnd} bytes)`,
      );
    }
    // a compressed block of a scan is checked and decompressed where it lies in the read-ahead window
    // (its output goes to the table's own buffer, or a new one): no copy into the scratch buffer first
    if (reuse && !this.closed && (this.tail === undefined || offset < this.tailStart)) {
      const at = this.windowed(offset, size + BLOCK_TRAILER_SIZE);
      if (at >= 0) {
        const compressed = this.window![at + size] !== CompressionType.None;
        if (compressed && at >= BLOCK_HEADROOM) return this.decodeInWindow(at, size, offset, kind, lifetime);
        // nothing to decompress: checked where it lies, without the copy into the scratch buffer
        // (RocksDB keeps a block raw when the codec saves too little: a sixth of the blocks of a
        // db_bench store of 2 M writes, whose copies were ~4% of its scan's CPU profile). Without
        // headroom too, which only a codec needs: the first block of a file lies at the window's
        // start, and a scratch buffer made for it alone stayed as long as the file (an L0 pile-up's
        // merge keeps thousands open: 4,354 x 4 KiB, 17 MiB per scanning thread)
        if (!compressed && lifetime === "window") return this.decode(this.window!, at, size, offset, kind);
      }
    }
    const total = BLOCK_HEADROOM + size + BLOCK_TRAILER_SIZE;
    let buf: Buffer;
    if (reuse) {
      // a buffer of its own: a slice of Node's shared 8 KiB pool (blocks under 4 KiB) would keep the
      // whole pool chunk alive as long as the table (8 KiB per run of a merge over an L0 pile-up)
      buf = this.scratch = atLeast(this.scratch, total);
    } else if (lifetime === "transient") {
      buf = transientBlock(total);
    } else {
      // a buffer of its own: blocks kept with their table (index, filter) as slices of Node's shared
      // 8 KiB pool kept a whole pool chunk alive each (probe's reader path keeps every table open)
      buf = Buffer.allocUnsafeSlow(total);
    }
    this.readInto(buf, BLOCK_HEADROOM, size + BLOCK_TRAILER_SIZE, offset);
    return this.decode(buf, BLOCK_HEADROOM, size, offset, kind, lifetime);
  }

  /** Bytes around a block's start that decodeInWindow puts back after decompressing. */
  private readonly kept = new Uint8Array(2 * BLOCK_HEADROOM);

  /**
   * readBlock's check and decompression of a block at `at` in the window. The codecs may write into
   * the BLOCK_HEADROOM bytes before a payload and its first bytes (LZ4's size prefix over the varint,
   * or over the second half of format 1's 8-byte header); the window serves later reads (a block read
   * again, the next block's trailer), so those bytes are put back.
   */
  private decodeInWindow(
    at: number,
    size: number,
    offset: number,
    kind: string,
    lifetime: BlockLifetime,
  ): Buffer {
    const w = this.window!;
    const from = at - BLOCK_HEADROOM;
    const n = Math.min(this.kept.length, this.windowLen - from);
    const kept = this.kept;
    for (let i = 0; i < n; i++) kept[i] = w[from + i]!;
    try {
      return this.decode(w, at, size, offset, kind, lifetime);
    } finally {
      for (let i = 0; i < n; i++) w[from + i] = kept[i]!;
    }
  }

  /**
   * Check and decompress the block stored at `buf[start, start + size)` with its trailer after it; a
   * compressed block's output lives where `lifetime` says when the block codec helper decompresses it
   * (a buffer of its own through the npm bindings).
   */
  private decode(
    buf: Buffer,
    start: number,
    size: number,
    offset: number,
    kind: string,
    lifetime: BlockLifetime = "owned",
  ): Buffer {
    const end = start + size;
    const type = buf[end]!;
    this.lastBlockType = type;
    if (this.verifyChecksums && this.checksumType !== ChecksumType.None)
      this.verify(buf, start, end, offset, kind);
    if (this.codecs === undefined) throw new Error("codecs not configured");
    try {
      return decompressBlock(this.codecs, type, buf, start, end, this.outputFor(lifetime));
    } catch (err) {
      if (err instanceof DecompressError) {
        throw new BlockCorruptionError(
          this.path,
          kind,
          offset,
          err.message,
          err,
          `(${compressionName(type)}, ${size} bytes)`,
        );
      }
      throw err;
    }
  }

  /** Where a compressed block read with `lifetime` decompresses to (undefined: a buffer of its own). */
  private outputFor(lifetime: BlockLifetime): BlockOutput | undefined {
    if (lifetime === "owned") return undefined;
    if (lifetime === "transient") return toTransientOutput;
    return (this.toDecompressed ??= (size) => (this.decompressed = atLeast(this.decompressed, size)));
  }

  /**
   * readBlock() for a caller that decodes the block at once and keeps nothing of its bytes (the
   * metaindex, the properties): a block stored uncompressed inside the prefetched tail is checked
   * there and returned as a view of it (valid until the table closes), without a buffer of its own.
   * Anything else is read as readBlock() reads it (and fails as it fails).
   */
  readBlockView(handle: BlockHandle, blockKind: string): Buffer {
    return this.tailBlockView(handle, blockKind) ?? this.readBlock(handle, blockKind);
  }

  /**
   * A block stored uncompressed inside the prefetched tail, checked there, as a view of it (valid until
   * the table closes); undefined for any other block, which readBlock() reads (and checks) instead.
   * Neither counts as a read: the tail's read did.
   */
  tailBlockView(handle: BlockHandle, blockKind: string): Buffer | undefined {
    const tail = this.tail;
    const { offset, size } = handle;
    if (
      tail === undefined ||
      offset < this.tailStart ||
      size > LIMITS.maxBlockBytes ||
      offset + size + BLOCK_TRAILER_SIZE > this.blockAreaEnd ||
      this.codecs === undefined
    )
      return undefined;
    const start = offset - this.tailStart;
    const end = start + size;
    if (tail[end] !== CompressionType.None) return undefined;
    if (offset < this.lowestRead) this.lowestRead = offset;
    this.lastBlockType = CompressionType.None;
    if (this.verifyChecksums && this.checksumType !== ChecksumType.None)
      this.verify(tail, start, end, offset, this.kindPrefix + blockKind);
    return tail.subarray(start, end);
  }

  private verify(buf: Buffer, start: number, end: number, offset: number, kind: string): void {
    const stored = readFixed32(buf, end + 1);
    const computed = computeChecksumRange(this.checksumType, buf, start, end + 1);
    const modifier = checksumModifierForContext(this.baseContextChecksum, offset);
    if ((stored - modifier) >>> 0 !== computed) {
      throw new BlockCorruptionError(
        this.path,
        kind,
        offset,
        `${CHECKSUM_NAMES[this.checksumType]} checksum mismatch (stored ${(stored - modifier) >>> 0}, computed ${computed}, size ${end - start})`,
      );
    }
  }
}
