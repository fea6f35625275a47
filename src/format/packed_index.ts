import type { BlockHandle } from "./handle.js";
import type { IndexReader } from "./index_reader.js";
import { grownKeeping } from "../util/grow.js";
import { compareBytewise } from "../base/comparator.js";

/**
 * A table's index separators (their user-key parts) in one buffer, with their data blocks' handles in
 * one typed array: a few bytes per data block and no object per entry, for readers that keep the
 * index of thousands of tables at once (the probe's reader path, a merge over an L0 pile-up). Built
 * by packIndex() in this thread's scratch arrays and copied out at its size (see Slab): an index that
 * grew arrays of its own took eight allocations (packing an L0 pile-up table took ~24 µs under the
 * profiler, ~14 µs now).
 */
export class PackedIndex {
  constructor(
    readonly count: number,
    /** The separators, one after another. */
    private readonly bytes: Buffer,
    /** Per block: the separator's start in `bytes`, the block's offset, its size; then bytes' end. */
    private readonly fields: Float64Array,
  ) {}

  /** Sign of separator i against `key`, bytewise. */
  compare(i: number, key: Uint8Array): number {
    return compareBytewise(this.bytes, this.fields[3 * i]!, this.fields[3 * i + 3]!, key, 0, key.length);
  }

  /** Offset and size of data block i. */
  blockOffset(i: number): number {
    return this.fields[3 * i + 1]!;
  }
  blockSize(i: number): number {
    return this.fields[3 * i + 2]!;
  }

  handle(i: number): BlockHandle {
    return { offset: this.fields[3 * i + 1]!, size: this.fields[3 * i + 2]! };
  }
}

/** packIndex()'s scratch space, reused by every table this thread packs (packIndex does not nest). */
class PackedIndexBuilder {
  count = 0;
  private bytes = Buffer.allocUnsafeSlow(4096);
  private used = 0;
  private fields = new Float64Array(3 * 256 + 1);

  reset(): void {
    this.count = 0;
    this.used = 0;
  }

  push(sep: Buffer, len: number, offset: number, size: number): void {
    // the checks here: a call for each of a table's index entries, in code not optimised yet
    if (this.used + len > this.bytes.length)
      this.bytes = grownKeeping(this.bytes, this.used, this.used + len);
    if (3 * this.count + 4 > this.fields.length)
      this.fields = grownKeeping(this.fields, 3 * this.count + 1, 3 * this.count + 4);
    // a separator is short: copied bytewise (Buffer.copy's native call costs ~40 ns at any length, a
    // table's index walk makes one per data block)
    const b = this.bytes;
    const at = this.used;
    if (len <= 64) for (let i = 0; i < len; i++) b[at + i] = sep[i]!;
    else sep.copy(b, at, 0, len);
    const f = this.fields;
    const k = 3 * this.count;
    f[k] = at;
    f[k + 1] = offset;
    f[k + 2] = size;
    this.used += len;
    this.count++;
  }

  /** Sign of the last separator pushed against `key`, bytewise. */
  compareLast(key: Uint8Array): number {
    return compareBytewise(this.bytes, this.fields[3 * (this.count - 1)]!, this.used, key, 0, key.length);
  }

  /** The index pushed, copied out at its size (see Slab). */
  finish(): PackedIndex {
    const k = 3 * this.count;
    this.fields[k] = this.used;
    const fields = slab.take(8 * (k + 1));
    const out = new Float64Array(fields.buffer, fields.byteOffset, k + 1);
    out.set(this.fields.subarray(0, k + 1));
    const bytes = slab.take(this.used);
    this.bytes.copy(bytes, 0, 0, this.used);
    return new PackedIndex(this.count, bytes, out);
  }
}

/**
 * Where packed indexes are copied out to: views of 64 KiB slabs, so that an index costs two small view
 * objects rather than two buffers of their own (a backing store each, ~4 µs apiece). Not Node's shared
 * 8 KiB pool, whose chunk also holds the table's metadata blocks read before: a kept index held 8 KiB
 * each (a merge over an L0 pile-up keeps thousands). A slab lives while any index in it does: at most
 * 64 KiB besides the kept indexes, whose tables a merge or a table cache keeps together anyway.
 */
class Slab {
  private buf = Buffer.allocUnsafeSlow(0);
  private used = 0;

  /** `n` bytes of their own, 8-aligned. */
  take(n: number): Buffer {
    if (n > SLAB_BYTES / 4) return Buffer.allocUnsafeSlow(n);
    if (this.used + n > this.buf.length) {
      this.buf = Buffer.allocUnsafeSlow(SLAB_BYTES);
      this.used = 0;
    }
    const out = this.buf.subarray(this.used, this.used + n);
    this.used += (n + 7) & ~7;
    return out;
  }
}

const SLAB_BYTES = 64 * 1024;
const slab = new Slab();
const builder = new PackedIndexBuilder();

/**
 * A table's data blocks from the one that may hold `from` (its index seeked there) up to and including
 * the first whose separator is ≥ `until`, packed: a range scan's block list, with nothing allocated
 * per block (SstTable.packedIndex). `internal`: the index keys are internal keys (8-byte trailer).
 */
export function packIndex(
  index: IndexReader,
  internal: boolean,
  from?: Buffer,
  until?: Uint8Array,
): PackedIndex {
  const b = builder;
  b.reset();
  index.walk(
    ({ cursor: c }) => {
      b.push(c.key, internal ? c.keyLength - 8 : c.keyLength, c.handleOffset, c.handleSize);
      // a separator is ≥ every key of its block and below every key of the next
      return until === undefined || b.compareLast(until) < 0;
    },
    { from },
  );
  return b.finish();
}
