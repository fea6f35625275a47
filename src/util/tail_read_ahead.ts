/**
 * Several file tails read ahead of a synchronous reader, so that a datadir out of the page cache is not
 * read one disk round trip at a time. The table readers are synchronous (format/table_file.ts: one table
 * at a time, no thread-pool hop per block); a table's metadata sits in its last bytes, so having those
 * bytes of the next tables read while the reader works through the current one leaves each table's own
 * read a page-cache hit (or a wait for pages already being read).
 *
 * With the read-ahead helper's readTails, from the first table on, warm or cold: the helper reads the
 * tails on other threads and the reader takes them (util/tail_batches.ts, take()).
 *
 * Without it (a read-rate limit, or no helper), two ways, chosen once the reads look cold (coldFrom):
 * - with the read-ahead helper (util/readahead_helper.ts, native/readahead.c), the kernel is asked to
 *   read the next ADVISE_AHEAD tables' tails (posix_fadvise WILLNEED, ADVISE_BATCH files per call on
 *   one thread of libuv's pool) and the reader never waits on the read-ahead;
 * - without it, the next `window` tails are read through libuv's thread pool (fs.read, 32 reads at
 *   once: bin/load_cli.js) into buffers that are then discarded, and the reader awaits each table's.
 * Each read through the pool wakes a thread and is a request to the disk of its own; on the development
 * machine's virtual disk the 3,235 tables of an L0 pile-up, cold, took `inspect` ~0.29 s more than warm
 * that way (sys time ~0.42 s against ~0.08 s warm, ~7,900 voluntary context switches), ~0.07 s more
 * with the helper (README, Performance: Cold page cache; the measurements in bench/history.md).
 */
import { closeSync, openSync, read } from "node:fs";
import { openFileCacheCapacity } from "./open_files.js";
import { readAheadHelper, type ReadTails, tailReadHelper, type WillNeed } from "./readahead_helper.js";
import { type ReadTail, TailBatches } from "./tail_batches.js";
import { readRateLimit } from "./throttle.js";
import { OPEN_FOR_READING } from "./regular_file.js";

/**
 * Tables read ahead of the reader through the pool: as many reads in flight as libuv's pool has
 * threads (32, set by the launcher where the helper is not built, bin/load_cli.js). A cold datadir is
 * latency-bound: the development machine's disk served 4,354 tails in 1.27 s one at a time, 0.45 s
 * four at a time, 0.27 s 32 at a time. Each read holds a descriptor until it is done: no more than a
 * reader cache's share of the process's limit (util/open_files.ts; 32 under the usual 1,024, 16 under
 * 128).
 */
export const READ_AHEAD_WINDOW = 32;

function readAheadWindow(): number {
  return Math.min(READ_AHEAD_WINDOW, openFileCacheCapacity());
}

/**
 * With the helper: tables whose tails are asked for ahead of the reader, ADVISE_BATCH a call. A call
 * holds one descriptor at a time, so at most ADVISE_AHEAD / ADVISE_BATCH + 1 are open for it. On the
 * L0 pile-up, 32 / 16 up to 512 / 128 took the same time; the kernel's reads in flight stay small
 * (128 tails of ~9 KiB).
 */
export const ADVISE_AHEAD = 128;
export const ADVISE_BATCH = 32;

/** Tables per sample of whether the reader's reads go to the disk. */
const SAMPLE = 16;
/** Block input operations (512 bytes) per table from which a sample counts as cold: half a page. */
const COLD_BLOCKS_PER_TABLE = 4;

/** How many of a file's last bytes to read: fixed, or learned as the reader goes (util/tail_estimate.ts). */
export interface TailBytes {
  readonly bytes: number;
}

/**
 * The helper's reads of the tails of `paths` (in the reader's order) for a reader that never waits for
 * them (TailBatches: ask(i), then take(i) or its own read), where they pay and may run: from
 * TailBatches.minFiles files on, within the descriptors (TailBatches.fits()), not under a read-rate
 * limit (util/throttle.ts: the helper's reads would come in a burst), the helper built. `tail`: how
 * much of each file's end the reader reads now.
 */
function tailBatchesFor(
  paths: readonly string[],
  tail: TailBytes,
  tailReader: () => ReadTails | undefined = tailReadHelper,
): TailBatches | undefined {
  const readTails =
    paths.length >= TailBatches.minFiles && readRateLimit() === undefined && TailBatches.fits()
      ? tailReader()
      : undefined;
  return readTails ? new TailBatches(paths, readTails, () => tail.bytes) : undefined;
}

/**
 * The tails of `paths` the helper reads ahead (tailBatchesFor), taken one file after another in that
 * order: for a reader that opens every table of a list in turn (format/tables_in_turn.ts).
 */
export class TailsInOrder {
  private readonly batches: TailBatches | undefined;
  private next = 0;
  constructor(
    private readonly paths: readonly string[],
    tail: TailBytes,
  ) {
    this.batches = tailBatchesFor(paths, tail);
  }

  /**
   * The tail of `path`, the next file of the list, if the helper has read it by now; undefined: the
   * reader reads it itself (also for a path out of the list's order: another file's bytes never stand
   * for it).
   */
  take(path: string): ReadTail | undefined {
    const i = this.next++;
    if (this.batches === undefined || this.paths[i] !== path || !this.batches.ask(i)) return undefined;
    return this.batches.take(i);
  }
}

export class TailReadAhead {
  private readonly inFlight: (Promise<void> | undefined)[] = [];
  /**
   * One buffer per slot of the window, made at its first read (as large as the tail then asked for,
   * larger when a later one asks for more): slot i % window is reused once read i has been waited for.
   */
  private readonly buffers: Buffer[] = [];
  private started = 0;
  private on = false;
  private waitedBefore = false;
  /** Block input operations at the sample before (getrusage), -1 before the first. */
  private diskReads = -1;
  /** The helper's willNeed, looked up once the reads look cold; false: none (read through the pool). */
  private willNeed: WillNeed | false | undefined;
  /** With the helper: the tails of files [0, advised) have been asked for (or were read before). */
  private advised = 0;
  /** The tails read by the helper's readTails, where it is used. */
  private readonly batches: TailBatches | undefined;

  /**
   * `files`: each file's path and size (the reader's order); `tail`: how much of each file's end the
   * reader reads at once — the reader's own estimate, read as each read is started, so that a cold
   * store's small tables are read as far as the reader reads them, not 32 KiB of each (4,354 tiny
   * tables: `inspect --deep --json`'s reader read 143 MB of their ends at 32 KiB each, 18 MB learned).
   */
  constructor(
    private readonly files: readonly { path: string; size: number }[],
    private readonly tail: TailBytes,
    private readonly window = readAheadWindow(),
    /** "now": read ahead from the first file on, without waiting for the reads to look cold. */
    start: "when-cold" | "now" = "when-cold",
    /** Where the helper comes from (tests give their own; undefined: read through the pool). */
    private readonly helper: () => WillNeed | undefined = readAheadHelper,
    /** Where readTails comes from (tests give their own; undefined: the reader reads the tails). */
    tailReader: () => ReadTails | undefined = tailReadHelper,
  ) {
    this.on = start === "now";
    this.batches = tailBatchesFor(
      files.map((f) => f.path),
      tail,
      tailReader,
    );
  }

  /**
   * File `i`'s tail as the helper's readTails read it, if it has (then the reader parses the table from
   * it); undefined: the reader opens and reads the file itself. After ready(i).
   */
  take(i: number): ReadTail | undefined {
    return this.batches?.take(i);
  }

  /**
   * Before the reader reads file `i` (i = 0, 1, 2, ... in order): while the reads look warm, sample
   * whether they go to the disk (coldFrom); once they look cold, keep the next files' tails asked for
   * (the helper: nothing to wait for) or wait until file `i`'s tail has been read through the pool (or
   * its read failed: the reader meets and reports the same error itself), keeping the reads of the next
   * files going. What to await, if anything: nothing while the reads are warm (an await per table is a
   * turn of the microtask queue), and nothing where the helper reads the tails (readTails: the next
   * calls are made, and take(i) says whether file `i`'s is there).
   */
  ready(i: number): Promise<void> | undefined {
    if (this.batches?.ask(i)) return undefined;
    if (!this.on && !this.coldFrom(i)) return undefined;
    if (this.willNeed === undefined) this.willNeed = this.helper() ?? false;
    if (this.willNeed && this.advise(this.willNeed, i)) return undefined;
    if (this.started < i) this.started = i;
    while (this.started < this.files.length && this.started < i + this.window) {
      const n = this.started++;
      this.inFlight[n] = this.readTail(this.files[n]!, n % this.window);
    }
    const p = this.inFlight[i];
    this.inFlight[i] = undefined;
    return p;
  }

  /**
   * Whether the reads wait on the disk: in two samples in a row of SAMPLE tables, the reader's reads
   * brought in at least half a page per table from the disk (getrusage's block input operations, in
   * 512-byte units, which page-cache hits do not count; a table or two out of the page cache, as
   * another process's reads leave a warm store, is not enough: over a warm store the read-ahead costs
   * ~35 µs of CPU per table, +35% of `inspect`'s on 4,354 small tables). Not a time threshold: the
   * development machine's virtual disk serves an uncached 4 KiB read in ~100 µs, a first-pass
   * table's reader work is ~30-80 µs, so cold tables one at a time looked no slower than warm ones on
   * a loaded machine (where a warm reader is often descheduled for longer than a disk read), and the
   * read-ahead stayed off. getrusage costs ~1.5 µs a call here.
   */
  private coldFrom(i: number): boolean {
    if (i % SAMPLE !== 0) return false;
    const reads = process.resourceUsage().fsRead;
    const waited = this.diskReads >= 0 && reads - this.diskReads >= SAMPLE * COLD_BLOCKS_PER_TABLE;
    this.diskReads = reads;
    this.on = waited && this.waitedBefore;
    this.waitedBefore = waited;
    return this.on;
  }

  /**
   * Ask for the tails of the files from `i` to ADVISE_AHEAD past it that have not been asked for. The
   * calls are not awaited: the reader's own read waits for pages the kernel is still reading, and
   * opens a file the helper could not itself, reporting why. False when the helper throws (then the
   * pool reads, for this file and the rest).
   */
  private advise(willNeed: WillNeed, i: number): boolean {
    if (this.advised < i) this.advised = i;
    while (this.advised < this.files.length && this.advised < i + ADVISE_AHEAD) {
      const end = Math.min(this.files.length, this.advised + ADVISE_BATCH);
      const paths: string[] = [];
      const offsets: number[] = [];
      const lengths: number[] = [];
      for (let k = this.advised; k < end; k++) {
        const { path, size } = this.files[k]!;
        // a size no file has (a damaged MANIFEST's): the reader finds out
        if (!Number.isSafeInteger(size) || size < 0) continue;
        const len = Math.min(size, this.tail.bytes);
        paths.push(path);
        offsets.push(size - len);
        lengths.push(len);
      }
      try {
        willNeed(paths, offsets, lengths).catch(() => undefined);
      } catch {
        this.willNeed = false;
        return false;
      }
      this.advised = end;
    }
    return true;
  }

  private readTail(file: { path: string; size: number }, slot: number): Promise<void> | undefined {
    const len = Math.min(file.size, this.tail.bytes);
    let buf = this.buffers[slot];
    if (buf === undefined || buf.length < len) buf = this.buffers[slot] = Buffer.allocUnsafe(len);
    let fd: number;
    try {
      // opened and closed here (a few µs: the directory and inode are not what a cold datadir waits on),
      // so each tail is one hop through the thread pool, not three: the main thread, busy with a table,
      // would otherwise leave the next open's read unsubmitted until its next await
      // without waiting on a FIFO in place of a table, as the reader opens it (format/table_file.ts)
      fd = openSync(file.path, OPEN_FOR_READING);
    } catch {
      // the synchronous reader opens the same file next and reports what is wrong with it
      return undefined;
    }
    return new Promise((resolve) => {
      read(fd, buf, 0, len, file.size - len, () => {
        closeSync(fd);
        resolve();
      });
    });
  }
}
