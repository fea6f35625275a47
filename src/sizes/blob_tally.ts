/**
 * The blob-indexed values of a column family (or of one key range of it): how many, the bytes their
 * blob files store for them (after blob compression, from the indexes), the bytes a Get returns for
 * them (read from the blob records, BlobValueSizer), by blob compression, and which blob files they
 * point into. Full-mode ranges tally in their thread and merge by addition.
 */
import { decodeBlobIndex, type BlobIndex, type BlobValueSizer } from "../format/blob.js";
import type { ColumnFamilySizes } from "./types.js";

/** A tally as plain data (crosses worker threads). */
export interface BlobTallyData {
  count: number;
  storedBytes: number;
  valueBytes: number;
  unread: number;
  compressions: Record<string, number>;
  files: number[];
}

export class BlobTally {
  count = 0;
  storedBytes = 0;
  valueBytes = 0;
  unread = 0;
  readonly compressions: Record<string, number> = {};
  readonly files = new Set<number>();

  /** One blob-indexed value; `valueLength` undefined when its blob record could not be read. */
  add(bi: BlobIndex, valueLength: number | undefined): void {
    this.count++;
    this.storedBytes += bi.size;
    if (valueLength === undefined) this.unread++;
    else this.valueBytes += valueLength;
    const cn = bi.compressionName ?? "inlined";
    this.compressions[cn] = (this.compressions[cn] ?? 0) + 1;
    if (bi.fileNumber !== undefined) this.files.add(bi.fileNumber);
  }

  merge(d: BlobTallyData): void {
    this.count += d.count;
    this.storedBytes += d.storedBytes;
    this.valueBytes += d.valueBytes;
    this.unread += d.unread;
    for (const [k, v] of Object.entries(d.compressions))
      this.compressions[k] = (this.compressions[k] ?? 0) + v;
    for (const f of d.files) this.files.add(f);
  }

  data(): BlobTallyData {
    return {
      count: this.count,
      storedBytes: this.storedBytes,
      valueBytes: this.valueBytes,
      unread: this.unread,
      compressions: this.compressions,
      files: [...this.files],
    };
  }

  summary(): ColumnFamilySizes["blobIndexed"] {
    return {
      count: this.count,
      storedBytes: this.storedBytes,
      valueBytes: this.valueBytes,
      unread: this.unread,
      compressions: this.compressions,
      files: this.files.size,
    };
  }
}

/**
 * The bytes a Get returns for a blob-indexed value whose index lies at data[offset, offset + length):
 * read from its blob record by `sizer`, and the value tallied in `tally` when one is given. An
 * undecodable index is sized as stored (`storedSize`); undefined when the record could not be read
 * (counted in the tally's `unread`).
 */
export function blobIndexedValueSize(
  data: Uint8Array,
  offset: number,
  length: number,
  storedSize: number,
  sizer: BlobValueSizer,
  tally: BlobTally | undefined,
): number | undefined {
  let bi: BlobIndex;
  try {
    bi = decodeBlobIndex(data, offset, offset + length);
  } catch {
    return storedSize;
  }
  let size: number | undefined;
  try {
    size = sizer.valueLength(bi);
  } catch {
    size = undefined;
  }
  tally?.add(bi, size);
  return size;
}
