/**
 * Table tails read ahead of a synchronous reader by the read-ahead helper's readTails
 * (util/readahead_helper.ts, native/readahead.c), on threads of libuv's pool: TAIL_BATCH files a call,
 * TAIL_BATCHES_AHEAD calls ahead of the reader. The reader never waits for them: coming to file i it
 * takes the tail if the helper has read it by then (take(i)), and otherwise opens and reads the file
 * itself, as without the helper. A warm L0 pile-up's open, read and close (~17 µs a table on the
 * development machine's main thread, ~55 ms of `inspect`'s ~0.35 s on 3,235 tables) then run on the
 * other core; cold, each call asks the kernel for its files' tails a chunk at a time (posix_fadvise)
 * before reading them.
 *
 * Why a flag per file and not the call's promise: a promise settles only when the reader's thread
 * returns to the event loop, which a synchronous reader does not do between tables; waiting for it
 * there took a turn of the loop per call, and the reader waited on almost every call.
 */
import { openFileCacheCapacity } from "./open_files.js";
import { type ReadTails, TAIL_READ } from "./readahead_helper.js";

/** Files a readTails call at most (the helper opens 32 at a time: native/readahead.c CHUNK)... */
export const TAIL_BATCH = 128;
/** ...and bytes: a call's buffer holds each file's whole slot (the tails of large tables are 32 KiB). */
export const TAIL_BATCH_BYTES = 1 << 20;
/** Calls ahead of the reader's; their buffers are reused in a ring of TAIL_BATCHES_AHEAD + 1. */
export const TAIL_BATCHES_AHEAD = 2;
/**
 * Files of the first call, made before the reader has learned how much of a table's end it reads; each
 * call after it twice as many as the one before, up to TAIL_BATCH, while the reader's estimate settles.
 */
const FIRST_CALL = 16;
/** Bytes read past the longest tail the reader has asked for since the last call (ask()). */
const TAIL_MARGIN = 8192;
/** Descriptors one call holds open at once. */
const CALL_DESCRIPTORS = 32;

/** A file's last bytes as read by the helper, with the size and inode number the file had then. */
export interface ReadTail {
  tail: Buffer;
  size: number;
  ino: number;
}

/** One readTails call's buffers (a slot of the ring) and which files they hold now. */
interface Slot {
  first: number;
  count: number;
  /** Bytes of each file's slot in `data` (the most the reader asked for before the call, and TAIL_MARGIN). */
  length: number;
  data: Buffer;
  info: Float64Array;
  done: Int32Array;
}

export class TailBatches {
  private readonly ring: (Slot | undefined)[] = [];
  /** Files [0, asked) have been asked for. */
  private asked = 0;
  /** The ring's slot the next call fills. */
  private next = 0;
  /** The most the reader has asked for of a file since the last call. */
  private recent = 0;
  /** Files of the last call made (at most). */
  private callSize = 0;
  private on = true;

  /**
   * Files from which the helper is used: its first call starts libuv's pool (bin/load_cli.js) and
   * loads the helper, a few milliseconds that ~11 µs saved per table pay back from several hundred
   * tables on (`inspect` of 145 tables 3-6% slower with it, of 1,157 the same, of 3,235 ~10% faster).
   * Tests lower it, to read a small store through the helper.
   */
  static minFiles = 1024;

  /**
   * How long take() waits for a file the helper is reading before the reader reads it itself: 0, never
   * (the reader never waits, above). Tests raise it, to see every reader take the helper's tails even
   * on a loaded machine, where the helper's thread can fall behind the reader and the reader then
   * reads most files itself (a test's count of this thread's reads failed so under CI's load).
   */
  static waitForHelperMs = 0;

  /**
   * Whether the helper can be used within the process's descriptors: its calls hold
   * (TAIL_BATCHES_AHEAD + 1) x 32 at once, within a reader cache's share (util/open_files.ts).
   */
  static fits(): boolean {
    return openFileCacheCapacity() >= (TAIL_BATCHES_AHEAD + 1) * CALL_DESCRIPTORS;
  }

  constructor(
    private readonly paths: readonly string[],
    private readonly readTails: ReadTails,
    /** How much of each file's end the reader reads now (ask() makes each call read more: TAIL_MARGIN). */
    private readonly tailBytes: () => number,
  ) {}

  /**
   * Before the reader comes to file `i` (in order): the calls up to TAIL_BATCHES_AHEAD past its own.
   * False once the helper has refused a call: the reader then reads ahead as without it.
   */
  ask(i: number): boolean {
    const ring = this.ring;
    const now = this.tailBytes();
    if (now > this.recent) this.recent = now;
    while (this.on && this.asked < this.paths.length) {
      const full = ring.length === TAIL_BATCHES_AHEAD + 1;
      // the slot to fill next is the oldest: free once the reader is past the files it holds
      const oldest = ring[this.next];
      if (full && oldest !== undefined && i < oldest.first + oldest.count) break;
      const first = this.asked;
      // the most the reader has asked for since the last call, and TAIL_MARGIN more: its estimate jumps
      // to the largest recent need and then decays, so a tail read at the estimate of the moment was
      // often shorter than the estimate when the reader came to it, and read again (`check`, which
      // reads each table's filter too: 1,165 of the pile-up's 3,235 tables; 4 KiB more, 332; the most
      // since the last call and 4 KiB, 234, nearly all of them 8 KiB where 12 were asked for; and 8 KiB
      // more, 1; of 9,220 tables, 30)
      const length = this.recent + TAIL_MARGIN;
      this.recent = now;
      // the first call a few files, the next ones a file later each and twice as many: by then the
      // reader has read a table or two, and its estimate of how much of each end a table needs is what
      // they read
      const most = (this.callSize = Math.min(
        TAIL_BATCH,
        this.callSize === 0 ? FIRST_CALL : 2 * this.callSize,
      ));
      const count = Math.min(
        this.paths.length - first,
        most,
        Math.max(1, Math.floor(TAIL_BATCH_BYTES / length)),
      );
      const slot = this.slotAt(this.next, count * length);
      slot.first = first;
      slot.count = count;
      slot.length = length;
      slot.done.fill(0, 0, count);
      let text = "";
      for (let k = first; k < first + count; k++) text += `${this.paths[k]!}\0`;
      try {
        this.readTails(text, count, length, slot.data, slot.info, slot.done).catch(() => undefined);
      } catch {
        // arguments it refuses (a path it cannot take): the reader reads this file and the rest itself
        this.on = false;
        slot.count = 0;
        break;
      }
      this.asked = first + count;
      this.next = (this.next + 1) % (TAIL_BATCHES_AHEAD + 1);
      if (!full) break;
    }
    return this.on;
  }

  /**
   * File `i`'s tail, if the helper has read it by now (then the reader parses the table from it; the
   * bytes are valid until ask() is called for a file past the call that read them: their slot may then
   * be filled again). Otherwise the reader reads the file itself: the helper could not, has not come to
   * it yet, or found a file that is not a regular one.
   */
  take(i: number): ReadTail | undefined {
    for (const slot of this.ring) {
      if (slot === undefined || i < slot.first || i >= slot.first + slot.count) continue;
      const k = i - slot.first;
      if (TailBatches.waitForHelperMs > 0) waitWhileZero(slot.done, k, TailBatches.waitForHelperMs);
      if (Atomics.load(slot.done, k) !== TAIL_READ) return undefined;
      const info = slot.info;
      const at = k * slot.length;
      return {
        tail: slot.data.subarray(at, at + info[3 * k + 2]!),
        size: info[3 * k]!,
        ino: info[3 * k + 1]!,
      };
    }
    return undefined;
  }

  /**
   * Ring slot `at` for a call of `bytes`: its buffers reused when the helper is done with the call they
   * held (the reader is past it by now), new ones when it is not, or when they are too small.
   */
  private slotAt(at: number, bytes: number): Slot {
    const old = this.ring[at];
    if (old !== undefined && old.data.length >= bytes && this.finished(old)) return old;
    const slot: Slot = {
      first: 0,
      count: 0,
      length: 0,
      // its own memory, not a slice of Node's shared pool: the helper writes into it from another thread
      data: Buffer.allocUnsafeSlow(bytes),
      info: new Float64Array(3 * TAIL_BATCH),
      done: new Int32Array(TAIL_BATCH),
    };
    this.ring[at] = slot;
    return slot;
  }

  /** Whether the helper has set every file's flag of the call the slot holds. */
  private finished(slot: Slot): boolean {
    for (let k = 0; k < slot.count; k++) if (Atomics.load(slot.done, k) === 0) return false;
    return true;
  }
}

/** Spin until `flags[k]` is set or `ms` have passed (the flags are not shared memory: no Atomics.wait). */
function waitWhileZero(flags: Int32Array, k: number, ms: number): void {
  const until = Date.now() + ms;
  while (Atomics.load(flags, k) === 0 && Date.now() < until);
}
