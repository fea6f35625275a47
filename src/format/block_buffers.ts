/**
 * Buffers a thread's block reads reuse (TableFile.readBlock's lifetimes): on this project's virtual
 * machine a page touched for the first time costs 10-14 us (README, Performance), so a block read into,
 * or decompressed into, a buffer of its own each time paid that for every 4 KiB.
 */
import type { BlockOutput } from "./compression.js";

/**
 * A buffer a table keeps for reads of `n` bytes (at most `most`): an eighth more, rounded up to 512
 * bytes, so that the data blocks of one table, which vary by a few hundred bytes around the block size,
 * seldom grow it again (each buffer outgrown is garbage that lives until a full collection). Never a
 * slice of Node's shared 8 KiB pool: it lives as long as its table.
 */
export function tableBuffer(n: number, most = Infinity): Buffer {
  return Buffer.allocUnsafeSlow(Math.min(most, (n + (n >> 3) + 511) & ~511));
}

/** `buf` when it holds at least `n` bytes, else a tableBuffer(n, most) to take its place. */
export function atLeast(buf: Buffer | undefined, n: number, most = Infinity): Buffer {
  return buf !== undefined && buf.length >= n ? buf : tableBuffer(n, most);
}

/**
 * The buffer transient block reads go into (readBlock's `transient`): one a thread, its pages touched
 * once. A buffer of its own per block read cost ~31 us for a 4 KiB read here, against ~4 us into a
 * buffer already touched (2,000 tables' blocks, each read once), and a point lookup that passes a
 * table's filter reads a block it drops at once (`check`'s placement overlay, the sample mode's newer
 * versions).
 */
let transientBlockBuffer: Buffer | undefined;

/** The transient read buffer, at least `n` bytes long (the next transient read overwrites it). */
export function transientBlock(n: number): Buffer {
  return (transientBlockBuffer = atLeast(transientBlockBuffer, n));
}

/**
 * Where a transient read of a compressed block puts its output (where the block codec helper
 * decompresses it, compression.ts): one a thread, beside the transient read buffer the block came in.
 */
let transientOutputBuffer: Buffer | undefined;

export const toTransientOutput: BlockOutput = (size) =>
  (transientOutputBuffer = atLeast(transientOutputBuffer, size));
