/**
 * One unit of `inspect --verify`: read every block of a table (data blocks decoded entry by entry,
 * then every other block) or every record of a blob file, checksums verified. Imports only the
 * readers, so worker threads load it quickly.
 */
import { openTable, type SstTable } from "../format/table.js";
import { verifyTable } from "../format/verify.js";
import { verifyBlobRecords } from "../datadir/blob_file.js";
import { verifyPebbleBlob } from "./verify_pebble_blob.js";

export interface VerifyItem {
  kind: "table" | "blob" | "pebble-blob";
  path: string;
  /** Pebble blob files: the value bytes the MANIFEST records (checked against the file's values). */
  valueBytes?: number;
  /** File size: the progress unit. */
  bytes: number;
}

export interface VerifyItemResult {
  kind: VerifyItem["kind"];
  path: string;
  /** Blocks checksummed (tables) or records checksummed (blob files). */
  units: number;
  /** Entries decoded (tables; 0 for blob files). */
  entries: number;
  /** Bytes read and checksummed. */
  bytes: number;
  /** The first failure; the rest of the file is not verified. */
  error?: { offset?: number; message: string };
}

/** Sequential read-ahead for the whole-table read. */
const READ_AHEAD = 256 * 1024;

export function verifyItem(item: VerifyItem): VerifyItemResult {
  const out: VerifyItemResult = { kind: item.kind, path: item.path, units: 0, entries: 0, bytes: 0 };
  if (item.kind === "pebble-blob") return verifyPebbleBlob(item);
  if (item.kind === "blob") {
    try {
      const r = verifyBlobRecords(item.path);
      out.units = r.records;
      out.bytes = r.bytes;
      out.error = r.error;
    } catch (e) {
      out.error = failure(e);
    }
    return out;
  }
  let t: SstTable | undefined;
  try {
    t = openTable(item.path, { verifyChecksums: true, readAhead: READ_AHEAD });
    // every block checksummed, every entry decoded, keys in internal-key order, the scan's totals
    // equal to the properties (sst --verify's walk: RocksDB's compactions refuse out-of-order keys)
    const v = verifyTable(t);
    out.units = v.blocksVerified;
    out.bytes = v.bytesVerified;
    out.entries = v.summary.entries;
    const first = v.errors[0];
    if (first)
      out.error = {
        offset: first.offset,
        message: `${first.kind} block @ ${first.offset}: ${first.message}${v.errors.length > 1 ? ` (and ${v.errors.length - 1} more problems)` : ""}`,
      };
  } catch (e) {
    out.error = failure(e);
  } finally {
    t?.close();
  }
  return out;
}

function failure(e: unknown): { offset?: number; message: string } {
  const err = e as Error & { offset?: number };
  return { offset: typeof err.offset === "number" ? err.offset : undefined, message: err.message };
}
