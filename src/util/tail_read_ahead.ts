/**
 * Several file tails read ahead of a synchronous reader, so that a datadir out of the page cache is not
 * read one disk round trip at a time. The table readers are synchronous (format/table_file.ts: one table
 * at a time, no thread-pool hop per block); a table's metadata sits in its last bytes, so reading those
 * bytes of the next `window` tables through libuv's thread pool (four reads at once by default) while the
 * reader works through the current one leaves each table's own read a page-cache hit. The bytes read here
 * are discarded: the page cache keeps them for the reader's own read.
 */
import { close, open, read } from "node:fs";
import { performance } from "node:perf_hooks";

/** Tables read ahead of the reader: enough to keep the thread pool's reads going between two awaits. */
export const READ_AHEAD_WINDOW = 16;
/** Tables per sample of how long the reader waits for the disk. */
const SAMPLE = 32;
/**
 * Time per table (wall) from which the reads may be cold: a warm table takes ~15-40 µs of the reader's
 * work, a cold read on the development machine's virtual disk adds ~100-400 µs. While reads are warm
 * the read-ahead stays off: its thread-pool reads cost ~40 µs of CPU per table, +20-30% of `inspect`'s
 * CPU on 4,688 small tables. Time alone is not enough: on a loaded machine (5 processes on 2 cores) a
 * warm store's reader is descheduled for longer than that, and the read-ahead went on and doubled its
 * CPU per table; so a slow sample is confirmed by the reads having gone to the disk (getrusage's block
 * input operations, which page-cache hits do not count). getrusage is asked only then: in a process
 * whose other threads are busy (GC, libuv) one call took 20-500 µs, ~15 µs per table at one per sample.
 */
const COLD_WAIT_US = 150;

export class TailReadAhead {
  private readonly inFlight: (Promise<void> | undefined)[] = [];
  /** One buffer per slot of the window: slot i % window is reused once read i has been waited for. */
  private buffers: Buffer[] | undefined;
  private started = 0;
  private on = false;
  private waitedBefore = false;
  private sampleWall = 0;
  /** Block input operations at the last confirmation (getrusage), -1 before the first. */
  private diskReads = -1;

  /**
   * `files`: each file's path and size (the reader's order); `bytes`: how much of each file's end the
   * reader reads at once.
   */
  constructor(
    private readonly files: readonly { path: string; size: number }[],
    private readonly bytes: number,
    private readonly window = READ_AHEAD_WINDOW,
    /** "now": read ahead from the first file on, without waiting for the reads to look cold. */
    start: "when-cold" | "now" = "when-cold",
  ) {
    this.on = start === "now";
  }

  /**
   * Before the reader reads file `i` (i = 0, 1, 2, ... in order): while the reads look warm, sample how
   * long they wait; once they look cold, wait until file `i`'s tail has been read (or its read failed: the
   * reader meets and reports the same error itself), keeping the reads of the next files going.
   */
  async ready(i: number): Promise<void> {
    if (!this.on && !this.coldFrom(i)) return;
    this.buffers ??= Array.from({ length: this.window }, () => Buffer.allocUnsafe(this.bytes));
    if (this.started < i) this.started = i;
    while (this.started < this.files.length && this.started < i + this.window) {
      const n = this.started++;
      this.inFlight[n] = this.readTail(this.files[n]!, this.buffers[n % this.window]!);
    }
    const p = this.inFlight[i];
    this.inFlight[i] = undefined;
    if (p) await p;
  }

  /**
   * Whether the reads wait on the disk: two samples in a row of SAMPLE synchronous reads each took
   * COLD_WAIT_US per table and read from the disk since the check before (one alone can be a loaded
   * machine descheduling the reader; the first sample, the reader's warm-up, is not counted).
   */
  private coldFrom(i: number): boolean {
    if (i % SAMPLE !== 0) return false;
    const wall = performance.now() * 1000;
    const slow = i > SAMPLE && wall - this.sampleWall > SAMPLE * COLD_WAIT_US;
    this.sampleWall = wall;
    let waited = false;
    // the baseline as the warm-up ends, so that the next sample can be confirmed
    if (i === SAMPLE) this.diskReads = process.resourceUsage().fsRead;
    else if (slow) {
      const reads = process.resourceUsage().fsRead;
      waited = this.diskReads >= 0 && reads > this.diskReads;
      this.diskReads = reads;
    }
    this.on = waited && this.waitedBefore;
    this.waitedBefore = waited;
    return this.on;
  }

  private readTail(file: { path: string; size: number }, buf: Buffer): Promise<void> {
    const len = Math.min(file.size, this.bytes);
    // callbacks rather than a FileHandle: a third less CPU per file
    return new Promise((resolve) => {
      open(file.path, "r", (err, fd) => {
        // the synchronous reader opens the same file next and reports what is wrong with it
        if (err) return resolve();
        read(fd, buf, 0, len, file.size - len, () => close(fd, () => resolve()));
      });
    });
  }
}
