/**
 * Whole-table verification (`sst --verify`; Pebble's `sstable check`, RocksDB's VerifyChecksum plus a
 * key-order walk): every block read with its checksum checked, every data entry decoded, keys checked
 * to ascend under the internal-key order (user key ascending bytewise, then sequence number and type
 * descending), and the scan's totals compared with the table's properties. Damage is collected, not
 * thrown: a bad data block is reported and skipped, and the walk goes on.
 */
import { CorruptionError } from "../util/errors.js";
import {
  BlockKind,
  META_PEBBLE_RANGE_KEY,
  META_PROPERTIES,
  META_PROPERTIES_OLD,
  topIndexBlockKind,
} from "./block_kind.js";
import { DataCursor, writtenValueLength } from "./data_block.js";
import { userKeyCompare, type UserKeyCompare } from "./pebble/comparers.js";
import { BlockCorruptionError } from "./errors.js";
import { BLOCK_TRAILER_SIZE, type BlockHandle } from "./handle.js";
import { internalKeySeqno } from "../base/internal_key.js";
import { NUMERIC_FIELDS } from "./properties.js";
import { compressionCounts } from "./compression.js";
import type { SstTable } from "./table.js";
import { countEntry, emptyScanSummary, type ScanSummary } from "./table_scan.js";

/** One problem found: the block (offset and kind) and what is wrong with it. */
export interface VerifyProblem {
  offset: number;
  kind: string;
  message: string;
}

export interface TableVerification {
  ok: boolean;
  /** False when the table stores no checksums (checksum type none): blocks were only decoded. */
  checksums: boolean;
  /** Blocks read and checked, each once. */
  blocksVerified: number;
  /** Stored bytes of those blocks (block bytes + 5-byte trailers), each block once. */
  bytesVerified: number;
  /** Whether key order was checked (only under a bytewise comparator). */
  keyOrderChecked: boolean;
  errors: VerifyProblem[];
  /** The totals of the data blocks that could be read (all of them when ok). */
  summary: ScanSummary;
}

/** The problem an error describes, located at `kind` / `handle` unless the error names its block. */
export function problemOf(err: unknown, kind: string, handle: BlockHandle): VerifyProblem {
  if (err instanceof BlockCorruptionError)
    return { offset: err.blockOffset, kind: err.blockKind, message: err.detail };
  if (err instanceof CorruptionError)
    return { offset: err.offset ?? handle.offset, kind, message: err.message };
  throw err;
}

/** Stop collecting after this many problems (a table of random bytes would list one per block). */
const MAX_PROBLEMS = 1000;

export function verifyTable(t: SstTable): TableVerification {
  const errors: VerifyProblem[] = [];
  const note = (err: unknown, kind: string, h: BlockHandle) => {
    const p = problemOf(err, kind, h);
    // the index is read by the data walk and again among the other blocks: one problem, once
    const again = errors.some((e) => e.offset === p.offset && e.kind === p.kind && e.message === p.message);
    if (!again && errors.length < MAX_PROBLEMS) errors.push(p);
  };
  const s = emptyScanSummary();
  // a columnar table of a key schema this reader does not know: its data blocks are checksummed only
  const undecodable = t.columnar !== undefined && t.columnar.schema === undefined;
  const userOrder = undecodable ? undefined : userKeyCompare(t.comparator);
  const keyOrderChecked = userOrder !== undefined;
  let blocks = 0;
  let bytes = 0;
  const data = undecodable ? checksumDataBlocks(t, note) : verifyDataBlocks(t, s, userOrder, note);
  blocks += data.blocks;
  bytes += data.bytes;
  const rd = t.rangeDelHandle();
  if (rd && t.columnar) {
    try {
      const b = t.readKeyspanBlock(rd, BlockKind.RangeDeletion);
      s.rangeDeletions += b.keys.length;
      s.deletions += b.keys.length;
      s.rawKeyBytes += b.boundaryKeyBytes;
    } catch (err) {
      note(err, BlockKind.RangeDeletion, rd);
    }
  } else if (rd) {
    try {
      const c = new DataCursor().reset(t.blocks.parsed(rd, BlockKind.RangeDeletion));
      t.blocks.guard(BlockKind.RangeDeletion, rd.offset, () => {
        while (c.next()) {
          s.rangeDeletions++;
          s.deletions++;
          s.rawKeyBytes += c.keyLength;
          s.rawValueBytes += c.valueLength;
        }
      });
    } catch (err) {
      note(err, BlockKind.RangeDeletion, rd);
    }
  }
  s.entries = s.dataEntries + s.rangeDeletions;
  if (t.format === "pebble") {
    try {
      const rk = t.rangeKeyCounts();
      if (rk) s.rangeKeys = rk;
    } catch (err) {
      note(err, BlockKind.RangeKey, t.meta(META_PEBBLE_RANGE_KEY)!);
    }
  }
  // a LevelDB table's filter learns its bits per key from the entry count, as after a full scan
  if (errors.length === 0) t.filterReader.noteScannedEntries(s.dataEntries);
  // the range-deletion block is counted among the other blocks below
  const rest = t.verifyAllBlocks(note);
  blocks += rest.blocks;
  bytes += rest.bytes;
  if (errors.length === 0) compareWithProperties(t, s, errors);
  return {
    ok: errors.length === 0,
    checksums: t.checksumType !== "none",
    blocksVerified: blocks,
    bytesVerified: bytes,
    keyOrderChecked,
    errors,
    summary: s,
  };
}

/**
 * Every data block's checksum alone, for data blocks that cannot be decoded (a columnar table of an
 * unknown key schema): the refusal is one problem, located at the properties that name the schema.
 */
function checksumDataBlocks(
  t: SstTable,
  note: (err: unknown, kind: string, h: BlockHandle) => void,
): { blocks: number; bytes: number } {
  const at = t.meta(META_PROPERTIES) ?? { offset: 0, size: 0 };
  try {
    t.newDataCursor();
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    note(new CorruptionError(message, t.path, at.offset), BlockKind.Properties, at);
  }
  let blocks = 0;
  let bytes = 0;
  try {
    t.index.walk(({ cursor }) => {
      const h = { offset: cursor.handleOffset, size: cursor.handleSize };
      blocks++;
      try {
        t.blocks.read(h, BlockKind.Data, "scratch");
        bytes += h.size + BLOCK_TRAILER_SIZE; // read and checked (a failed handle's size is not)
      } catch (err) {
        note(err, BlockKind.Data, h);
      }
    });
  } catch (err) {
    note(err, topIndexBlockKind(t.indexType), t.indexHandle);
  }
  return { blocks, bytes };
}

/** Every data block: checksum, entries, key order across blocks; counts into `s`. */
function verifyDataBlocks(
  t: SstTable,
  s: ScanSummary,
  userOrder: UserKeyCompare | undefined,
  note: (err: unknown, kind: string, h: BlockHandle) => void,
): { blocks: number; bytes: number } {
  const byType = new Uint32Array(256);
  const file = t.blocks.file;
  const c = t.newDataCursor();
  let prev = Buffer.allocUnsafe(256);
  let prevLength = -1;
  let blocks = 0;
  let bytes = 0;
  const h: BlockHandle = { offset: 0, size: 0 };
  try {
    t.index.walk(({ cursor }) => {
      h.offset = cursor.handleOffset;
      h.size = cursor.handleSize;
      blocks++;
      let data: Buffer;
      try {
        data = t.blocks.read(h, BlockKind.Data, "scratch");
      } catch (err) {
        note(err, BlockKind.Data, h);
        prevLength = -1; // the next block's first key has nothing known to follow
        return;
      }
      bytes += h.size + BLOCK_TRAILER_SIZE; // read and checked (a failed handle's size is not)
      byType[file.lastBlockType]!++;
      s.dataBlocks++;
      s.dataBlockBytes += h.size;
      s.uncompressedDataBytes += data.length;
      try {
        t.blocks.guard(BlockKind.Data, h.offset, () => {
          c.load(data, { file: file.path, kind: BlockKind.Data, offset: h.offset }, h);
          while (c.next()) {
            const kl = c.keyLength;
            if (kl < 8) throw c.corrupt(`internal key of ${kl} bytes`, c.entryOffset);
            if (
              userOrder &&
              prevLength >= 0 &&
              compareInternal(userOrder, prev, prevLength, c.key, kl) >= 0
            ) {
              throw c.corrupt("key out of order (not after the previous key)", c.entryOffset);
            }
            if (s.firstKey === undefined) s.firstKey = c.userKeyCopy();
            // Pebble counts a value in a value block or blob file by the length its handle declares
            countEntry(s, kl, c.key[kl - 8]!, writtenValueLength(c));
            if (c.valueInValueBlock) s.valuesInValueBlocks = (s.valuesInValueBlocks ?? 0) + 1;
            else if (c.valueInBlobFile) s.valuesInBlobFiles = (s.valuesInBlobFiles ?? 0) + 1;
            if (prev.length < kl) prev = Buffer.allocUnsafe(kl * 2);
            c.key.copy(prev, 0, 0, kl);
            prevLength = kl;
          }
        });
      } catch (err) {
        note(err, BlockKind.Data, h);
      }
    });
  } catch (err) {
    note(err, topIndexBlockKind(t.indexType), t.indexHandle);
  }
  if (prevLength >= 8) s.lastKey = Buffer.from(prev.subarray(0, prevLength - 8));
  s.blockCompression = compressionCounts(byType);
  return { blocks, bytes };
}

/** Internal-key order: user key ascending (by the table's comparator), then seqno, then type, descending. */
function compareInternal(userOrder: UserKeyCompare, a: Buffer, al: number, b: Buffer, bl: number): number {
  const u = userOrder(a, al - 8, b, bl - 8);
  if (u !== 0) return u;
  const sa = internalKeySeqno(a, al);
  const sb = internalKeySeqno(b, bl);
  if (sa !== sb) return sa > sb ? -1 : 1;
  return b[bl - 8]! - a[al - 8]!;
}

/** Scan totals against the properties that state them (absent properties are not compared). */
function compareWithProperties(t: SstTable, s: ScanSummary, errors: VerifyProblem[]): void {
  const p = t.props;
  const at = (t.meta(META_PROPERTIES) ?? t.meta(META_PROPERTIES_OLD))?.offset ?? 0;
  const pairs: [keyof typeof NUMERIC_FIELDS, number][] = [
    ["numEntries", s.entries],
    ["numDataBlocks", s.dataBlocks],
    ["rawKeySize", s.rawKeyBytes],
    ["rawValueSize", s.rawValueBytes],
    ["numDeletions", s.deletions],
    ["numMergeOperands", s.mergeOperands],
    ["numRangeDeletions", s.rangeDeletions],
  ];
  for (const [field, counted] of pairs) {
    const stated = p[field];
    if (stated !== undefined && stated !== counted) {
      errors.push({
        offset: at,
        kind: BlockKind.Properties,
        message: `${NUMERIC_FIELDS[field]} says ${stated}, the scan counted ${counted}`,
      });
    }
  }
}
