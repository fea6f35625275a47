/**
 * Blob files (<number>.blob) of integrated BlobDB (db/blob/blob_log_format.h/.cc; the layout and its
 * constants: format/blob.ts). readBlobFile reads the header and footer (two positioned reads): the
 * version, the flags' bit 0 (has TTL), the footer's crc (masked crc32c of its first 28 bytes);
 * blobFileRefusals says, once for every command, whether RocksDB would open the file; verifyBlobRecords
 * reads every record and checks both of its crcs. A blob file being written (or cut short) has no footer.
 */
import { throttleRead } from "../util/throttle.js";
import { readSync, closeSync } from "node:fs";
import { openRegularFile } from "../util/regular_file.js";
import { CorruptionError } from "../util/errors.js";
import { readFixed32, readFixed64 } from "../util/coding.js";
import { maskedCrc32c } from "../base/crc.js";
import { compressionName } from "../base/compression_type.js";
import type { BlobFileFooterInfo, BlobFileHeaderInfo, ColumnFamilyModel } from "./model.js";
import {
  BLOB_FILE_FOOTER,
  BLOB_FILE_HEADER,
  BLOB_HEADER_COMPRESSION_AT,
  BLOB_MAGIC,
  BLOB_RECORD_HEADER,
  blobCrcMatches,
  blobFileProblem,
  blobRecordHeader,
} from "../format/blob.js";

export interface BlobFileRead {
  size: number;
  header?: BlobFileHeaderInfo;
  footer?: BlobFileFooterInfo;
  /** Why there is no header: the file is shorter than one, or its magic is another. */
  headerProblem?: { offset: number; message: string };
}

/** The header and footer of a blob file, read as they are; blobFileRefusals judges them. */
export function readBlobFile(path: string): BlobFileRead {
  const { fd, size } = openRegularFile(path);
  try {
    const out: BlobFileRead = { size };
    if (size < BLOB_FILE_HEADER) {
      out.headerProblem = { offset: 0, message: `blob file of ${size} bytes has no header` };
      return out;
    }
    const h = Buffer.alloc(BLOB_FILE_HEADER);
    readSync(fd, h, 0, BLOB_FILE_HEADER, 0);
    const magic = readFixed32(h, 0);
    if (magic !== BLOB_MAGIC) {
      out.headerProblem = { offset: 0, message: blobFileProblem.magic(magic) };
      return out;
    }
    const compression = h[BLOB_HEADER_COMPRESSION_AT]!;
    out.header = {
      version: readFixed32(h, 4),
      columnFamilyId: readFixed32(h, 8),
      hasTtl: (h[12]! & 1) === 1,
      compression,
      compressionName: compressionName(compression),
      expirationRange: [Number(readFixed64(h, 14)), Number(readFixed64(h, 22))],
    };
    if (size >= BLOB_FILE_HEADER + BLOB_FILE_FOOTER) {
      const f = Buffer.alloc(BLOB_FILE_FOOTER);
      readSync(fd, f, 0, BLOB_FILE_FOOTER, size - BLOB_FILE_FOOTER);
      if (readFixed32(f, 0) === BLOB_MAGIC)
        out.footer = {
          blobCount: Number(readFixed64(f, 4)),
          expirationRange: [Number(readFixed64(f, 12)), Number(readFixed64(f, 20))],
          crcOk: readFixed32(f, 28) === maskedCrc32c(f.subarray(0, 28)),
        };
    }
    return out;
  } finally {
    closeSync(fd);
  }
}

/** One reason RocksDB would not open a live blob file, and where in the file it lies. */
export interface BlobFileRefusal {
  code: "blob-bad" | "blob-cf-mismatch" | "blob-no-footer";
  offset: number;
  message: string;
}

/**
 * Why RocksDB would not open the live blob file `b` of column family `cfId`, in the order its
 * BlobFileReader::Create checks (the header, then the footer), empty when it would: no header (a short
 * file, another magic), another version (BlobLogHeader::DecodeFrom reads only 1), another column family's
 * id (ReadHeader: "Column family ID mismatch"), no footer (ReadFooter: a live blob file was sealed before
 * the MANIFEST named it, so it was cut short), a footer whose crc does not match. The one statement of
 * these rules: `inspect`'s error findings (column_families.ts), the files `sizes` does not size values
 * from (refusedBlobFilesOf), the blob files `diff`, `probe` and the compaction digest stop at
 * (BlobFileGate) and `inspect --verify`'s record check (without `cfId`, the column family unchecked).
 */
export function blobFileRefusals(
  b: Pick<BlobFileRead, "header" | "footer" | "headerProblem"> & { size?: number },
  cfId?: number,
): BlobFileRefusal[] {
  const h = b.header;
  if (!h)
    return [
      {
        code: "blob-bad",
        ...(b.headerProblem ?? { offset: 0, message: "blob file has no readable header" }),
      },
    ];
  const out: BlobFileRefusal[] = [];
  if (h.version !== 1) out.push({ code: "blob-bad", offset: 4, message: blobFileProblem.version(h.version) });
  if (cfId !== undefined && h.columnFamilyId !== cfId)
    out.push({
      code: "blob-cf-mismatch",
      offset: 8,
      message: blobFileProblem.columnFamily(h.columnFamilyId, cfId),
    });
  const footerAt = Math.max(BLOB_FILE_HEADER, (b.size ?? 0) - BLOB_FILE_FOOTER);
  if (!b.footer) out.push({ code: "blob-no-footer", offset: footerAt, message: blobFileProblem.cutShort });
  else if (!b.footer.crcOk)
    out.push({ code: "blob-bad", offset: footerAt, message: blobFileProblem.footerCrc });
  return out;
}

/** What verifyBlobRecords read. */
export interface BlobRecordsVerified {
  records: number;
  /** Bytes of records read (headers, keys, values). */
  bytes: number;
  /** The first problem (records after it cannot be found again: a record has no sync marker). */
  error?: { offset: number; message: string };
}

/** A record larger than this is a corrupt length, not a blob (RocksDB's values are < 4 GiB). */
const MAX_BLOB_RECORD = 4 * 1024 * 1024 * 1024;

/**
 * Read every record of a blob file and check both of its checksums, as BlobLogSequentialReader does
 * with verification: the header crc (masked crc32c of key length, value length and expiration) and
 * the blob crc (masked crc32c of key ‖ value). Records run from the header to the footer (when there
 * is one); the footer's blob count must equal the records found. `onBytes` reports progress.
 */
export function verifyBlobRecords(path: string, onBytes?: (bytes: number) => void): BlobRecordsVerified {
  const { fd, size } = openRegularFile(path);
  const out: BlobRecordsVerified = { records: 0, bytes: 0 };
  try {
    const head = readBlobFile(path);
    // a file cut short before its footer still has its records read, up to its end
    const bad = blobFileRefusals(head).find((p) => p.code !== "blob-no-footer");
    if (bad || !head.header) {
      out.error = { offset: bad?.offset ?? 0, message: bad?.message ?? "no blob file header" };
      return out;
    }
    const end = head.footer ? size - BLOB_FILE_FOOTER : size;
    const hdr = Buffer.alloc(BLOB_RECORD_HEADER);
    let buf = Buffer.alloc(64 * 1024);
    let pos = BLOB_FILE_HEADER;
    while (pos < end) {
      if (end - pos < BLOB_RECORD_HEADER) {
        out.error = {
          offset: pos,
          message: `${end - pos} bytes after the last record: a cut-short record header`,
        };
        return out;
      }
      readSync(fd, hdr, 0, BLOB_RECORD_HEADER, pos);
      const h = blobRecordHeader(hdr, 0);
      if (typeof h === "string") {
        out.error = { offset: pos, message: h };
        return out;
      }
      const keyLen = h.keyLength;
      const valueLen = h.valueLength;
      const len = keyLen + valueLen;
      if (len > MAX_BLOB_RECORD || pos + BLOB_RECORD_HEADER + len > end) {
        out.error = {
          offset: pos,
          message: `blob record of ${keyLen} + ${valueLen} bytes runs past the ${head.footer ? "footer" : "end of the file"}`,
        };
        return out;
      }
      if (buf.length < len) buf = Buffer.alloc(len);
      let done = 0;
      while (done < len) {
        const n = readSync(fd, buf, done, len - done, pos + BLOB_RECORD_HEADER + done);
        if (n === 0) break;
        done += n;
      }
      throttleRead(done + BLOB_RECORD_HEADER);
      if (!blobCrcMatches(hdr, 0, buf.subarray(0, len))) {
        out.error = { offset: pos, message: "blob record checksum mismatch (key or value damaged)" };
        return out;
      }
      out.records++;
      out.bytes += BLOB_RECORD_HEADER + len;
      onBytes?.(BLOB_RECORD_HEADER + len);
      pos += BLOB_RECORD_HEADER + len;
    }
    if (head.footer && head.footer.blobCount !== out.records)
      out.error = {
        offset: size - BLOB_FILE_FOOTER,
        message: `footer counts ${head.footer.blobCount} blobs, ${out.records} records read`,
      };
    return out;
  } finally {
    closeSync(fd);
  }
}

/**
 * Live blob files of `cf` that RocksDB would not open, by file number, with why (blobFileRefusals): a
 * value in one is unreadable to a Get, so `sizes` counts it as unread and `diff`, `probe` and the
 * compaction digest stop at it as RocksDB's read would.
 */
export function refusedBlobFilesOf(cf: ColumnFamilyModel): Record<string, string> {
  const out: Record<string, string> = {};
  for (const b of cf.blobFiles) {
    const why = b.present
      ? blobFileRefusals({ size: b.diskSize, header: b.header, footer: b.footer }, cf.id)[0]?.message
      : undefined;
    if (why !== undefined) out[String(b.fileNumber)] = why;
  }
  return out;
}

/**
 * Blob files checked as RocksDB's BlobFileReader::Create checks one when it first opens it (the header,
 * then the footer; blobFileRefusals): a read of a value in a file it refuses fails there, whatever its
 * records hold. Each file is read and judged once.
 */
export class BlobFileGate {
  private readonly refusals = new Map<string, BlobFileRefusal | null>();
  constructor(private readonly cfId: number) {}

  /** Throws why RocksDB would not open `path`: a CorruptionError, or the read's own error. */
  check(path: string): void {
    let why = this.refusals.get(path);
    if (why === undefined) {
      why = blobFileRefusals(readBlobFile(path), this.cfId)[0] ?? null;
      this.refusals.set(path, why);
    }
    if (why !== null) throw new CorruptionError(why.message, path, why.offset);
  }
}
