/**
 * The growth of an array written from its start and read back before it is overwritten (a log
 * record reassembled from its fragments, a block cursor's key, drawn keys copied out of their blocks,
 * an index packed as it is walked, a sub-range's keys, values and records in their buckets, the WAL
 * layer's columns): to at least twice its length, so that n appends copy O(n) elements in all,
 * keeping what it holds so far.
 */
type Growable = Uint8Array | Uint32Array | Int32Array | Float64Array;

/**
 * `a` when it holds `need` elements; else a new array of its kind, at least twice as long and `need`
 * long, whose first `used` elements are a's. A Buffer grows into a Buffer of its own (never a slice
 * of Node's shared 8 KiB pool, which a kept key or index would keep alive whole), an array over shared
 * memory (the WAL layer's, which worker threads read) into shared memory.
 */
export function grownKeeping<T extends Growable>(a: T, used: number, need: number): T {
  if (need <= a.length) return a;
  const n = Math.max(2 * a.length, need);
  let out: Growable;
  if (Buffer.isBuffer(a)) out = Buffer.allocUnsafeSlow(n);
  else {
    const Kind = a.constructor as new (b: ArrayBufferLike | number) => Growable;
    out =
      a.buffer instanceof SharedArrayBuffer
        ? new Kind(new SharedArrayBuffer(n * a.BYTES_PER_ELEMENT))
        : new Kind(n);
  }
  (out as Uint8Array).set(a.subarray(0, used) as Uint8Array);
  return out as T;
}
