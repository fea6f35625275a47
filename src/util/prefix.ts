/** Key ranges of a prefix: where the keys that start with it end. */

/**
 * The smallest key greater than every key starting with `prefix` (the prefix incremented as a
 * big-endian number, trailing 0xff bytes dropped), or undefined when it is all 0xff (no such key).
 * A new buffer: `prefix` is not changed.
 */
export function prefixSuccessor(prefix: Uint8Array): Buffer | undefined {
  const b = Buffer.from(prefix);
  for (let i = b.length - 1; i >= 0; i--) {
    if (b[i]! < 0xff) {
      b[i]!++;
      return b.subarray(0, i + 1);
    }
  }
  return undefined;
}
