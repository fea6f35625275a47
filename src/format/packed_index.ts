import type { BlockHandle } from "./handle.js";
import type { IndexReader } from "./index_reader.js";

/**
 * A table's index separators (their user-key parts) in one growing buffer, with their data blocks'
 * handles in typed arrays: a few bytes per data block and no object per entry, for readers that keep
 * the index of thousands of tables at once (the probe's reader path, a merge over an L0 pile-up).
 */
export class PackedIndex {
  count = 0;
  private bytes = Buffer.allocUnsafe(1024);
  private used = 0;
  private starts = new Float64Array(64);
  private offsets = new Float64Array(64);
  private sizes = new Float64Array(64);

  push(sep: Buffer, len: number, h: BlockHandle): void {
    this.pushHandle(sep, len, h.offset, h.size);
  }

  /** push() without a handle object (a table's index walk: offset and size from its cursor). */
  pushHandle(sep: Buffer, len: number, offset: number, size: number): void {
    if (this.used + len > this.bytes.length) {
      const b = Buffer.allocUnsafe(Math.max(this.bytes.length * 2, this.used + len));
      this.bytes.copy(b, 0, 0, this.used);
      this.bytes = b;
    }
    if (this.count + 1 >= this.starts.length) {
      const grow = (a: Float64Array) => {
        const n = new Float64Array(a.length * 2);
        n.set(a);
        return n;
      };
      this.starts = grow(this.starts);
      this.offsets = grow(this.offsets);
      this.sizes = grow(this.sizes);
    }
    // a separator is short: copied bytewise (Buffer.copy's native call costs ~40 ns at any length, a
    // table's index walk makes one per data block)
    const b = this.bytes;
    const at = this.used;
    if (len <= 64) for (let i = 0; i < len; i++) b[at + i] = sep[i]!;
    else sep.copy(b, at, 0, len);
    this.starts[this.count] = this.used;
    this.offsets[this.count] = offset;
    this.sizes[this.count] = size;
    this.used += len;
    this.count++;
    this.starts[this.count] = this.used;
  }

  /**
   * Trim the buffers to what is used. The separators get a buffer of their own: a slice of Node's
   * shared 8 KiB pool would keep the whole pool chunk alive, with the table's metadata blocks read
   * into it before (8 KiB per table of a merge over an L0 pile-up).
   */
  finish(): void {
    const bytes = Buffer.allocUnsafeSlow(this.used);
    this.bytes.copy(bytes, 0, 0, this.used);
    this.bytes = bytes;
    this.starts = this.starts.slice(0, this.count + 1);
    this.offsets = this.offsets.slice(0, this.count);
    this.sizes = this.sizes.slice(0, this.count);
  }

  /** Sign of separator i against `key`, bytewise. */
  compare(i: number, key: Uint8Array): number {
    // a loop, not Buffer.compare with offsets: a range scan compares every block it reads with its
    // bounds, and the native call with its argument checks cost ~1 us each (measured: 3% of a
    // two-thread sizes --full)
    const b = this.bytes;
    let p = this.starts[i]!;
    const end = this.starts[i + 1]!;
    const kl = key.length;
    const n = Math.min(end - p, kl);
    for (let j = 0; j < n; j++, p++) {
      const d = b[p]! - key[j]!;
      if (d !== 0) return d < 0 ? -1 : 1;
    }
    const sl = end - this.starts[i]!;
    return sl === kl ? 0 : sl < kl ? -1 : 1;
  }

  /** Offset and size of data block i. */
  blockOffset(i: number): number {
    return this.offsets[i]!;
  }
  blockSize(i: number): number {
    return this.sizes[i]!;
  }

  handle(i: number): BlockHandle {
    return { offset: this.offsets[i]!, size: this.sizes[i]! };
  }
}

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
  const idx = new PackedIndex();
  index.walk(
    ({ cursor: c }) => {
      idx.pushHandle(c.key, internal ? c.keyLength - 8 : c.keyLength, c.handleOffset, c.handleSize);
      // a separator is ≥ every key of its block and below every key of the next
      return until === undefined || idx.compare(idx.count - 1, until) < 0;
    },
    { from },
  );
  idx.finish();
  return idx;
}
