/**
 * Resolving a blob index to its blob record, the way RocksDB's BlobFileReader::GetBlob reads it.
 *
 * Blob index (db/blob/blob_index.h), the value of a kTypeBlobIndex entry:
 *   type u8: 0 = inlined TTL | 1 = blob | 2 = blob with TTL
 *   blob:      file number varint64 | offset varint64 | size varint64 | compression u8
 *   blob TTL:  expiration varint64 | then as blob
 *   inlined:   expiration varint64 | value (rest)
 *
 * Blob record in the blob file (db/blob/blob_log_format.h): header (32 bytes: key length fixed64, value
 * length fixed64, expiration fixed64, header crc fixed32, blob crc fixed32) | key | value. The index's
 * offset points at the value; with ReadOptions::verify_checksums (the default) RocksDB reads the whole
 * record, header and key included, so one lookup reads size + 32 + key length bytes.
 */
import { closeSync, openSync, readSync } from "node:fs";
import { cursor, getVarint64Number } from "../util/coding.js";
import { LIMITS } from "../util/limits.js";
import { LsmscopeError } from "../util/errors.js";

export const BLOB_RECORD_HEADER = 32;

export interface BlobIndex {
  kind: "inlined" | "blob";
  fileNumber?: number;
  offset?: number;
  size?: number;
  compression?: number;
}

export function decodeBlobIndex(value: Uint8Array): BlobIndex {
  if (value.length < 1) throw new RangeError("empty blob index");
  const c = cursor(value, 1);
  const type = value[0]!;
  if (type === 0) return { kind: "inlined" };
  if (type !== 1 && type !== 2) throw new RangeError(`unknown blob index type ${type}`);
  if (type === 2) getVarint64Number(c);
  const fileNumber = getVarint64Number(c);
  const offset = getVarint64Number(c);
  const size = getVarint64Number(c);
  const compression = c.pos < c.end ? value[c.pos]! : 0;
  return { kind: "blob", fileNumber, offset, size, compression };
}

/** Read the record a blob index points at; returns the bytes read (0 for inlined values). */
export function readBlobRecord(
  idx: BlobIndex,
  userKeyLength: number,
  blobFiles: Record<string, string>,
): number {
  if (idx.kind !== "blob") return 0;
  const path = blobFiles[String(idx.fileNumber)];
  if (!path) throw new LsmscopeError(`blob index points at blob file ${idx.fileNumber}, which is not live`);
  const start = idx.offset! - BLOB_RECORD_HEADER - userKeyLength;
  const len = idx.size! + BLOB_RECORD_HEADER + userKeyLength;
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
