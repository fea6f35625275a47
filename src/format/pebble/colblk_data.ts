/**
 * Pebble's columnar data blocks ((Pebble,v5)+; sstable/colblk/data_block.go):
 *
 *   [key schema header (key_schema.ts)] | maximum user key length uint32 | columnar block (colblk.ts):
 *   the key schema's columns, then
 *     trailer           uint   (seqno << 8) | kind, per row
 *     prefix changed    bool   the key's prefix differs from the previous row's
 *     value             bytes  the value; for an external value, its value prefix byte and handle
 *     value external    bool   the value is a handle into a value block or a blob file
 *     obsolete          bool   shadowed within the table
 *     [(Pebble,v8)+ tiering: span id uint, attribute uint, secondary blob handle bytes]
 *
 * ColumnarDataCursor walks one block row by row as the EntryView every scan visitor sees: the key is
 * rebuilt as an internal key (user key | trailer, 8 bytes little-endian) in a reused buffer, Pebble's
 * kinds read as RocksDB value types (pebble.ts), an in-place value is the value column's bytes, an
 * external one its handle (the length the handle declares is declaredValueLength).
 */
import { lowerBound } from "../../util/lower_bound.js";
import { blockCorruption } from "../errors.js";
import type { BlockOrigin } from "../block.js";
import type { BlockHandle } from "../handle.js";
import { internalKeySeqno } from "../../base/internal_key.js";
import type { DataEntryCursor } from "../data_block.js";
import {
  handleValueLength,
  pebbleAsValueType,
  VALUE_KIND_BLOB_HANDLE,
  VALUE_KIND_MASK,
  VALUE_KIND_VALUE_BLOCK_HANDLE,
  type PebbleEntries,
} from "../pebble.js";
import { ColumnarBlock, type Bitmap, type RawBytes, type Uints } from "./colblk.js";
import type { BlockKeys, KeySchema } from "./key_schema.js";

const MAX_KEY_LENGTH_SIZE = 4;
/** Columns after the key schema's: trailer, prefix changed, value, value external, obsolete. */
const DATA_COLUMNS = 5;
/** (Pebble,v8) adds three tiering columns. */
const TIERING_COLUMNS = 3;

/** The value length an external value's handle declares (its prefix byte at `start`; handleValueLength). */
export function externalValueLength(data: Buffer, start: number, end: number): number {
  if (end <= start) throw new RangeError("external value without its value prefix");
  const declared = handleValueLength(data, start + 1, end, data[start]! & VALUE_KIND_MASK);
  if (declared === undefined)
    throw new RangeError(`external value with value prefix 0x${data[start]!.toString(16)}`);
  return declared;
}

export class ColumnarDataCursor implements DataEntryCursor {
  key: Buffer = Buffer.allocUnsafe(256);
  keyLength = 0;
  data: Buffer = Buffer.alloc(0);
  valueOffset = 0;
  valueLength = 0;
  blockHandle: BlockHandle | undefined;
  valueInValueBlock = false;
  valueInBlobFile = false;
  declaredValueLength = 0;
  /** The current row (reported where a row-block cursor reports a byte offset). */
  entryOffset = -1;
  /** Rows of the current block. */
  rows = 0;

  /** Resolve values behind handles whose source is known (PebbleEntries); off for counting walks. */
  resolveValues = true;
  private readonly schema: KeySchema;
  /** The table's value blocks and, when the store attached them, its blob files. */
  private readonly pebble: PebbleEntries | undefined;
  /** The block's bytes (`data` points elsewhere while a resolved value is current). */
  private block: Buffer = Buffer.alloc(0);
  private origin: BlockOrigin = { file: "", kind: "", offset: 0 };
  private keys!: BlockKeys;
  private trailers!: Uints;
  private values!: RawBytes;
  private external!: Bitmap;
  private maxKeyLength = 0;

  constructor(schema: KeySchema, pebble?: PebbleEntries) {
    this.schema = schema;
    this.pebble = pebble;
  }

  load(data: Buffer, origin: BlockOrigin, handle?: BlockHandle): this {
    this.origin = origin;
    this.blockHandle = handle;
    this.data = data;
    this.block = data;
    this.entryOffset = -1;
    this.keyLength = 0;
    try {
      this.decode(data);
    } catch (err) {
      if (err instanceof RangeError) throw this.corrupt(err.message);
      throw err;
    }
    return this;
  }

  private decode(data: Buffer): void {
    const s = this.schema;
    if (data.length < s.headerSize + MAX_KEY_LENGTH_SIZE) throw new RangeError("data block too short");
    this.maxKeyLength = data.readUInt32LE(s.headerSize);
    if (this.maxKeyLength > data.length) throw new RangeError(`maximum key length ${this.maxKeyLength}`);
    const b = new ColumnarBlock(data, s.headerSize + MAX_KEY_LENGTH_SIZE);
    const k = s.columnTypes.length;
    if (b.columns !== k + DATA_COLUMNS && b.columns !== k + DATA_COLUMNS + TIERING_COLUMNS)
      throw new RangeError(`${b.columns} columns, not those of key schema ${s.name}`);
    for (let c = 0; c < k; c++)
      if (b.type(c) !== s.columnTypes[c]) throw new RangeError(`column ${c} is not of key schema ${s.name}`);
    this.rows = b.rows;
    if (b.rows === 0) return;
    this.keys = s.keys(b);
    this.trailers = b.uints(k);
    b.bitmap(k + 1); // prefix changed: decoded for its bounds only
    this.values = b.rawBytes(k + 2);
    this.external = b.bitmap(k + 3);
    b.bitmap(k + 4);
    const need = this.maxKeyLength + s.extraKeyBytes + 8;
    if (this.key.length < need) this.key = Buffer.allocUnsafe(Math.max(need, this.key.length * 2));
  }

  corrupt(what: string, row?: number): Error {
    const at = row === undefined || row < 0 ? "" : ` (row ${row} of the block)`;
    const o = this.origin;
    return blockCorruption(o.file, o.kind, o.offset, what + at);
  }

  /** Position at row `row` (< rows). */
  private position(row: number): void {
    this.entryOffset = row;
    try {
      this.readRow(row);
    } catch (err) {
      if (err instanceof RangeError) throw this.corrupt(err.message, row);
      throw err;
    }
  }

  private readRow(row: number): void {
    const n = this.keys.materialize(row, this.key);
    if (n > this.maxKeyLength + this.schema.extraKeyBytes)
      throw new RangeError(`a ${n}-byte key in a block of keys up to ${this.maxKeyLength} bytes`);
    const t = this.trailers;
    t.get64(row);
    const k = this.key;
    k.writeUInt32LE(t.lo, n);
    k.writeUInt32LE(t.hi, n + 4);
    k[n] = pebbleAsValueType(t.lo & 0xff);
    this.keyLength = n + 8;
    const v = this.values;
    v.bounds(row);
    const s = v.s;
    const e = v.e;
    this.data = this.block;
    if (this.external.at(row)) {
      this.declaredValueLength = externalValueLength(this.data, s, e);
      const kind = this.data[s]! & VALUE_KIND_MASK;
      this.valueInValueBlock = kind === VALUE_KIND_VALUE_BLOCK_HANDLE;
      this.valueInBlobFile = kind === VALUE_KIND_BLOB_HANDLE;
      this.valueOffset = s + 1;
      this.valueLength = e - s - 1;
      if (this.resolveValues && this.pebble) this.resolve(this.pebble, e);
    } else {
      this.valueInValueBlock = false;
      this.valueInBlobFile = false;
      this.valueOffset = s;
      this.valueLength = e - s;
      this.declaredValueLength = e - s;
    }
  }

  /** Point data/valueOffset/valueLength at the value the current handle names, when its source is known. */
  private resolve(p: PebbleEntries, end: number): void {
    const source = this.valueInValueBlock ? p.valueBlocks : this.valueInBlobFile ? p.blobValues : undefined;
    if (!source) return;
    const r = source.resolve(this.block, this.valueOffset, end);
    this.data = r.data;
    this.valueOffset = r.offset;
    this.valueLength = r.length;
  }

  next(): boolean {
    const row = this.entryOffset + 1;
    if (row >= this.rows) {
      this.entryOffset = this.rows;
      return false;
    }
    this.position(row);
    return true;
  }

  /**
   * Position at the first row whose internal key, compared by `cmp` (< 0 when the row sorts before
   * the target), is not before the target (binary search over the rows); false if none is.
   */
  seek(cmp: (key: Buffer, keyLength: number) => number): boolean {
    const lo = lowerBound(this.rows, (i) => {
      this.position(i);
      return cmp(this.key, this.keyLength) < 0;
    });
    if (lo >= this.rows) {
      this.entryOffset = this.rows;
      return false;
    }
    this.position(lo);
    return true;
  }

  // The internal-key accessors repeat DataCursor's (data_block.ts) on purpose: the two cursors share an
  // interface (DataEntryCursor), not a base class — DataCursor extends the row-block walk, BlockCursor.
  get userKeyLength(): number {
    return this.keyLength - 8;
  }
  get seqno(): number {
    return internalKeySeqno(this.key, this.keyLength);
  }
  get type(): number {
    return this.key[this.keyLength - 8]!;
  }
  userKeyCopy(): Buffer {
    return Buffer.from(this.key.subarray(0, this.keyLength - 8));
  }
  keyCopy(): Buffer {
    return Buffer.from(this.key.subarray(0, this.keyLength));
  }
  valueCopy(): Buffer {
    return Buffer.from(this.data.subarray(this.valueOffset, this.valueOffset + this.valueLength));
  }
}
