/**
 * Corruption errors of the table reader: one message naming the file, the block and the offset.
 */
import { CorruptionError } from "../util/errors.js";

/**
 * A block failed to read, check or decode. Carries the block's kind and offset as fields, so a caller
 * that collects damage (sst --verify, a store-wide verification) can report them without parsing text.
 */
export class BlockCorruptionError extends CorruptionError {
  /** What the block is ("data", "index partition", ... see BlockKind). */
  readonly blockKind: string;
  /** Offset of the block's first byte in the file. */
  readonly blockOffset: number;
  /** The problem alone, without the block's name. */
  readonly detail: string;

  /** `qualifier` follows the block's name in the message, e.g. "(LZ4, 3325 bytes)". */
  constructor(
    file: string,
    blockKind: string,
    blockOffset: number,
    detail: string,
    cause?: unknown,
    qualifier?: string,
  ) {
    super(`${blockKind} block${qualifier ? ` ${qualifier}` : ""}: ${detail}`, file, blockOffset, cause);
    this.name = "BlockCorruptionError";
    this.blockKind = blockKind;
    this.blockOffset = blockOffset;
    this.detail = detail;
  }
}

/** A CorruptionError whose message names the block being read, e.g. "index block @ 1234: bad varint". */
export function blockCorruption(
  file: string,
  block: string,
  offset: number,
  what: string,
  cause?: unknown,
): BlockCorruptionError {
  return new BlockCorruptionError(file, block, offset, what, cause);
}

/**
 * Turn a RangeError from the varint/fixed decoders (and Buffer reads past an end) into a CorruptionError;
 * rethrow anything else. A TypeError is a bug in this reader, not damage in the file: it stays what it is,
 * so it surfaces as an internal error with its stack instead of blaming the user's bytes.
 */
export function wrapDecodeError(err: unknown, file: string, block: string, offset: number): never {
  if (err instanceof CorruptionError) throw err;
  if (err instanceof RangeError) {
    throw blockCorruption(file, block, offset, err.message, err);
  }
  throw err;
}
