/**
 * Corruption errors of the table reader: one message naming the file, the block and the offset.
 */
import { CorruptionError } from "../util/errors.js";

/** A CorruptionError whose message names the block being read, e.g. "index block @ 1234: bad varint". */
export function blockCorruption(
  file: string,
  block: string,
  offset: number,
  what: string,
  cause?: unknown,
): CorruptionError {
  return new CorruptionError(`${block} block: ${what}`, file, offset, cause);
}

/** Turn a RangeError from the varint/fixed decoders into a CorruptionError; rethrow anything else. */
export function wrapDecodeError(err: unknown, file: string, block: string, offset: number): never {
  if (err instanceof CorruptionError) throw err;
  if (err instanceof RangeError || err instanceof TypeError) {
    throw blockCorruption(file, block, offset, err.message, err);
  }
  throw err;
}
