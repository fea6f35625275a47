/**
 * An independent count of a table's data-block trailers, walked from its own bytes (footer -> index
 * block -> block handles) without the reader under test, for tests that check `blockCompression`.
 * Needs index entries that hold plain block handles: LevelDB tables, RocksDB format_version 2.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

/**
 * Where the footer's metaindex handle starts, counted from the file's end: LevelDB's 48-byte footer
 * begins with it (table/format.cc); RocksDB's 53-byte footer (format_version ≥ 1) puts a checksum-type
 * byte before it.
 */
export const FOOTER_HANDLES_FROM_END = { leveldb: 48, rocksdb: 52 } as const;

/** Compression type byte -> data blocks of the table `file`. */
export function trailerCounts(file: string, handlesFromEnd: number): Map<number, number> {
  const buf = readFileSync(file);
  let p = buf.length - handlesFromEnd;
  const varint = (b: Buffer): number => {
    let v = 0;
    for (let shift = 0; ; shift += 7) {
      const x = b[p++]!;
      v += (x & 0x7f) * 2 ** shift;
      if (x < 0x80) return v;
    }
  };
  varint(buf);
  varint(buf); // metaindex handle
  const indexOffset = varint(buf);
  const indexSize = varint(buf);
  let index: Buffer = buf.subarray(indexOffset, indexOffset + indexSize);
  const indexType = buf[indexOffset + indexSize]!;
  if (indexType === 1)
    index = (require("snappy") as { uncompressSync(b: Buffer): Buffer }).uncompressSync(index);
  else if (indexType !== 0) throw new Error(`${file}: index block compression type ${indexType}`);
  const restarts = index.readUInt32LE(index.length - 4);
  const end = index.length - 4 - 4 * restarts;
  const counts = new Map<number, number>();
  p = 0;
  while (p < end) {
    varint(index); // shared
    const nonShared = varint(index);
    const valueLength = varint(index);
    p += nonShared;
    const valueEnd = p + valueLength;
    const offset = varint(index);
    const size = varint(index);
    p = valueEnd;
    const type = buf[offset + size]!;
    counts.set(type, (counts.get(type) ?? 0) + 1);
  }
  return counts;
}
