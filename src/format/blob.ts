/**
 * Blob index (db/blob/blob_index.h), the value of a kTypeBlobIndex (0x11) entry, and the blob record it
 * points at in a blob file (db/blob/blob_log_format.h).
 *
 *   blob index, type u8 = 0 kInlinedTTL:  expiration varint64 | value [rest]
 *               type u8 = 1 kBlob:        file_number varint64 | offset varint64 | size varint64 | compression u8
 *               type u8 = 2 kBlobTTL:     expiration varint64 | file_number varint64 | offset varint64 |
 *                                         size varint64 | compression u8
 *
 *   blob record: header (32 bytes: key length fixed64 | value length fixed64 | expiration fixed64 |
 *                header crc fixed32 | blob crc fixed32) | key | value
 *
 * `size` is the blob's stored size in the blob file (after blob compression); `offset` is where the blob
 * value starts (past its record header and key). With ReadOptions::verify_checksums (the default)
 * RocksDB's BlobFileReader::GetBlob reads the whole record, header and key included. Compressed blob
 * values use compress_format_version 2 (varint32 size prefix), like table blocks. Every read is capped
 * by LIMITS.maxBlockBytes.
 */
import { closeSync, openSync, readSync } from "node:fs";
import { openFileCacheCapacity } from "../util/open_files.js";
import { cursor, getVarint64Number } from "../util/coding.js";
import { LsmscopeError } from "../util/errors.js";
import { LIMITS } from "../util/limits.js";
import { compressionName } from "../base/compression_type.js";
import { BLOCK_HEADROOM, createCodecs, decompressBlock } from "./compression.js";

export const BLOB_RECORD_HEADER = 32;

export interface BlobIndex {
  kind: "inlined-ttl" | "blob" | "blob-ttl";
  expiration?: number;
  fileNumber?: number;
  offset?: number;
  /** Stored blob bytes (kBlob/kBlobTTL) or inlined value bytes (kInlinedTTL). */
  size: number;
  compression?: number;
  compressionName?: string;
}

export interface DecodeBlobIndexOptions {
  /** Accept a blob index without its compression byte (compression 0) and do not decode an inlined
   *  index's expiration (its size is then the bytes after the type). Default: strict. */
  lenient?: boolean;
}

/** Decode a blob index from buf[start, end); throws RangeError on truncated or unknown input. */
export function decodeBlobIndex(
  buf: Uint8Array,
  start = 0,
  end = buf.length,
  opts: DecodeBlobIndexOptions = {},
): BlobIndex {
  if (end <= start) throw new RangeError("empty blob index");
  const type = buf[start]!;
  const c = cursor(buf, start + 1, end);
  if (type === 0) {
    if (opts.lenient) return { kind: "inlined-ttl", size: end - c.pos };
    const expiration = getVarint64Number(c);
    return { kind: "inlined-ttl", expiration, size: end - c.pos };
  }
  if (type !== 1 && type !== 2) throw new RangeError(`unknown blob index type ${type}`);
  const expiration = type === 2 ? getVarint64Number(c) : undefined;
  const fileNumber = getVarint64Number(c);
  const offset = getVarint64Number(c);
  const size = getVarint64Number(c);
  if (c.pos >= end && !opts.lenient) throw new RangeError("blob index lacks its compression byte");
  const compression = c.pos < end ? buf[c.pos]! : 0;
  const out: BlobIndex = {
    kind: type === 1 ? "blob" : "blob-ttl",
    fileNumber,
    offset,
    size,
    compression,
    compressionName: compressionName(compression),
  };
  if (expiration !== undefined) out.expiration = expiration;
  return out;
}

/**
 * Positioned reads from blob files. Descriptors are kept in a least-recently-used cache of
 * `capacity` files (a store may hold tens of thousands of blob files; see util/open_files.ts).
 */
export class BlobFileReader {
  /** Map order is use order: the first entry is the least recently used. */
  private readonly fds = new Map<string, number>();

  constructor(private readonly capacity = openFileCacheCapacity()) {}

  private fd(path: string): number {
    let fd = this.fds.get(path);
    if (fd !== undefined) {
      this.fds.delete(path);
      this.fds.set(path, fd);
      return fd;
    }
    fd = openSync(path, "r");
    this.fds.set(path, fd);
    while (this.fds.size > this.capacity) {
      const [oldest, ofd] = this.fds.entries().next().value as [string, number];
      this.fds.delete(oldest);
      closeSync(ofd);
    }
    return fd;
  }

  /** Descriptors open now. */
  get openFiles(): number {
    return this.fds.size;
  }

  /**
   * The blob value of `idx` (a kBlob/kBlobTTL index into the file at `path`), decompressed: only the
   * value bytes are read.
   */
  readValue(path: string, idx: BlobIndex): Buffer {
    const size = idx.size;
    const offset = idx.offset!;
    if (size > LIMITS.maxBlockBytes)
      throw new LsmscopeError(`blob of ${size} bytes exceeds the limit`, { file: path });
    const buf = Buffer.alloc(size + BLOCK_HEADROOM);
    const n = readSync(this.fd(path), buf, BLOCK_HEADROOM, size, offset);
    if (n !== size)
      throw new LsmscopeError(`blob at ${offset}: read ${n} of ${size} bytes`, { file: path, offset });
    if (!idx.compression) return buf.subarray(BLOCK_HEADROOM);
    try {
      return Buffer.from(
        decompressBlock(createCodecs(5, false), idx.compression, buf, BLOCK_HEADROOM, buf.length),
      );
    } catch (err) {
      throw new LsmscopeError(`blob at ${offset}: ${(err as Error).message}`, {
        file: path,
        offset,
        cause: err,
      });
    }
  }

  close(): void {
    for (const fd of this.fds.values()) closeSync(fd);
    this.fds.clear();
  }
}

/**
 * Read the whole record (header, key, value) a blob index points at, as GetBlob does with checksum
 * verification; returns the bytes read (0 for inlined values). `blobFiles` maps live blob file
 * numbers to paths.
 */
export function readBlobRecord(
  idx: BlobIndex,
  userKeyLength: number,
  blobFiles: Record<string, string>,
): number {
  if (idx.kind === "inlined-ttl") return 0;
  const path = blobFiles[String(idx.fileNumber)];
  if (!path) throw new LsmscopeError(`blob index points at blob file ${idx.fileNumber}, which is not live`);
  const start = idx.offset! - BLOB_RECORD_HEADER - userKeyLength;
  const len = idx.size + BLOB_RECORD_HEADER + userKeyLength;
  if (start < 0 || len > LIMITS.maxBlockBytes)
    throw new LsmscopeError(`blob index offset ${idx.offset} / size ${idx.size} is impossible`, {
      file: path,
    });
  const buf = Buffer.allocUnsafe(len);
  const fd = openSync(path, "r");
  try {
    let done = 0;
    while (done < len) {
      const n = readSync(fd, buf, done, len - done, start + done);
      if (n === 0)
        throw new LsmscopeError(`blob record runs past the end of the file`, { file: path, offset: start });
      done += n;
    }
  } finally {
    closeSync(fd);
  }
  return len;
}
