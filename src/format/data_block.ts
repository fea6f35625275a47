/**
 * Data blocks: entries keyed by internal keys (internal_key.ts) in block format (block.ts), read one
 * entry at a time without copies (EntryView) or copied out (DataBlock's iterator).
 */
import { Block, BlockCursor, type BlockOrigin } from "./block.js";
import type { BlockHandle } from "./handle.js";
import { internalKeySeqno } from "../base/internal_key.js";
import {
  decodePrefixedValue,
  pebbleAsValueType,
  pebbleKind,
  PebbleKind,
  type PebbleEntries,
} from "./pebble.js";

/**
 * The entry a scan visitor sees. It is reused: `key` and `data` are only valid during the callback;
 * copy with `userKeyCopy()` / `valueCopy()`.
 */
export interface EntryView {
  /** Internal key bytes are key[0, keyLength). */
  readonly key: Buffer;
  readonly keyLength: number;
  readonly userKeyLength: number;
  readonly seqno: number;
  readonly type: number;
  /** Value bytes are data[valueOffset, valueOffset + valueLength). */
  readonly data: Buffer;
  readonly valueOffset: number;
  readonly valueLength: number;
  /** The data block holding the entry (undefined for range deletions). */
  readonly blockHandle: BlockHandle | undefined;
  userKeyCopy(): Buffer;
  valueCopy(): Buffer;
}

/**
 * A cursor over one data block of either layout, chosen once per table (SstTable.newDataCursor): row
 * blocks (DataCursor) or Pebble's columnar blocks (pebble/colblk_data.ts). `entryOffset` locates the
 * entry in errors: a byte offset in a row block, a row number in a columnar one.
 */
export interface DataEntryCursor extends EntryView {
  blockHandle: BlockHandle | undefined;
  readonly entryOffset: number;
  /** Pebble: the value lives in a value block (resolved when the table's value blocks are read). */
  readonly valueInValueBlock: boolean;
  /** Pebble (v6)+: the value lives in a blob file (resolved when the store's blob files are attached). */
  readonly valueInBlobFile: boolean;
  /**
   * Pebble: the value's length as written (for an external value, the length its handle declares);
   * not kept for RocksDB's tables. Read a value's size as written through writtenValueLength().
   */
  readonly declaredValueLength: number;
  /** Pebble: resolve values behind handles whose source is known (off: walks that only count). */
  resolveValues: boolean;
  /** Point at a data block's decoded bytes (`handle`: the block's, for EntryView.blockHandle). */
  load(data: Buffer, origin: BlockOrigin, handle?: BlockHandle): this;
  next(): boolean;
  seek(cmp: (key: Buffer, keyLength: number) => number): boolean;
  keyCopy(): Buffer;
  /** A corruption error naming the block (and the entry at `at`). */
  corrupt(what: string, at?: number): Error;
}

/**
 * The size of the cursor's value as written: an external value (Pebble: in a value block or a blob
 * file) by the length its handle declares, whether or not it was resolved; any other by its bytes.
 */
export function writtenValueLength(c: DataEntryCursor): number {
  return c.valueInValueBlock || c.valueInBlobFile ? c.declaredValueLength : c.valueLength;
}

/** A cursor over a data (or range-deletion) block whose keys are internal keys. */
export class DataCursor extends BlockCursor implements DataEntryCursor {
  blockHandle: BlockHandle | undefined;
  /** Set for Pebble tables: next() normalises kinds and strips value prefixes. */
  readonly pebble: PebbleEntries | undefined;
  /**
   * Pebble: the last entry's value lives in a value block or a blob file. When its source is known
   * (PebbleEntries.valueBlocks / blobValues) and `resolveValues` is on, data/valueOffset/valueLength
   * are the value itself; otherwise they are the handle's bytes (declaredValueLength: its length).
   */
  valueInValueBlock = false;
  /** Pebble: the last entry's value lives in a blob file (see valueInValueBlock). */
  valueInBlobFile = false;
  /** Pebble: the value's length as written (for a value-block value, the length its handle declares). */
  declaredValueLength = 0;
  /** Resolve values behind handles (off only for walks that count entries and never look at values). */
  resolveValues = true;
  constructor(pebble?: PebbleEntries) {
    super();
    this.pebble = pebble;
  }
  /** The Block this cursor re-points at every block it loads (a scan loads tens of thousands). */
  private own: Block | undefined;
  load(data: Buffer, origin: BlockOrigin, handle?: BlockHandle): this {
    const own = this.own;
    this.reset(own ? own.load(data, origin) : (this.own = new Block(data, origin)));
    this.blockHandle = handle;
    return this;
  }
  corrupt(what: string, at?: number): Error {
    return this.block.corrupt(what, at);
  }
  override next(): boolean {
    // a resolved value pointed `data` elsewhere; entries are decoded from the data block
    if (this.data !== this.block.data) this.data = this.block.data;
    if (!super.next()) return false;
    const p = this.pebble;
    if (p === undefined || this.keyLength < 8) return true;
    const kp = this.keyLength - 8;
    const raw = this.key[kp]!;
    const kind = pebbleAsValueType(raw);
    if (kind !== raw) this.key[kp] = kind;
    this.valueInValueBlock = false;
    this.valueInBlobFile = false;
    if (p.valuePrefix && pebbleKind(raw) === PebbleKind.Set) {
      let v;
      try {
        v = decodePrefixedValue(this.data, this.valueOffset, this.valueLength);
      } catch (err) {
        throw this.block.corrupt((err as Error).message, this.entryOffset);
      }
      this.declaredValueLength = v.length;
      if (v.where === "in-place") {
        this.valueOffset = v.offset;
        this.valueLength = v.length;
      } else {
        this.valueInValueBlock = v.where === "value-block";
        this.valueInBlobFile = v.where === "blob-file";
        const end = this.valueOffset + this.valueLength;
        this.valueOffset = v.offset;
        this.valueLength = end - v.offset;
        if (this.resolveValues) this.resolve(p, v.where, end);
      }
    } else this.declaredValueLength = this.valueLength;
    return true;
  }
  /**
   * Point data/valueOffset/valueLength at the value a handle names: a value block of the table, or a
   * blob file of the store (when the caller attached the store's blob files).
   */
  private resolve(p: PebbleEntries, where: "value-block" | "blob-file", handleEnd: number): void {
    const source = where === "value-block" ? p.valueBlocks : p.blobValues;
    if (!source) return;
    let r;
    try {
      r = source.resolve(this.data, this.valueOffset, handleEnd);
    } catch (err) {
      if (err instanceof RangeError)
        throw this.block.corrupt(`value handle: ${err.message}`, this.entryOffset);
      throw err;
    }
    this.data = r.data;
    this.valueOffset = r.offset;
    this.valueLength = r.length;
  }
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
}

/** A data block read on its own: iterate (copies) or use a cursor (no copies). */
export class DataBlock {
  readonly handle: BlockHandle;
  private readonly data: Buffer;
  private readonly origin: BlockOrigin;
  private readonly newCursor: () => DataEntryCursor;
  private readonly rowBlock: Block | undefined;
  /**
   * `newCursor`: a cursor of the table's block layout (SstTable.newDataCursor); `rowBlock`: the block
   * parsed, for row layouts (undefined for Pebble's columnar blocks).
   */
  constructor(
    data: Buffer,
    origin: BlockOrigin,
    handle: BlockHandle,
    newCursor: () => DataEntryCursor,
    rowBlock?: Block,
  ) {
    this.data = data;
    this.origin = origin;
    this.handle = handle;
    this.newCursor = newCursor;
    this.rowBlock = rowBlock;
  }
  /** Row blocks: number of restart points (0 for a columnar block). */
  get numRestarts(): number {
    return this.rowBlock?.numRestarts ?? 0;
  }
  /** Row blocks: whether the data-block hash index bit is set. */
  get hasHashIndex(): boolean {
    return this.rowBlock?.hasHashIndex ?? false;
  }
  /** Uncompressed bytes of the block. */
  get logicalSize(): number {
    return this.data.length;
  }
  /**
   * Seek inside the block: the first entry whose internal key, compared by `cmp(key, keyLength)`
   * (< 0 when the entry sorts before the target), is not before the target; undefined if every entry
   * sorts before it.
   */
  seek(cmp: (key: Buffer, keyLength: number) => number): DataEntryCursor | undefined {
    const c = this.cursor();
    return c.seek(cmp) ? c : undefined;
  }
  /**
   * A cursor over the entries (reused key buffer, values as ranges of the block): `reuse`, a cursor
   * this table made before (over this block or another), pointed at this block's first entry, else a
   * new one (a cursor and its buffers for each of thousands of drawn blocks were most of what a
   * sample's walks allocated).
   */
  cursor(reuse?: DataEntryCursor): DataEntryCursor {
    return (reuse ?? this.newCursor()).load(this.data, this.origin, this.handle);
  }
  *[Symbol.iterator](): Generator<{ userKey: Buffer; seqno: number; type: number; value: Buffer }> {
    const c = this.cursor();
    while (c.next()) yield { userKey: c.userKeyCopy(), seqno: c.seqno, type: c.type, value: c.valueCopy() };
  }
}
