/**
 * What the data blocks' trailers say of their compression (one type byte after each block; LevelDB's
 * doc/table_format.md): a table without a compression property (LevelDB's) is described by the blocks
 * it actually stores. Each trailer's byte is a one-byte read at the block's end, through the file's
 * read-ahead window.
 */
import { compressionName } from "../base/compression_type.js";
import { compressionCounts } from "./compression.js";
import type { IndexReader } from "./index_reader.js";
import type { TableFile } from "./table_file.js";

/** Compression of the first data block ("NoCompression" without data blocks). */
export function firstBlockCompression(index: IndexReader, file: TableFile): string {
  let name = "NoCompression";
  index.walk(({ cursor }) => {
    name = compressionName(file.read(cursor.handleOffset + cursor.handleSize, 1)[0]!);
    return false;
  });
  return name;
}

/** Data blocks per compression type, from every data block's trailer. */
export function blockCompression(index: IndexReader, file: TableFile): Record<string, number> {
  const counts = new Map<number, number>();
  const before = file.readAheadBytes;
  if (before === 0) file.readAhead(256 * 1024);
  try {
    index.walk(({ cursor }) => {
      const t = file.read(cursor.handleOffset + cursor.handleSize, 1)[0]!;
      counts.set(t, (counts.get(t) ?? 0) + 1);
    });
  } finally {
    file.readAhead(before);
  }
  return compressionCounts(counts);
}
