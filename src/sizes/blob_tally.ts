/**
 * The blob-indexed values of a column family (or of one key range of it): how many, the blob bytes
 * their indexes name (the blobs themselves are never read), by blob compression, and which blob
 * files they point into. Full-mode ranges tally in their thread and merge by addition.
 */
import type { BlobIndex } from "../format/blob.js";
import type { ColumnFamilySizes } from "./types.js";

/** A tally as plain data (crosses worker threads). */
export interface BlobTallyData {
  count: number;
  bytes: number;
  compressions: Record<string, number>;
  files: number[];
}

export class BlobTally {
  count = 0;
  bytes = 0;
  readonly compressions: Record<string, number> = {};
  readonly files = new Set<number>();

  add(bi: BlobIndex): void {
    this.count++;
    this.bytes += bi.size;
    const cn = bi.compressionName ?? "inlined";
    this.compressions[cn] = (this.compressions[cn] ?? 0) + 1;
    if (bi.fileNumber !== undefined) this.files.add(bi.fileNumber);
  }

  merge(d: BlobTallyData): void {
    this.count += d.count;
    this.bytes += d.bytes;
    for (const [k, v] of Object.entries(d.compressions))
      this.compressions[k] = (this.compressions[k] ?? 0) + v;
    for (const f of d.files) this.files.add(f);
  }

  data(): BlobTallyData {
    return { count: this.count, bytes: this.bytes, compressions: this.compressions, files: [...this.files] };
  }

  summary(): ColumnFamilySizes["blobIndexed"] {
    return { count: this.count, bytes: this.bytes, compressions: this.compressions, files: this.files.size };
  }
}
