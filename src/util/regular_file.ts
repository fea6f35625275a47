/**
 * A datadir's files opened for reading. A datadir is untrusted: a FIFO in place of one of its files
 * would hold an ordinary open (`readFileSync`, `openSync(path, "r")`) until some process writes to it,
 * that is, forever. These open without blocking (O_NONBLOCK, which changes nothing for a regular file's
 * reads) and refuse anything but a regular file at once, naming it.
 */
import { closeSync, constants, fstatSync, openSync, readFileSync, readSync } from "node:fs";
import { LsmscopeError } from "./errors.js";

/** open(2) flags for a datadir's file: read only, without waiting for a FIFO's writer. */
export const OPEN_FOR_READING = constants.O_RDONLY | constants.O_NONBLOCK;

/** A regular file open for reading: its descriptor, and its size and identity when it was opened. */
export interface OpenedFile {
  fd: number;
  size: number;
  ino: number;
}

/**
 * The size and identity of the file open on `fd`, refused (LsmscopeError "not a regular file", naming
 * `path`) when it is a FIFO, a device or a directory: a directory opens fine on Linux and only fails at
 * the first read, with no path in the error.
 */
export function statRegularFile(fd: number, path: string): { size: number; ino: number } {
  const st = fstatSync(fd);
  if (!st.isFile()) throw new LsmscopeError("not a regular file", { file: path });
  return { size: st.size, ino: st.ino };
}

/**
 * The regular file `path`, opened for reading (statRegularFile's one fstat gives its size). Throws as
 * openSync does (ENOENT, EACCES, ...), or as statRegularFile does.
 */
export function openRegularFile(path: string): OpenedFile {
  const fd = openSync(path, OPEN_FOR_READING);
  try {
    return { fd, ...statRegularFile(fd, path) };
  } catch (e) {
    closeSync(fd);
    throw e;
  }
}

/** The whole of the regular file `path`, as readFileSync reads it; anything else refused (openRegularFile). */
export function readRegularFile(path: string): Buffer;
export function readRegularFile(path: string, encoding: BufferEncoding): string;
export function readRegularFile(path: string, encoding?: BufferEncoding): Buffer | string {
  const { fd } = openRegularFile(path);
  try {
    return encoding === undefined ? readFileSync(fd) : readFileSync(fd, encoding);
  } finally {
    closeSync(fd);
  }
}

/** A file longer than a caller's cap (readRegularFileUpTo): `size` is what its descriptor's fstat gave. */
export class FileTooLargeError extends LsmscopeError {
  constructor(
    readonly size: number,
    file: string,
  ) {
    super(`${size} bytes, more than lsmscope reads of such a file`, { file });
  }
}

/**
 * The whole of the regular file `path` when it holds at most `maxBytes` (a datadir's text files:
 * CURRENT, OPTIONS, Besu's metadata, a freezer table's meta file); FileTooLargeError otherwise. The
 * size is its descriptor's fstat, and no more than that is read: the file checked is the file read,
 * and one growing meanwhile is read as it was.
 */
export function readRegularFileUpTo(path: string, maxBytes: number): Buffer;
export function readRegularFileUpTo(path: string, maxBytes: number, encoding: BufferEncoding): string;
export function readRegularFileUpTo(
  path: string,
  maxBytes: number,
  encoding?: BufferEncoding,
): Buffer | string {
  const { fd, size } = openRegularFile(path);
  try {
    if (size > maxBytes) throw new FileTooLargeError(size, path);
    const bytes = readHead(fd, size);
    return encoding === undefined ? bytes : bytes.toString(encoding);
  } finally {
    closeSync(fd);
  }
}

/** The first `n` bytes of the regular file `path` (all of it when it is shorter). */
export function readRegularFileHead(path: string, n: number): Buffer {
  const { fd, size } = openRegularFile(path);
  try {
    return readHead(fd, Math.min(n, size));
  } finally {
    closeSync(fd);
  }
}

/** The first `n` bytes on `fd` (fewer when the file ends first). */
function readHead(fd: number, n: number): Buffer {
  const buf = Buffer.allocUnsafe(n);
  let done = 0;
  while (done < n) {
    const got = readSync(fd, buf, done, n - done, done);
    if (got <= 0) break;
    done += got;
  }
  return buf.subarray(0, done);
}
