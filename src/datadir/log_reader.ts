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
import { readSync, closeSync } from "node:fs";
import { openRegularFile } from "../util/regular_file.js";
import { maskedCrc32cRange } from "../base/crc.js";
import { LIMITS } from "../util/limits.js";
import { grownKeeping } from "../util/grow.js";
import { readFixed32 } from "../util/coding.js";
import { ZstdStreamDecoder } from "../format/zstd_stream.js";
import { CompressionType } from "../base/compression_type.js";

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
  const { fd, size } = openRegularFile(path);
  try {
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
  return new LogScanner(fileSize, read, onRecord, opts).scan();
}

/** A physical record's header as stored: its type read through Pebble's WAL-sync chunks. */
interface PhysicalHeader {
  /** Payload length. */
  length: number;
  /** Record type (a Pebble WAL-sync chunk as the recyclable type of the same fragment kind). */
  type: number;
  recyclable: boolean;
  /** Header bytes before the payload. */
  headerSize: number;
}

/**
 * One pass over a log (LevelDB log::Reader): chunks of 32 KiB blocks are read, each block's physical
 * records checked (header, length, log number, checksum) and fragments assembled into logical records.
 * A bad record drops the rest of its block, as RocksDB does; the end of the log stops the pass.
 */
class LogScanner {
  private readonly verify: boolean;
  private readonly expectedLogLow: number | undefined;
  private readonly chunkBuf = Buffer.allocUnsafe(LOG_BLOCK_SIZE * CHUNK_BLOCKS);
  // records are handed out as plain Uint8Array views: cheaper to slice than Buffer views
  private readonly chunk = new Uint8Array(
    this.chunkBuf.buffer,
    this.chunkBuf.byteOffset,
    this.chunkBuf.length,
  );
  private readonly issues: LogIssue[] = [];
  private readonly result: LogScanResult;
  /** File offset of the chunk in `chunk`, and the bytes read into it. */
  private chunkPos = 0;
  private got = 0;
  private firstRecordSeen = false;
  /** The log ends here (torn tail, zero tail, stale records, compressed records not decoded). */
  private stop = false;
  /** After a SetCompressionType record of ZSTD: the stream the data fragments are pieces of. */
  private zstd: ZstdStreamDecoder | undefined;
  // fragment assembly
  private assembling = false;
  private asmStart = 0;
  private asmFragments = 0;
  private asm = Buffer.allocUnsafe(64 * 1024);
  private asmLen = 0;
  /** The header of the record being read (one object, filled per record: no allocation per record). */
  private readonly h: PhysicalHeader = { length: 0, type: 0, recyclable: false, headerSize: 0 };

  constructor(
    private readonly fileSize: number,
    private readonly read: (buf: Buffer, pos: number, len: number) => number,
    private readonly onRecord: (rec: LogRecord) => void,
    private readonly opts: LogScanOptions,
  ) {
    this.verify = opts.verifyChecksums !== false;
    this.expectedLogLow = opts.logNumber !== undefined ? opts.logNumber % 2 ** 32 : undefined;
    this.result = { fileSize, records: 0, validEnd: 0, recyclable: false, issues: this.issues };
  }

  scan(): LogScanResult {
    for (; this.chunkPos < this.fileSize && !this.stop; this.chunkPos += this.chunkBuf.length) {
      this.readChunk();
      for (let blockStart = 0; blockStart < this.got && !this.stop; blockStart += LOG_BLOCK_SIZE)
        this.scanBlock(blockStart, Math.min(this.got, blockStart + LOG_BLOCK_SIZE));
    }
    if (this.assembling && !this.stop) {
      this.issues.push({
        kind: "torn-tail",
        offset: this.asmStart,
        bytes: this.fileSize - this.asmStart,
        message: `file ends inside a fragmented record (${this.asmFragments} fragments present)`,
      });
    }
    return this.result;
  }

  private readChunk(): void {
    const want = Math.min(this.chunkBuf.length, this.fileSize - this.chunkPos);
    this.got = 0;
    while (this.got < want) {
      const n = this.read(this.chunkBuf.subarray(this.got), this.chunkPos + this.got, want - this.got);
      if (n <= 0) break;
      this.got += n;
    }
  }

  /** The physical records of one block, from `p` until its trailer, a bad record or the end of the log. */
  private scanBlock(blockStart: number, blockEnd: number): void {
    const isLastBlock = this.chunkPos + blockEnd >= this.fileSize;
    let p = blockStart;
    while (!this.stop) {
      const next = this.physicalRecord(p, blockEnd, isLastBlock);
      if (next < 0) return;
      p = next;
    }
  }

  /** The physical record at `p`, checked and handed on: the offset after it, or -1 when the block ends. */
  private physicalRecord(p: number, blockEnd: number, isLastBlock: boolean): number {
    const abs = this.chunkPos + p;
    const remaining = blockEnd - p;
    if (remaining < LOG_HEADER_SIZE) {
      // trailer padding, or a header cut off at the end of the file
      if (isLastBlock && remaining > 0 && !allZero(this.chunk, p, blockEnd)) {
        this.issues.push({
          kind: "torn-tail",
          offset: abs,
          bytes: remaining,
          message: `record header cut off at end of file (${remaining} bytes)`,
        });
        this.stop = true;
      }
      return -1;
    }
    const h = this.header(p);
    if (h.type === LogRecordType.Zero && h.length === 0) {
      this.zeroSpace(p, abs);
      return -1;
    }
    if (!this.checkRecyclable(h, p, abs, blockEnd)) return -1;
    if (!this.checkLength(h, abs, remaining, blockEnd - p, isLastBlock)) return -1;
    if (!this.checkLogNumber(h, p, abs)) return -1;
    if (!this.checkChecksum(h, p, abs, blockEnd - p, isLastBlock)) return -1;
    this.firstRecordSeen = true;
    const payload = this.chunk.subarray(p + h.headerSize, p + h.headerSize + h.length);
    const next = p + h.headerSize + h.length;
    this.result.validEnd = this.chunkPos + next;
    this.deliver(h, payload, abs, next);
    return next;
  }

  private header(p: number): PhysicalHeader {
    const chunk = this.chunk;
    const length = chunk[p + 4]! | (chunk[p + 5]! << 8);
    const storedType = chunk[p + 6]!;
    const walSync =
      this.opts.pebble === true &&
      storedType >= PEBBLE_WAL_SYNC_FIRST_TYPE &&
      storedType <= PEBBLE_WAL_SYNC_LAST_TYPE;
    // a WAL-sync chunk is a recyclable chunk with a longer header: read it as one
    const type = walSync
      ? storedType - PEBBLE_WAL_SYNC_FIRST_TYPE + LogRecordType.RecyclableFull
      : storedType;
    const recyclable = isRecyclableType(type);
    const headerSize = walSync
      ? PEBBLE_WAL_SYNC_HEADER_SIZE
      : recyclable
        ? LOG_RECYCLABLE_HEADER_SIZE
        : LOG_HEADER_SIZE;
    const h = this.h;
    h.length = length;
    h.type = type;
    h.recyclable = recyclable;
    h.headerSize = headerSize;
    return h;
  }

  /** Preallocated space: nothing more in this block; at the end of the file, the log ends. */
  private zeroSpace(p: number, abs: number): void {
    if (this.chunkPos + this.got >= this.fileSize && allZero(this.chunk, p, this.got)) {
      this.issues.push({
        kind: "zero-tail",
        offset: abs,
        bytes: this.fileSize - abs,
        message: `zero-filled (preallocated) space to end of file`,
      });
      this.stop = true;
    }
  }

  /** A recyclable record only in a log that started with one. */
  private checkRecyclable(h: PhysicalHeader, p: number, abs: number, blockEnd: number): boolean {
    if (!h.recyclable) return true;
    if (this.firstRecordSeen && !this.result.recyclable) {
      this.issues.push({
        kind: "corruption",
        offset: abs,
        bytes: blockEnd - p,
        message: `recyclable record type ${h.type} in a log that did not start with one`,
      });
      this.dropAssembly(abs, "bad record");
      return false;
    }
    this.result.recyclable = true;
    return true;
  }

  /** The record within its block: past the end of the file it is a torn tail, else corruption. */
  private checkLength(
    h: PhysicalHeader,
    abs: number,
    remaining: number,
    restOfBlock: number,
    isLastBlock: boolean,
  ): boolean {
    if (h.headerSize + h.length <= remaining) return true;
    if (isLastBlock) {
      this.issues.push({
        kind: "torn-tail",
        offset: abs,
        bytes: this.fileSize - abs,
        message: `record of ${h.length} bytes runs past end of file (${remaining - h.headerSize} present)`,
      });
      this.stop = true;
    } else {
      this.issues.push({
        kind: "corruption",
        offset: abs,
        bytes: restOfBlock,
        message: `record length ${h.length} runs past its 32 KiB block`,
      });
      this.dropAssembly(abs, "bad record length");
    }
    return false;
  }

  /** A recyclable record of another log number is a stale record of the log's earlier use: the end. */
  private checkLogNumber(h: PhysicalHeader, p: number, abs: number): boolean {
    if (!h.recyclable || this.expectedLogLow === undefined) return true;
    const logLow = readFixed32(this.chunk, p + 7);
    if (logLow === this.expectedLogLow) return true;
    this.issues.push({
      kind: "stale-recycled",
      offset: abs,
      bytes: this.fileSize - abs,
      message: `records of an earlier use of this recycled log follow (log number ${logLow}, expected ${this.expectedLogLow})`,
    });
    if (this.assembling) this.dropAssembly(abs, "log ends at stale records");
    this.stop = true;
    return false;
  }

  /** The record's checksum; a bad one followed by zeros only is a torn tail. */
  private checkChecksum(
    h: PhysicalHeader,
    p: number,
    abs: number,
    restOfBlock: number,
    isLastBlock: boolean,
  ): boolean {
    if (!this.verify) return true;
    const end = p + h.headerSize + h.length;
    if (readFixed32(this.chunk, p) === maskedCrc32cRange(this.chunk, p + 6, end)) return true;
    const endOfData = isLastBlock && allZero(this.chunk, end, this.got);
    this.issues.push({
      kind: endOfData ? "torn-tail" : "corruption",
      offset: abs,
      bytes: endOfData ? this.fileSize - abs : restOfBlock,
      message: `record checksum mismatch (type ${h.type}, length ${h.length})`,
      badChecksum: true,
    });
    this.dropAssembly(abs, "checksum mismatch");
    if (endOfData) this.stop = true;
    return false; // drop the rest of the block, as RocksDB does
  }

  /** A good physical record by its type: a whole record, a fragment, or metadata. `next`: offset after it. */
  private deliver(h: PhysicalHeader, payload: Uint8Array, abs: number, next: number): void {
    if (this.zstd && h.type >= LogRecordType.Full && h.type <= LogRecordType.RecyclableLast) {
      // a compressed WAL: each data fragment is the stream's next piece (log_reader.cc decodes it so)
      try {
        payload = this.zstd.next(payload);
      } catch (e) {
        this.issues.push({
          kind: "corruption",
          offset: abs,
          bytes: this.fileSize - abs,
          message: `compressed record does not decode: ${(e as Error).message}`,
        });
        this.dropAssembly(abs, "compressed record does not decode");
        this.stop = true;
        return;
      }
    }
    switch (h.type) {
      case LogRecordType.Full:
      case LogRecordType.RecyclableFull:
        if (this.assembling) this.dropAssembly(abs, "FULL record inside a fragmented record");
        this.result.records++;
        this.onRecord({ offset: abs, data: payload, fragments: 1 });
        break;
      case LogRecordType.First:
      case LogRecordType.RecyclableFirst:
        if (this.assembling) this.dropAssembly(abs, "FIRST record inside a fragmented record");
        this.assembling = true;
        this.asmStart = abs;
        this.asmFragments = 1;
        this.asmLen = 0;
        this.append(payload);
        break;
      case LogRecordType.Middle:
      case LogRecordType.RecyclableMiddle:
      case LogRecordType.Last:
      case LogRecordType.RecyclableLast:
        this.laterFragment(h, payload, abs, next);
        break;
      case LogRecordType.SetCompressionType:
        this.setCompressionType(payload, next);
        break;
      case LogRecordType.UserDefinedTimestampSize:
      case LogRecordType.RecyclableUserDefinedTimestampSize:
      case LogRecordType.PredecessorWalInfo:
      case LogRecordType.RecyclablePredecessorWalInfo:
        break; // metadata records: nothing for the model
      default:
        if ((h.type & SAFE_IGNORE_MASK) === 0) {
          this.issues.push({
            kind: "unknown-type",
            offset: abs,
            bytes: h.headerSize + h.length,
            message: `unknown record type ${h.type}`,
          });
        }
    }
  }

  /** A MIDDLE or LAST fragment: appended to the record being assembled; LAST hands it out. */
  private laterFragment(h: PhysicalHeader, payload: Uint8Array, abs: number, next: number): void {
    const last = h.type === LogRecordType.Last || h.type === LogRecordType.RecyclableLast;
    if (!this.assembling) {
      this.issues.push({
        kind: "corruption",
        offset: abs,
        bytes: h.headerSize + h.length,
        message: `${last ? "LAST" : "MIDDLE"} fragment without a FIRST`,
      });
      return;
    }
    this.asmFragments++;
    if (!this.append(payload)) {
      this.issues.push({
        kind: "corruption",
        offset: this.asmStart,
        bytes: this.chunkPos + next - this.asmStart,
        message: `record larger than ${LIMITS.maxLogRecordBytes} bytes`,
      });
      this.assembling = false;
      this.asmLen = 0;
      return;
    }
    if (last) {
      this.assembling = false;
      this.result.records++;
      this.onRecord({
        offset: this.asmStart,
        data: this.asm.subarray(0, this.asmLen),
        fragments: this.asmFragments,
      });
      this.asmLen = 0;
    }
  }

  /**
   * WAL compression: the records after a non-zero type are one compressed stream. ZSTD, the only type
   * RocksDB's WAL writer takes (StreamingCompressionTypeSupported), is decoded; another is not.
   */
  private setCompressionType(payload: Uint8Array, next: number): void {
    this.result.compressionType = payload.length > 0 ? payload[0] : 0;
    const rest = this.fileSize - (this.chunkPos + next);
    if (this.result.compressionType === 0) return;
    if (this.result.compressionType === CompressionType.ZSTD) {
      this.zstd = new ZstdStreamDecoder();
      return;
    }
    if (rest > 0 && !allZero(this.chunk, next, this.got))
      this.issues.push({
        kind: "compressed",
        offset: this.chunkPos + next,
        bytes: rest,
        message: `WAL compression type ${this.result.compressionType}: ${rest} bytes of compressed records not decoded`,
      });
    this.stop = true;
  }

  private append(src: Uint8Array): boolean {
    if (this.asmLen + src.length > LIMITS.maxLogRecordBytes) return false;
    this.asm = grownKeeping(this.asm, this.asmLen, this.asmLen + src.length);
    this.asm.set(src, this.asmLen);
    this.asmLen += src.length;
    return true;
  }

  private dropAssembly(at: number, why: string): void {
    if (!this.assembling) return;
    this.issues.push({
      kind: "corruption",
      offset: this.asmStart,
      bytes: at - this.asmStart,
      message: `fragmented record starting here was never completed (${why})`,
    });
    this.assembling = false;
    this.asmLen = 0;
  }
}

function allZero(b: Uint8Array, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (b[i] !== 0) return false;
  return true;
}
