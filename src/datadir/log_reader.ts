/**
 * Reader for the RocksDB/LevelDB log format, shared by the MANIFEST and the WAL (db/log_format.h,
 * db/log_reader.cc). See log_format.md beside this file.
 *
 * The file is a sequence of 32 KiB blocks. A block holds physical records; a block's last < 7 bytes
 * (< 11 for recyclable logs) are zero padding ("trailer") that readers skip.
 *
 *   legacy record     : checksum u32 | length u16 | type u8 | payload[length]
 *   recyclable record : checksum u32 | length u16 | type u8 | log_number u32 | payload[length]
 *
 *   checksum  = masked crc32c over type [+ log_number] + payload (the bytes after the length field);
 *               mask(c) = ((c >>> 15) | (c << 17)) + 0xa282ead8
 *   length    = little-endian payload length (a record never crosses a block boundary)
 *   type      = 0 zero (preallocated space), 1 FULL, 2 FIRST, 3 MIDDLE, 4 LAST,
 *               5..8 recyclable FULL/FIRST/MIDDLE/LAST, 9 SetCompressionType (WAL compression),
 *               10/11 user-defined timestamp sizes (legacy/recyclable),
 *               130/131 predecessor WAL info (legacy/recyclable); unknown types with bit 7 set are
 *               ignorable.
 *   log_number = lower 32 bits of the log file's number. A recycled WAL keeps the bytes of its previous
 *               life after the new records; a record whose log_number differs is such a stale record
 *               and ends the log.
 *
 * A logical record is one FULL record, or FIRST, MIDDLE*, LAST. A torn tail (the writer stopped in the
 * middle of a record) is normal at the end of a WAL or MANIFEST and is reported, not thrown.
 */
import { throttleRead } from "../util/throttle.js";
import { openSync, readSync, closeSync, fstatSync } from "node:fs";
import { crc32c } from "@node-rs/crc32";
import { unmaskCrc32c } from "../base/crc.js";
import { LIMITS } from "../util/limits.js";

export const LOG_BLOCK_SIZE = 32768;
export const LOG_HEADER_SIZE = 7;
export const LOG_RECYCLABLE_HEADER_SIZE = 11;

export const enum LogRecordType {
  Zero = 0,
  Full = 1,
  First = 2,
  Middle = 3,
  Last = 4,
  RecyclableFull = 5,
  RecyclableFirst = 6,
  RecyclableMiddle = 7,
  RecyclableLast = 8,
  SetCompressionType = 9,
  UserDefinedTimestampSize = 10,
  RecyclableUserDefinedTimestampSize = 11,
  PredecessorWalInfo = 130,
  RecyclablePredecessorWalInfo = 131,
}

const SAFE_IGNORE_MASK = 0x80;

/** One reassembled logical record. `data` is only valid during the callback (buffers are reused). */
export interface LogRecord {
  /** Offset of the first fragment's header in the file. */
  offset: number;
  data: Uint8Array;
  fragments: number;
}

export type LogIssueKind =
  /** The writer stopped mid-record at the end of the file: normal after a crash or while running. */
  | "torn-tail"
  /** Bad checksum, impossible length or fragment order in the middle of the file. */
  | "corruption"
  /** Records of a recycled log's previous life follow: the log ends here. */
  | "stale-recycled"
  /** Zero-filled (preallocated) space at the end. */
  | "zero-tail"
  /** The WAL is compressed (SetCompressionType record); records after it are not decoded. */
  | "compressed"
  /** An unknown record type. */
  | "unknown-type";

export interface LogIssue {
  kind: LogIssueKind;
  offset: number;
  /** Bytes dropped from `offset`. */
  bytes: number;
  message: string;
  /**
   * A whole record whose checksum fails, with nothing but zeros after it: a WAL's torn last write to
   * WAL recovery, but corruption to a MANIFEST (RocksDB's log reader reports kBadRecordChecksum, and
   * MANIFEST recovery fails on it).
   */
  badChecksum?: true;
}

export interface LogScanResult {
  fileSize: number;
  records: number;
  /** Offset just past the last good physical record. */
  validEnd: number;
  /** The log uses the recyclable record header. */
  recyclable: boolean;
  issues: LogIssue[];
  /** Compression type byte of a SetCompressionType record, if any (WAL compression). */
  compressionType?: number;
}

export interface LogScanOptions {
  /** The log's own file number, to recognise stale records in a recycled log. */
  logNumber?: number;
  /** Verify the record checksums (default true). */
  verifyChecksums?: boolean;
  /** Stop after this many bytes of the file (tests). */
  limitBytes?: number;
  /**
   * A Pebble WAL: types 9-12 are Pebble's WAL-sync chunks (FULL/FIRST/MIDDLE/LAST; record/record.go),
   * whose header is the recyclable one plus an 8-byte sync offset, instead of RocksDB's meanings.
   */
  pebble?: boolean;
}

/** Pebble's WAL-sync chunk types and header (record.go walSync*ChunkEncoding, walSyncHeaderSize). */
const PEBBLE_WAL_SYNC_FIRST_TYPE = 9;
const PEBBLE_WAL_SYNC_LAST_TYPE = 12;
const PEBBLE_WAL_SYNC_HEADER_SIZE = 19;

function isRecyclableType(t: number): boolean {
  return (
    (t >= LogRecordType.RecyclableFull && t <= LogRecordType.RecyclableLast) ||
    t === LogRecordType.RecyclableUserDefinedTimestampSize ||
    t === LogRecordType.RecyclablePredecessorWalInfo
  );
}

/**
 * Read every logical record of a log file, in order, calling `onRecord` for each. Never throws on bad
 * content (only on I/O errors): problems are returned as issues with their offsets.
 */
export function scanLogFile(
  path: string,
  onRecord: (rec: LogRecord) => void,
  opts: LogScanOptions = {},
): LogScanResult {
  const fd = openSync(path, "r");
  try {
    const size = fstatSync(fd).size;
    const fileSize = opts.limitBytes !== undefined ? Math.min(size, opts.limitBytes) : size;
    const read = (buf: Buffer, pos: number, len: number) => {
      const n = readSync(fd, buf, 0, len, pos);
      throttleRead(n);
      return n;
    };
    return scanLog(fileSize, read, onRecord, opts);
  } finally {
    closeSync(fd);
  }
}

/** Same as scanLogFile over an in-memory buffer (tests, synthetic logs). */
export function scanLogBuffer(
  bytes: Uint8Array,
  onRecord: (rec: LogRecord) => void,
  opts: LogScanOptions = {},
): LogScanResult {
  return scanLog(
    bytes.length,
    (buf, pos, len) => {
      const n = Math.max(0, Math.min(len, bytes.length - pos));
      buf.set(bytes.subarray(pos, pos + n), 0);
      return n;
    },
    onRecord,
    opts,
  );
}

const CHUNK_BLOCKS = 32;

function scanLog(
  fileSize: number,
  read: (buf: Buffer, pos: number, len: number) => number,
  onRecord: (rec: LogRecord) => void,
  opts: LogScanOptions,
): LogScanResult {
  const verify = opts.verifyChecksums !== false;
  const expectedLogLow = opts.logNumber !== undefined ? opts.logNumber % 2 ** 32 : undefined;
  const chunkBuf = Buffer.allocUnsafe(LOG_BLOCK_SIZE * CHUNK_BLOCKS);
  // records are handed out as plain Uint8Array views: cheaper to slice than Buffer views
  const chunk = new Uint8Array(chunkBuf.buffer, chunkBuf.byteOffset, chunkBuf.length);
  const issues: LogIssue[] = [];
  const result: LogScanResult = { fileSize, records: 0, validEnd: 0, recyclable: false, issues };

  // fragment assembly
  let assembling = false;
  let asmStart = 0;
  let asmFragments = 0;
  let asm = Buffer.allocUnsafe(64 * 1024);
  let asmLen = 0;
  let firstRecordSeen = false;
  let stop = false;

  const append = (src: Uint8Array): boolean => {
    if (asmLen + src.length > LIMITS.maxLogRecordBytes) return false;
    if (asmLen + src.length > asm.length) {
      const grown = Buffer.allocUnsafe(Math.max(asm.length * 2, asmLen + src.length));
      asm.copy(grown, 0, 0, asmLen);
      asm = grown;
    }
    asm.set(src, asmLen);
    asmLen += src.length;
    return true;
  };
  const dropAssembly = (at: number, why: string) => {
    if (!assembling) return;
    issues.push({
      kind: "corruption",
      offset: asmStart,
      bytes: at - asmStart,
      message: `fragmented record starting here was never completed (${why})`,
    });
    assembling = false;
    asmLen = 0;
  };

  for (let chunkPos = 0; chunkPos < fileSize && !stop; chunkPos += chunkBuf.length) {
    const want = Math.min(chunkBuf.length, fileSize - chunkPos);
    let got = 0;
    while (got < want) {
      const n = read(chunkBuf.subarray(got), chunkPos + got, want - got);
      if (n <= 0) break;
      got += n;
    }
    for (let blockStart = 0; blockStart < got && !stop; blockStart += LOG_BLOCK_SIZE) {
      const blockEnd = Math.min(got, blockStart + LOG_BLOCK_SIZE);
      const isLastBlock = chunkPos + blockEnd >= fileSize;
      let p = blockStart;
      while (!stop) {
        const abs = chunkPos + p;
        const remaining = blockEnd - p;
        if (remaining < LOG_HEADER_SIZE) {
          // trailer padding, or a header cut off at the end of the file
          if (isLastBlock && remaining > 0 && !allZero(chunk, p, blockEnd)) {
            issues.push({
              kind: "torn-tail",
              offset: abs,
              bytes: remaining,
              message: `record header cut off at end of file (${remaining} bytes)`,
            });
            stop = true;
          }
          break;
        }
        const length = chunk[p + 4]! | (chunk[p + 5]! << 8);
        const storedType = chunk[p + 6]!;
        const walSync =
          opts.pebble === true &&
          storedType >= PEBBLE_WAL_SYNC_FIRST_TYPE &&
          storedType <= PEBBLE_WAL_SYNC_LAST_TYPE;
        // a WAL-sync chunk is a recyclable chunk with a longer header: read it as one
        const type = walSync
          ? storedType - PEBBLE_WAL_SYNC_FIRST_TYPE + LogRecordType.RecyclableFull
          : storedType;
        if (type === LogRecordType.Zero && length === 0) {
          // preallocated space: nothing more in this block; at the end of the file, the log ends
          if (chunkPos + got >= fileSize && allZero(chunk, p, got)) {
            issues.push({
              kind: "zero-tail",
              offset: abs,
              bytes: fileSize - abs,
              message: `zero-filled (preallocated) space to end of file`,
            });
            stop = true;
          }
          break;
        }
        const recyclable = isRecyclableType(type);
        const headerSize = walSync
          ? PEBBLE_WAL_SYNC_HEADER_SIZE
          : recyclable
            ? LOG_RECYCLABLE_HEADER_SIZE
            : LOG_HEADER_SIZE;
        if (recyclable) {
          if (firstRecordSeen && !result.recyclable) {
            issues.push({
              kind: "corruption",
              offset: abs,
              bytes: blockEnd - p,
              message: `recyclable record type ${type} in a log that did not start with one`,
            });
            dropAssembly(abs, "bad record");
            break;
          }
          result.recyclable = true;
        }
        if (headerSize + length > remaining) {
          if (isLastBlock) {
            issues.push({
              kind: "torn-tail",
              offset: abs,
              bytes: fileSize - abs,
              message: `record of ${length} bytes runs past end of file (${remaining - headerSize} present)`,
            });
            stop = true;
          } else {
            issues.push({
              kind: "corruption",
              offset: abs,
              bytes: blockEnd - p,
              message: `record length ${length} runs past its 32 KiB block`,
            });
            dropAssembly(abs, "bad record length");
          }
          break;
        }
        if (recyclable && expectedLogLow !== undefined) {
          const logLow = readU32(chunk, p + 7);
          if (logLow !== expectedLogLow) {
            issues.push({
              kind: "stale-recycled",
              offset: abs,
              bytes: fileSize - abs,
              message: `records of an earlier use of this recycled log follow (log number ${logLow}, expected ${expectedLogLow})`,
            });
            if (assembling) dropAssembly(abs, "log ends at stale records");
            stop = true;
            break;
          }
        }
        if (verify) {
          const expected = unmaskCrc32c(readU32(chunk, p));
          const actual = crc32c(chunk.subarray(p + 6, p + headerSize + length)) >>> 0;
          if (expected !== actual) {
            const endOfData = isLastBlock && allZero(chunk, p + headerSize + length, got);
            issues.push({
              kind: endOfData ? "torn-tail" : "corruption",
              offset: abs,
              bytes: endOfData ? fileSize - abs : blockEnd - p,
              message: `record checksum mismatch (type ${type}, length ${length})`,
              badChecksum: true,
            });
            dropAssembly(abs, "checksum mismatch");
            if (endOfData) stop = true;
            break; // drop the rest of the block, as RocksDB does
          }
        }
        firstRecordSeen = true;
        const payload = chunk.subarray(p + headerSize, p + headerSize + length);
        p += headerSize + length;
        result.validEnd = chunkPos + p;
        switch (type) {
          case LogRecordType.Full:
          case LogRecordType.RecyclableFull:
            if (assembling) dropAssembly(abs, "FULL record inside a fragmented record");
            result.records++;
            onRecord({ offset: abs, data: payload, fragments: 1 });
            break;
          case LogRecordType.First:
          case LogRecordType.RecyclableFirst:
            if (assembling) dropAssembly(abs, "FIRST record inside a fragmented record");
            assembling = true;
            asmStart = abs;
            asmFragments = 1;
            asmLen = 0;
            append(payload);
            break;
          case LogRecordType.Middle:
          case LogRecordType.RecyclableMiddle:
          case LogRecordType.Last:
          case LogRecordType.RecyclableLast: {
            const last = type === LogRecordType.Last || type === LogRecordType.RecyclableLast;
            if (!assembling) {
              issues.push({
                kind: "corruption",
                offset: abs,
                bytes: headerSize + length,
                message: `${last ? "LAST" : "MIDDLE"} fragment without a FIRST`,
              });
              break;
            }
            asmFragments++;
            if (!append(payload)) {
              issues.push({
                kind: "corruption",
                offset: asmStart,
                bytes: chunkPos + p - asmStart,
                message: `record larger than ${LIMITS.maxLogRecordBytes} bytes`,
              });
              assembling = false;
              asmLen = 0;
              break;
            }
            if (last) {
              assembling = false;
              result.records++;
              onRecord({ offset: asmStart, data: asm.subarray(0, asmLen), fragments: asmFragments });
              asmLen = 0;
            }
            break;
          }
          case LogRecordType.SetCompressionType: {
            result.compressionType = payload.length > 0 ? payload[0] : 0;
            const rest = fileSize - (chunkPos + p);
            if (result.compressionType !== 0) {
              // records after this one are compressed as one stream: not decoded here
              if (rest > 0 && !allZero(chunk, p, got))
                issues.push({
                  kind: "compressed",
                  offset: chunkPos + p,
                  bytes: rest,
                  message: `WAL compression type ${result.compressionType}: ${rest} bytes of compressed records not decoded`,
                });
              stop = true;
            }
            break;
          }
          case LogRecordType.UserDefinedTimestampSize:
          case LogRecordType.RecyclableUserDefinedTimestampSize:
          case LogRecordType.PredecessorWalInfo:
          case LogRecordType.RecyclablePredecessorWalInfo:
            break; // metadata records: nothing for the model
          default:
            if ((type & SAFE_IGNORE_MASK) === 0) {
              issues.push({
                kind: "unknown-type",
                offset: abs,
                bytes: headerSize + length,
                message: `unknown record type ${type}`,
              });
            }
        }
      }
    }
  }
  if (assembling && !stop) {
    issues.push({
      kind: "torn-tail",
      offset: asmStart,
      bytes: fileSize - asmStart,
      message: `file ends inside a fragmented record (${asmFragments} fragments present)`,
    });
  }
  return result;
}

function readU32(b: Uint8Array, p: number): number {
  return (b[p]! | (b[p + 1]! << 8) | (b[p + 2]! << 16) | (b[p + 3]! << 24)) >>> 0;
}

function allZero(b: Uint8Array, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (b[i] !== 0) return false;
  return true;
}
