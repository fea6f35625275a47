/**
 * A datadir's files opened for reading. A datadir is untrusted: a FIFO in place of one of its files
 * would hold an ordinary open (`readFileSync`, `openSync(path, "r")`) until some process writes to it,
 * that is, forever. These open without blocking (O_NONBLOCK, which changes nothing for a regular file's
 * reads) and refuse anything but a regular file at once, naming it.
 */
import { closeSync, constants, fstatSync, openSync, readFileSync } from "node:fs";
import { LsmscopeError } from "./errors.js";

/** open(2) flags for a datadir's file: read only, without waiting for a FIFO's writer. */
export const OPEN_FOR_READING = constants.O_RDONLY | constants.O_NONBLOCK;

/**
 * A descriptor for reading the regular file `path`. Throws as openSync does (ENOENT, EACCES, ...), or
 * LsmscopeError "not a regular file" for a FIFO, a device or a directory.
 */
export function openRegularFile(path: string): number {
  const fd = openSync(path, OPEN_FOR_READING);
  try {
    if (!fstatSync(fd).isFile()) throw new LsmscopeError("not a regular file", { file: path });
  } catch (e) {
    closeSync(fd);
    throw e;
  }
  return fd;
}

/** The whole of the regular file `path`, as readFileSync reads it; anything else refused (openRegularFile). */
export function readRegularFile(path: string): Buffer;
export function readRegularFile(path: string, encoding: BufferEncoding): string;
export function readRegularFile(path: string, encoding?: BufferEncoding): Buffer | string {
  const fd = openRegularFile(path);
  try {
    return encoding === undefined ? readFileSync(fd) : readFileSync(fd, encoding);
  } finally {
    closeSync(fd);
  }
}
