/**
 * Blob index: the value of a kTypeBlobIndex (0x11) entry, pointing into a blob file
 * (db/blob/blob_index.h). Read to size a blob-separated value without reading the blob.
 *
 *   type u8 = 0 kInlinedTTL:  expiration varint64 | value [rest]
 *   type u8 = 1 kBlob:        file_number varint64 | offset varint64 | size varint64 | compression u8
 *   type u8 = 2 kBlobTTL:     expiration varint64 | file_number varint64 | offset varint64 |
 *                             size varint64 | compression u8
 *
 * `size` is the blob's stored size in the blob file (after blob compression); `offset` is where the
 * blob value starts (past its record header and key).
 */
import { cursor, getVarint64Number } from "../util/coding.js";
import { compressionName } from "../format/compression.js";

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

/** Decode a blob index; throws RangeError on truncated or unknown input. */
export function decodeBlobIndex(buf: Uint8Array, start = 0, end = buf.length): BlobIndex {
  if (end <= start) throw new RangeError("empty blob index");
  const type = buf[start]!;
  const c = cursor(buf, start + 1, end);
  if (type === 0) {
    const expiration = getVarint64Number(c);
    return { kind: "inlined-ttl", expiration, size: end - c.pos };
  }
  if (type !== 1 && type !== 2) throw new RangeError(`unknown blob index type ${type}`);
  const expiration = type === 2 ? getVarint64Number(c) : undefined;
  const fileNumber = getVarint64Number(c);
  const offset = getVarint64Number(c);
  const size = getVarint64Number(c);
  if (c.pos >= end) throw new RangeError("blob index lacks its compression byte");
  const compression = buf[c.pos]!;
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
