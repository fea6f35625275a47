/**
 * Blob files (<number>.blob) of integrated BlobDB (db/blob/blob_log_format.h/.cc; the layout and its
 * constants: format/blob.ts). readBlobFile reads the header and footer (two positioned reads), the
 * version 1 RocksDB reads, the flags' bit 0 (has TTL), the footer's crc (masked crc32c of its first 28
 * bytes); verifyBlobRecords reads every record and checks both of its crcs. A blob file being written
 * (or cut short) has no footer yet.
 */
import { throttleRead } from "../util/throttle.js";
import { readSync, closeSync } from "node:fs";
import { openRegularFile } from "../util/regular_file.js";
import { CorruptionError } from "../util/errors.js";
import { readFixed32, readFixed64 } from "../util/coding.js";
import { maskedCrc32c } from "../base/crc.js";
import { compressionName } from "../base/compression_type.js";
import type {
  BlobFileFooterInfo,
  BlobFileHeaderInfo,
  BlobFileModel,
  ColumnFamilyModel,
  Finding,
} from "./model.js";
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
  findings: Finding[];
}

export function readBlobFile(path: string): BlobFileRead {
  const findings: Finding[] = [];
  const { fd, size } = openRegularFile(path);
  try {
    const out: BlobFileRead = { size, findings };
    if (size < BLOB_FILE_HEADER) {
      findings.push({
        severity: "error",
        code: "blob-bad",
        file: path,
        offset: 0,
        message: `blob file of ${size} bytes has no header`,
      });
      return out;
    }
    const h = Buffer.alloc(BLOB_FILE_HEADER);
    readSync(fd, h, 0, BLOB_FILE_HEADER, 0);
    const magic = readFixed32(h, 0);
    if (magic !== BLOB_MAGIC) {
      findings.push({
        severity: "error",
        code: "blob-bad",
        file: path,
        offset: 0,
        message: blobFileProblem.magic(magic),
      });
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
    // RocksDB refuses any other version (BlobLogHeader::DecodeFrom: "Unknown header version")
    if (out.header.version !== 1)
      findings.push({
        severity: "error",
        code: "blob-bad",
        file: path,
        offset: 4,
        message: blobFileProblem.version(out.header.version),
      });
    if (size >= BLOB_FILE_HEADER + BLOB_FILE_FOOTER) {
      const f = Buffer.alloc(BLOB_FILE_FOOTER);
      const at = size - BLOB_FILE_FOOTER;
      readSync(fd, f, 0, BLOB_FILE_FOOTER, at);
      if (readFixed32(f, 0) === BLOB_MAGIC) {
        const crcOk = readFixed32(f, 28) === maskedCrc32c(f.subarray(0, 28));
        out.footer = {
          blobCount: Number(readFixed64(f, 4)),
          expirationRange: [Number(readFixed64(f, 12)), Number(readFixed64(f, 20))],
          crcOk,
        };
        if (!crcOk)
          findings.push({
            severity: "error",
            code: "blob-bad",
            file: path,
            offset: at,
            message: blobFileProblem.footerCrc,
          });
      } else {
        findings.push({
          severity: "warn",
          code: "blob-no-footer",
          file: path,
          offset: at,
          message: "no blob file footer (file still being written, or cut short)",
        });
      }
    }
    return out;
  } finally {
    closeSync(fd);
  }
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
    const bad = head.findings.find((f) => f.severity === "error");
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
 * Why RocksDB would not open the live blob file `b` of column family `cfId` (its BlobFileReader reads
 * and checks the header, then the footer), undefined when it would: no readable header (a short file,
 * another magic), another version, another column family's id, no footer (cut short), a footer whose
 * crc does not match. `inspect` reports each as an error finding (column_families.ts); `sizes` counts
 * the values of such a file as unreadable rather than sizing them from its records.
 */
export function blobFileRefusal(
  b: Pick<BlobFileModel, "header" | "footer">,
  cfId: number,
): string | undefined {
  const h = b.header;
  if (!h) return "blob file has no readable header";
  if (h.version !== 1) return blobFileProblem.version(h.version);
  if (h.columnFamilyId !== cfId) return blobFileProblem.columnFamily(h.columnFamilyId, cfId);
  if (!b.footer) return blobFileProblem.cutShort;
  if (!b.footer.crcOk) return blobFileProblem.footerCrc;
  return undefined;
}

/**
 * Live blob files of `cf` that RocksDB would not open, by file number, with why (blobFileRefusal): a
 * value in one is unreadable to a Get, so `sizes` counts it as unread and `diff`, `probe` and the
 * compaction digest stop at it as RocksDB's read would.
 */
export function refusedBlobFilesOf(cf: ColumnFamilyModel): Record<string, string> {
  const out: Record<string, string> = {};
  for (const b of cf.blobFiles) {
    const why = b.present ? blobFileRefusal(b, cf.id) : undefined;
    if (why !== undefined) out[String(b.fileNumber)] = why;
  }
  return out;
}

/**
 * Blob files checked as RocksDB's BlobFileReader::Create checks one when it first opens it (the header,
 * then the footer; blobFileRefusal): a read of a value in a file it refuses fails there, whatever its
 * records hold. Each file is read and judged once.
 */
export class BlobFileGate {
  private readonly refusals = new Map<string, string | null>();
  constructor(private readonly cfId: number) {}

  /** Throws why RocksDB would not open `path`: a CorruptionError, or the read's own error. */
  check(path: string): void {
    let why = this.refusals.get(path);
    if (why === undefined) {
      why = blobFileRefusal(readBlobFile(path), this.cfId) ?? null;
      this.refusals.set(path, why);
    }
    if (why !== null) throw new CorruptionError(why, path);
  }
}
