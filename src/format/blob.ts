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
import { throttleRead } from "../util/throttle.js";
import { closeSync, readSync } from "node:fs";
import { openRegularFile } from "../util/regular_file.js";
import { maskedCrc32c } from "../base/crc.js";
import { OpenFileCache, openFileCacheCapacity } from "../util/open_files.js";
import { cursor, getVarint64Number, readFixed32, readFixed64 } from "../util/coding.js";
import { CorruptionError, LsmscopeError } from "../util/errors.js";
import { LIMITS } from "../util/limits.js";
import { lowerBound } from "../util/lower_bound.js";
import { compressionName } from "../base/compression_type.js";
import { BLOCK_HEADROOM, createCodecs, decompressBlock } from "./compression.js";

/**
 * BlobDB's blob files (db/blob/blob_log_format.h; datadir/blob_file.ts reads their header, footer and
 * records for `inspect`, this module their records for the values):
 *   header (30 bytes): magic fixed32 | version fixed32 | column family id fixed32 | flags u8 |
 *                      compression u8 | expiration range fixed64 x 2
 *   record           : key length fixed64 | value length fixed64 | expiration fixed64 |
 *                      header crc fixed32 | blob crc fixed32 | key | value
 *   footer (32 bytes): magic fixed32 | blob count fixed64 | expiration range fixed64 x 2 | crc fixed32
 */
export const BLOB_MAGIC = 0x00248f37;
export const BLOB_FILE_HEADER = 30;
export const BLOB_FILE_FOOTER = 32;
export const BLOB_RECORD_HEADER = 32;
/** Where the header keeps the compression type of every blob in the file. */
export const BLOB_HEADER_COMPRESSION_AT = 13;

/**
 * What RocksDB refuses in a live blob file's header or footer (BlobLogHeader/BlobLogFooter::DecodeFrom,
 * BlobFileReader), one line each: the rules that use them (datadir/blob_file.ts blobFileRefusals) and
 * the value sizer's own read say the same.
 */
export const blobFileProblem = {
  magic: (magic: number) => `blob header magic 0x${magic.toString(16)} is not 0x${BLOB_MAGIC.toString(16)}`,
  version: (version: number) => `blob file version ${version} (RocksDB reads only version 1)`,
  columnFamily: (inFile: number, inManifest: number) =>
    `blob header names column family ${inFile}, MANIFEST puts it in ${inManifest}`,
  cutShort: "no blob file footer: the live blob file was cut short",
  footerCrc: "blob file footer checksum mismatch",
};

/**
 * A blob record's header at `at` of `b` (32 bytes there): its key and value lengths, or what is wrong
 * with it, the header crc (masked crc32c of key length, value length and expiration) not matching, as
 * BlobLogRecord::CheckHeaderCRC finds it.
 */
export function blobRecordHeader(
  b: Uint8Array,
  at: number,
): { keyLength: number; valueLength: number } | string {
  if (readFixed32(b, at + 24) !== maskedCrc32c(b.subarray(at, at + 24)))
    return "blob record header checksum mismatch";
  return { keyLength: Number(readFixed64(b, at)), valueLength: Number(readFixed64(b, at + 8)) };
}

/**
 * Whether the blob crc (masked crc32c of key ‖ value) of the record whose header is at `at` of `b`
 * matches its `body` (the key and value), as BlobLogRecord::CheckBlobCRC checks it.
 */
export function blobCrcMatches(b: Uint8Array, at: number, body: Uint8Array): boolean {
  return readFixed32(b, at + 28) === maskedCrc32c(body);
}

/**
 * What is wrong with the blob record `rec` (its 32-byte header, key and value, in that order), or
 * undefined: the header crc and the blob crc, as BlobLogRecord::CheckBlobCRC and GetBlob with
 * verify_checksums check them. `expect` also checks the lengths a blob index and its user key imply.
 */
export function blobRecordProblem(
  rec: Uint8Array,
  expect?: { keyLength: number; valueLength: number },
): string | undefined {
  const h = blobRecordHeader(rec, 0);
  if (typeof h === "string") return h;
  const { keyLength, valueLength } = h;
  if (expect && (keyLength !== expect.keyLength || valueLength !== expect.valueLength))
    return `blob record holds a ${keyLength}-byte key and ${valueLength}-byte value, its index says ${expect.keyLength} and ${expect.valueLength}`;
  if (BLOB_RECORD_HEADER + keyLength + valueLength > rec.length) return "blob record runs past its bytes";
  if (!blobCrcMatches(rec, 0, rec.subarray(BLOB_RECORD_HEADER, BLOB_RECORD_HEADER + keyLength + valueLength)))
    return "blob record checksum mismatch (key or value damaged)";
  return undefined;
}

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
  private readonly fds: OpenFileCache<number>;

  constructor(capacity = openFileCacheCapacity()) {
    this.fds = new OpenFileCache(openBlobFile, closeSync, capacity);
  }

  /** Descriptors open now. */
  get openFiles(): number {
    return this.fds.size;
  }

  /**
   * The blob value of `idx` (a kBlob/kBlobTTL index into the file at `path`), decompressed. With the
   * entry's `userKey`, the whole record is read and checked as GetBlob does with verify_checksums (both
   * crcs, the lengths, the key); without it only the value bytes are read.
   */
  readValue(path: string, idx: BlobIndex, userKey?: Uint8Array): Buffer {
    const size = idx.size;
    const offset = idx.offset!;
    const keyLength = userKey?.length ?? 0;
    const front = userKey ? BLOB_RECORD_HEADER + keyLength : 0;
    const start = offset - front;
    if (size + front > LIMITS.maxBlockBytes || start < 0)
      throw new CorruptionError(`blob index offset ${offset} / size ${size} is impossible`, path, offset);
    const buf = Buffer.alloc(BLOCK_HEADROOM + front + size);
    const n = readSync(this.fds.get(path), buf, BLOCK_HEADROOM, front + size, start);
    throttleRead(n);
    if (n !== front + size)
      throw new CorruptionError(
        `blob record runs past the end of the file (read ${n} of ${front + size} bytes)`,
        path,
        start,
      );
    if (userKey) {
      const rec = buf.subarray(BLOCK_HEADROOM);
      const problem =
        blobRecordProblem(rec, { keyLength, valueLength: size }) ??
        (Buffer.compare(rec.subarray(BLOB_RECORD_HEADER, front), userKey) !== 0
          ? "blob record holds another key than its index's entry"
          : undefined);
      if (problem) throw new CorruptionError(problem, path, start);
    }
    const valueAt = BLOCK_HEADROOM + front;
    if (!idx.compression) return buf.subarray(valueAt);
    try {
      return Buffer.from(decompressBlock(createCodecs(5, false), idx.compression, buf, valueAt, buf.length));
    } catch (err) {
      throw new CorruptionError(`blob at ${offset}: ${(err as Error).message}`, path, offset, err);
    }
  }

  close(): void {
    this.fds.close();
  }
}

const openBlobFile = (path: string): number => openRegularFile(path).fd;

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
  const { fd } = openRegularFile(path);
  try {
    let done = 0;
    while (done < len) {
      const n = readSync(fd, buf, done, len - done, start + done);
      if (n === 0) throw new CorruptionError("blob record runs past the end of the file", path, start);
      done += n;
    }
    throttleRead(done);
  } finally {
    closeSync(fd);
  }
  const problem = blobRecordProblem(buf, { keyLength: userKeyLength, valueLength: idx.size });
  if (problem) throw new CorruptionError(problem, path, start);
  return len;
}

/** A varint32 length prefix is at most 5 bytes. */
const LENGTH_PREFIX_MAX = 5;

/**
 * The length a Get returns for a blob value stored as `stored` bytes under `compression`, from the first
 * bytes of the stored value: uncompressed, the stored size; compressed, the varint32 that opens it (blob
 * files compress with compress_format_version 2, whose prefix is the uncompressed length; Snappy's own
 * stream opens with the same varint). Throws RangeError when the prefix is cut short or runs past 5 bytes.
 * Read as a varint64 within its 5 bytes: getVarint32 would wrap a corrupt prefix's value at 2^32, where
 * this reports all 35 bits of it.
 */
export function blobValueLength(head: Uint8Array, compression: number, stored: number): number {
  if (compression === 0) return stored;
  return getVarint64Number(cursor(head, 0, Math.min(head.length, stored, LENGTH_PREFIX_MAX)));
}

/** Value offsets of one blob file's records (ascending) and the lengths a Get returns for them. */
interface BlobFileLengths {
  offsets: Float64Array;
  lengths: Float64Array;
}

/**
 * Read a blob file front to back once (1 MiB reads): for every record, where its value starts and the
 * length a Get returns for it (blobValueLength; the compression is the file header's). Stops at the
 * footer, or at the first record that runs past the end (a torn tail).
 */
export function readBlobFileLengths(path: string): BlobFileLengths {
  const { fd, size } = openRegularFile(path);
  try {
    const CHUNK = 1 << 20;
    let buf = Buffer.alloc(CHUNK);
    let bufStart = 0;
    let bufLen = 0;
    // bytes [pos, pos + n) in the buffer, reading forward from pos when they are not
    const ensure = (pos: number, n: number): number => {
      if (pos >= bufStart && pos + n <= bufStart + bufLen) return pos - bufStart;
      if (n > buf.length) buf = Buffer.alloc(n);
      bufStart = pos;
      bufLen = readSync(fd, buf, 0, Math.min(buf.length, size - pos), pos);
      throttleRead(bufLen);
      if (bufLen < n) throw new LsmscopeError(`blob record at ${pos} runs past the end`, { file: path });
      return 0;
    };
    if (size < BLOB_FILE_HEADER) throw new LsmscopeError("blob file has no header", { file: path });
    const header = ensure(0, BLOB_FILE_HEADER);
    // as RocksDB's BlobLogHeader::DecodeFrom refuses them: its values cannot be read
    const magic = readFixed32(buf, header);
    if (magic !== BLOB_MAGIC) throw new CorruptionError(blobFileProblem.magic(magic), path, 0);
    const version = readFixed32(buf, header + 4);
    if (version !== 1) throw new CorruptionError(blobFileProblem.version(version), path, 4);
    const compression = buf[header + BLOB_HEADER_COMPRESSION_AT]!;
    let end = size;
    if (size >= BLOB_FILE_HEADER + BLOB_FILE_FOOTER) {
      const f = Buffer.alloc(4);
      readSync(fd, f, 0, 4, size - BLOB_FILE_FOOTER);
      if (readFixed32(f, 0) === BLOB_MAGIC) end = size - BLOB_FILE_FOOTER;
    }
    const offsets: number[] = [];
    const lengths: number[] = [];
    let pos = BLOB_FILE_HEADER;
    while (pos + BLOB_RECORD_HEADER <= end) {
      const h = blobRecordHeader(buf, ensure(pos, BLOB_RECORD_HEADER));
      if (typeof h === "string") throw new CorruptionError(h, path, pos);
      const keyLen = h.keyLength;
      const valueLen = h.valueLength;
      const valueAt = pos + BLOB_RECORD_HEADER + keyLen;
      const recordLen = BLOB_RECORD_HEADER + keyLen + valueLen;
      if (valueAt + valueLen > end || recordLen > LIMITS.maxBlockBytes) break;
      // the whole record is in memory (the file is read front to back): its blob crc is checked
      const r = ensure(pos, recordLen);
      if (!blobCrcMatches(buf, r, buf.subarray(r + BLOB_RECORD_HEADER, r + recordLen)))
        throw new CorruptionError("blob record checksum mismatch (key or value damaged)", path, pos);
      const v = r + BLOB_RECORD_HEADER + keyLen;
      offsets.push(valueAt);
      lengths.push(
        blobValueLength(buf.subarray(v, v + Math.min(valueLen, LENGTH_PREFIX_MAX)), compression, valueLen),
      );
      pos = valueAt + valueLen;
    }
    return { offsets: Float64Array.from(offsets), lengths: Float64Array.from(lengths) };
  } finally {
    closeSync(fd);
  }
}

/**
 * The length a Get returns for blob-indexed values. `sequential`: each blob file is read front to back
 * once, on its first use (full scans, which meet most blobs of a file); `record`: only the first bytes
 * of each blob value are read where its index points (sampling). Inlined TTL values are their own size.
 */
export class BlobValueSizer {
  private readonly files = new Map<string, BlobFileLengths>();
  private readonly fds: OpenFileCache<number>;
  private readonly head = Buffer.alloc(LENGTH_PREFIX_MAX);

  constructor(
    /** Live blob files by file number. */
    private readonly paths: Record<string, string>,
    private readonly mode: "sequential" | "record",
    /** Live blob files RocksDB would not open, by file number, with why: their values are not read. */
    private readonly refused: Record<string, string> = {},
    capacity = openFileCacheCapacity(),
  ) {
    this.fds = new OpenFileCache(openBlobFile, closeSync, capacity);
  }

  /** Descriptors open now (record mode). */
  get openFiles(): number {
    return this.fds.size;
  }

  /** The value length of `bi`; throws when its blob file is missing or the record cannot be read. */
  valueLength(bi: BlobIndex): number {
    if (bi.kind === "inlined-ttl") return bi.size;
    const path = this.paths[String(bi.fileNumber)];
    if (!path) throw new LsmscopeError(`blob index points at blob file ${bi.fileNumber}, which is not live`);
    const refusal = this.refused[String(bi.fileNumber)];
    if (refusal !== undefined) throw new CorruptionError(refusal, path, 0);
    if (this.mode === "record") {
      if (!bi.compression) return bi.size;
      const n = readSync(this.fds.get(path), this.head, 0, Math.min(LENGTH_PREFIX_MAX, bi.size), bi.offset!);
      throttleRead(n);
      return blobValueLength(this.head.subarray(0, n), bi.compression, bi.size);
    }
    let f = this.files.get(path);
    if (!f) this.files.set(path, (f = readBlobFileLengths(path)));
    const at = bi.offset!;
    const offsets = f.offsets;
    const i = lowerBound(offsets.length, (j) => offsets[j]! < at);
    if (offsets[i] === at) return f.lengths[i]!;
    throw new LsmscopeError(`no blob record starts its value at ${at}`, { file: path, offset: at });
  }

  close(): void {
    this.fds.close();
    this.files.clear();
  }
}
