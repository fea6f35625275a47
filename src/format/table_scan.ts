/**
 * The full scan of a table: every data block in index order (one reused read buffer, one reused entry
 * view), then the range deletions, with the totals RocksDB's properties state ("rocksdb.num.entries",
 * "rocksdb.raw.key.size", ...) counted on the way.
 */
import { BlockKind } from "./block_kind.js";
import { DataCursor, writtenValueLength, type EntryView } from "./data_block.js";
import { wrapDecodeError } from "./errors.js";
import { isTombstone, ValueType } from "../base/internal_key.js";
import type { SstTable } from "./table.js";
import { compressionCounts } from "./compression.js";
import type { TableFile } from "./table_file.js";
import type { BlockHandle } from "./handle.js";
import type { RangeKeyCounts } from "./pebble.js";

export interface ScanOptions {
  /** Include the range-deletion block (default true; only with a full scan). */
  rangeDeletions?: boolean;
  /** Only data blocks [start, end) in index order, e.g. to split a scan between workers. */
  blocks?: { start: number; end: number };
}

export interface ScanSummary {
  /** Data-block entries plus range deletions (what "rocksdb.num.entries" counts). */
  entries: number;
  dataEntries: number;
  rangeDeletions: number;
  /** Sum of internal key sizes (user key + 8), as "rocksdb.raw.key.size". */
  rawKeyBytes: number;
  rawValueBytes: number;
  deletions: number;
  mergeOperands: number;
  blobIndexes: number;
  dataBlocks: number;
  /** Data blocks per compression named by their trailers (sums to dataBlocks). */
  blockCompression: Record<string, number>;
  /** First and last user keys of the data blocks. */
  firstKey?: Buffer;
  lastKey?: Buffer;
  /** Stored (compressed) bytes of the data blocks, without trailers, and uncompressed bytes. */
  dataBlockBytes: number;
  uncompressedDataBytes: number;
  /** Pebble tables: entries of the range-key block by kind (not in `entries`, as in Pebble's properties). */
  rangeKeys?: RangeKeyCounts;
  /** Pebble v3+ tables: SET values stored in value blocks (counted in rawValueBytes by their length). */
  valuesInValueBlocks?: number;
  /** Pebble v6+ tables: values stored in blob files (counted in rawValueBytes by their length). */
  valuesInBlobFiles?: number;
}

export function emptyScanSummary(): ScanSummary {
  return {
    entries: 0,
    dataEntries: 0,
    rangeDeletions: 0,
    rawKeyBytes: 0,
    rawValueBytes: 0,
    deletions: 0,
    mergeOperands: 0,
    blobIndexes: 0,
    dataBlocks: 0,
    blockCompression: {},
    dataBlockBytes: 0,
    uncompressedDataBytes: 0,
  };
}

/** Count one data entry (internal key of `kl` bytes, type byte `t`) in the totals. */
export function countEntry(s: ScanSummary, kl: number, t: number, valueLength: number): void {
  s.dataEntries++;
  s.rawKeyBytes += kl;
  s.rawValueBytes += valueLength;
  if (t !== ValueType.Value) {
    if (isTombstone(t)) s.deletions++;
    else if (t === ValueType.Merge) s.mergeOperands++;
    else if (t === ValueType.BlobIndex) s.blobIndexes++;
  }
}

/** SstTable.scan: the totals, and whether the visitor stopped the scan. */
export function scanTable(
  t: SstTable,
  file: TableFile,
  visitor: ((e: EntryView) => boolean | void) | undefined,
  opts: ScanOptions,
): { summary: ScanSummary; stopped: boolean } {
  const s = emptyScanSummary();
  const byType = new Uint32Array(256);
  // Pebble (row or columnar): a value in a value block or blob file counts by its declared length
  const pebble = t.format === "pebble";
  const c = t.newDataCursor();
  // counting alone needs no value bytes: a value behind a handle counts by its declared length
  c.resolveValues = visitor !== undefined;
  let stopped = false;
  const range = opts.blocks;
  let blockNo = -1;
  t.index.walk(({ cursor }) => {
    blockNo++;
    if (range && blockNo < range.start) return true;
    if (range && blockNo >= range.end) return false;
    const h = { offset: cursor.handleOffset, size: cursor.handleSize };
    const data = file.readBlock(h, BlockKind.Data, "scratch");
    byType[file.lastBlockType]!++;
    s.dataBlocks++;
    s.dataBlockBytes += h.size;
    s.uncompressedDataBytes += data.length;
    let any = false;
    try {
      c.load(data, { file: file.path, kind: BlockKind.Data, offset: h.offset }, h);
      while (c.next()) {
        const kl = c.keyLength;
        if (kl < 8) throw c.corrupt(`internal key of ${kl} bytes`, c.entryOffset);
        if (!any) {
          any = true;
          if (s.firstKey === undefined) s.firstKey = c.userKeyCopy();
        }
        countEntry(s, kl, c.key[kl - 8]!, writtenValueLength(c));
        if (c.valueInValueBlock) s.valuesInValueBlocks = (s.valuesInValueBlocks ?? 0) + 1;
        else if (c.valueInBlobFile) s.valuesInBlobFiles = (s.valuesInBlobFiles ?? 0) + 1;
        if (visitor && visitor(c) === false) {
          stopped = true;
          break;
        }
      }
    } catch (err) {
      wrapDecodeError(err, file.path, BlockKind.Data, h.offset);
    }
    if (any) s.lastKey = c.userKeyCopy();
    return !stopped;
  });
  s.blockCompression = compressionCounts(byType);
  const rd = t.rangeDelHandle();
  if (!stopped && rd && opts.rangeDeletions !== false && !range) {
    if (t.columnar) scanColumnarRangeDeletions(t, rd, s, visitor);
    else scanRangeDeletions(t, rd, s, visitor);
  }
  s.entries = s.dataEntries + s.rangeDeletions;
  if (!stopped && !range && pebble) {
    const rk = t.rangeKeyCounts();
    if (rk) s.rangeKeys = rk;
  }
  return { summary: s, stopped };
}

/** The row range-deletion block: internal key (start) -> end key, counted as RocksDB counts them. */
function scanRangeDeletions(
  t: SstTable,
  rd: BlockHandle,
  s: ScanSummary,
  visitor: ((e: EntryView) => boolean | void) | undefined,
): void {
  const c = new DataCursor();
  const rb = t.blocks.parsed(rd, BlockKind.RangeDeletion);
  c.reset(rb);
  t.blocks.guard(BlockKind.RangeDeletion, rd.offset, () => {
    while (c.next()) {
      if (c.keyLength < 8) throw rb.corrupt(`internal key of ${c.keyLength} bytes`, c.entryOffset);
      s.rangeDeletions++;
      s.deletions++;
      s.rawKeyBytes += c.keyLength;
      s.rawValueBytes += c.valueLength;
      if (visitor && visitor(c) === false) break;
    }
  });
}

/**
 * A columnar range-deletion block (Pebble (v5)+): one entry per key; raw key bytes count each span's
 * start and end once and no value bytes, as Pebble's columnar writer counts them (EncodeSpan).
 */
function scanColumnarRangeDeletions(
  t: SstTable,
  rd: BlockHandle,
  s: ScanSummary,
  visitor: ((e: EntryView) => boolean | void) | undefined,
): void {
  const b = t.readKeyspanBlock(rd, BlockKind.RangeDeletion);
  s.rangeDeletions += b.keys.length;
  s.deletions += b.keys.length;
  s.rawKeyBytes += b.boundaryKeyBytes;
  if (!visitor) return;
  for (const k of b.keys) if (visitor(keyspanEntry(k.start, k.seqno, k.kind, k.end)) === false) break;
}

/** A range deletion as the EntryView scan visitors see: start (internal key) -> end. */
export function keyspanEntry(start: Buffer, seqno: number, kind: number, end: Buffer): EntryView {
  const key = Buffer.alloc(start.length + 8);
  start.copy(key);
  key.writeUInt32LE(((seqno % 0x1000000) * 256 + kind) >>> 0, start.length);
  key.writeUInt32LE(Math.floor(seqno / 0x1000000) >>> 0, start.length + 4);
  return {
    key,
    keyLength: key.length,
    userKeyLength: start.length,
    seqno,
    type: kind,
    data: end,
    valueOffset: 0,
    valueLength: end.length,
    blockHandle: undefined,
    userKeyCopy: () => Buffer.from(start),
    valueCopy: () => Buffer.from(end),
  };
}
