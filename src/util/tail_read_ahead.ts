/**
 * Several file tails read ahead of a synchronous reader, so that a datadir out of the page cache is not
 * read one disk round trip at a time. The table readers are synchronous (format/table_file.ts: one table
 * at a time, no thread-pool hop per block); a table's metadata sits in its last bytes, so reading those
 * bytes of the next `window` tables through libuv's thread pool (32 reads at once: bin/load_cli.js) while the
 * reader works through the current one leaves each table's own read a page-cache hit. The bytes read here
 * are discarded: the page cache keeps them for the reader's own read.
 */
import { closeSync, openSync, read } from "node:fs";
import { openFileCacheCapacity } from "./open_files.js";

/**
 * Tables read ahead of the reader: as many reads in flight as libuv's pool has threads (32, set by the
 * launcher, bin/load_cli.js). A cold datadir is latency-bound: the development machine's disk served
 * 4,354 tails in 1.27 s one at a time, 0.45 s four at a time, 0.27 s 32 at a time. Each read holds a
 * descriptor until it is done: no more than a reader cache's share of the process's limit
 * (util/open_files.ts; 32 under the usual 1,024, 16 under 128).
 */
export const READ_AHEAD_WINDOW = 32;

function readAheadWindow(): number {
  return Math.min(READ_AHEAD_WINDOW, openFileCacheCapacity());
}

/** Tables per sample of whether the reader's reads go to the disk. */
const SAMPLE = 16;
/** Block input operations (512 bytes) per table from which a sample counts as cold: half a page. */
const COLD_BLOCKS_PER_TABLE = 4;

/** How many of a file's last bytes to read: fixed, or learned as the reader goes (util/tail_estimate.ts). */
export interface TailBytes {
  readonly bytes: number;
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
  ) {
    this.on = start === "now";
  }

  /**
   * Before the reader reads file `i` (i = 0, 1, 2, ... in order): while the reads look warm, sample
   * whether they go to the disk (coldFrom); once they look cold, wait until file `i`'s tail has been
   * read (or its read failed: the reader meets and reports the same error itself), keeping the reads of
   * the next files going. What to await, if anything: nothing while the reads are warm (an await per
   * table is a turn of the microtask queue).
   */
  ready(i: number): Promise<void> | undefined {
    if (!this.on && !this.coldFrom(i)) return undefined;
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

  private readTail(file: { path: string; size: number }, slot: number): Promise<void> | undefined {
    const len = Math.min(file.size, this.tail.bytes);
    let buf = this.buffers[slot];
    if (buf === undefined || buf.length < len) buf = this.buffers[slot] = Buffer.allocUnsafe(len);
    let fd: number;
    try {
      // opened and closed here (a few µs: the directory and inode are not what a cold datadir waits on),
      // so each tail is one hop through the thread pool, not three: the main thread, busy with a table,
      // would otherwise leave the next open's read unsubmitted until its next await
      fd = openSync(file.path, "r");
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
