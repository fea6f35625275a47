/**
 * Pebble's columnar blocks (table formats (Pebble,v5)+; Pebble's sstable/colblk/block.go, uints.go,
 * bitmap.go, raw_bytes.go, prefix_bytes.go). All integers little-endian; "aligned to N" is relative to
 * the start of the decompressed block (Pebble keeps block buffers word-aligned).
 *
 *   [custom header: block-kind specific, N bytes]
 *   version (1 byte, = 1) | columns uint16 | rows uint32
 *   per column: data type (1 byte: 1 bool, 2 uint, 3 bytes, 4 prefix bytes) | page start uint32
 *   column data, column by column (each column ends where the next one's page starts)
 *   one padding byte (0x00)
 *
 * Column encodings (for `rows` values; a column of 0 rows takes no bytes at all):
 *   uint         encoding byte: width 0/1/2/4/8 in the low bits, 0x80 = delta from a 64-bit base |
 *                [base uint64 when delta] | padding to the width | rows × width-byte values
 *   bool         0x01 = all false (nothing follows) | 0x00, padding to 8, ⌈rows/64⌉ uint64 words
 *                (bit i of the bitmap = bit i%64 of word i/64) and ⌈words/64⌉ summary words
 *   bytes        a uint column of rows+1 offsets (never delta-encoded) | string data; value i is
 *                data[offset i, offset i+1)
 *   prefix bytes bundle shift byte (bundle size = 1 << shift) | a bytes column of 1 + bundles + rows
 *                slices whose first offset is the length of the block-wide shared prefix (stored at
 *                data[0, offset 0)); slice per bundle: the bundle's prefix, then one suffix per row of
 *                the bundle. An empty row suffix repeats the previous row of its bundle. A row's value =
 *                shared prefix | bundle prefix | row suffix.
 * Damage inside a block throws RangeError (the table layer turns it into a located corruption error).
 */

export const enum ColumnType {
  Bool = 1,
  Uint = 2,
  Bytes = 3,
  PrefixBytes = 4,
}

const TYPE_NAMES: Record<number, string> = { 1: "bool", 2: "uint", 3: "bytes", 4: "prefixbytes" };

/** The columnar block format version (colblk.Version1). */
const COLBLK_VERSION = 1;
const HEADER_SIZE = 7;
const COLUMN_HEADER_SIZE = 5;

function align(offset: number, to: number): number {
  return (offset + to - 1) & ~(to - 1);
}

function fail(what: string): never {
  throw new RangeError(what);
}

/** src[from, to) into out at pos: a loop for the short pieces keys are made of (cheaper than a native call). */
export function copyBytes(src: Buffer, from: number, to: number, out: Buffer, pos: number): void {
  const n = to - from;
  if (n < 32) {
    if (pos + n > out.length) fail(`a ${n}-byte piece does not fit the key buffer`);
    for (let i = 0; i < n; i++) out[pos + i] = src[from + i]!;
  } else if (src.copy(out, pos, from, to) !== n) fail(`a ${n}-byte piece does not fit the key buffer`);
}

/** A column of unsigned integers (uint columns, and the offsets of bytes columns). */
export class Uints {
  readonly count: number;
  private readonly data: Buffer;
  private readonly at0: number;
  private readonly width: number;
  private readonly baseLo: number;
  private readonly baseHi: number;
  /** Byte after the column. */
  readonly end: number;
  /** Set by get64: the upper and lower 32 bits of the value. */
  hi = 0;
  lo = 0;

  constructor(data: Buffer, offset: number, count: number, what: string) {
    this.data = data;
    this.count = count;
    if (count === 0) {
      this.at0 = offset;
      this.width = 0;
      this.baseLo = 0;
      this.baseHi = 0;
      this.end = offset;
      return;
    }
    let p = offset;
    if (p >= data.length) fail(`${what}: column starts past the block`);
    const enc = data[p++]!;
    const width = enc & 0x7f;
    const delta = (enc & 0x80) !== 0;
    if (![0, 1, 2, 4, 8].includes(width) || (delta && width === 8))
      fail(`${what}: bad integer encoding 0x${enc.toString(16)}`);
    let baseLo = 0;
    let baseHi = 0;
    if (delta) {
      baseLo = data.readUInt32LE(p);
      baseHi = data.readUInt32LE(p + 4);
      p += 8;
    }
    if (width > 0) p = align(p, width);
    const end = p + count * width;
    if (end > data.length) fail(`${what}: ${count} integers of ${width} bytes run past the block`);
    this.at0 = p;
    this.width = width;
    this.baseLo = baseLo;
    this.baseHi = baseHi;
    this.end = end;
  }

  /** True when the column stores no base (offsets of bytes columns must not have one). */
  get hasBase(): boolean {
    return this.baseLo !== 0 || this.baseHi !== 0;
  }

  get isWide(): boolean {
    return this.width === 8;
  }

  /** Value i as a number (exact below 2^53: offsets, lengths, small counts). */
  at(i: number): number {
    this.get64(i);
    return this.hi * 0x100000000 + this.lo;
  }

  /** Value i into `hi` and `lo` (its upper and lower 32 bits). */
  get64(i: number): void {
    const d = this.data;
    const w = this.width;
    let v: number;
    if (w === 8) {
      const p = this.at0 + i * 8;
      this.lo = d.readUInt32LE(p);
      this.hi = d.readUInt32LE(p + 4);
      return;
    } else if (w === 0) v = 0;
    else if (w === 1) v = d[this.at0 + i]!;
    else if (w === 2) v = d.readUInt16LE(this.at0 + i * 2);
    else v = d.readUInt32LE(this.at0 + i * 4);
    const lo = this.baseLo + v;
    this.lo = lo >>> 0;
    this.hi = (this.baseHi + (lo > 0xffffffff ? 1 : 0)) >>> 0;
  }
}

/** A column of booleans. */
export class Bitmap {
  private readonly data: Buffer;
  private readonly words: number;
  readonly end: number;

  constructor(data: Buffer, offset: number, count: number, what: string) {
    this.data = data;
    if (offset >= data.length) fail(`${what}: column starts past the block`);
    const enc = data[offset]!;
    if (enc === 1) {
      this.words = -1;
      this.end = offset + 1;
      return;
    }
    if (enc !== 0) fail(`${what}: bad bitmap encoding 0x${enc.toString(16)}`);
    const p = align(offset + 1, 8);
    const nWords = (count + 63) >>> 6;
    const size = (nWords + ((nWords + 63) >>> 6)) * 8;
    if (p + size > data.length) fail(`${what}: bitmap of ${count} bits runs past the block`);
    this.words = p;
    this.end = p + size;
  }

  at(i: number): boolean {
    if (this.words < 0) return false;
    return (this.data[this.words + (i >>> 3)]! & (1 << (i & 7))) !== 0;
  }
}

/** A column of byte strings. */
export class RawBytes {
  readonly count: number;
  readonly data: Buffer;
  readonly offsets: Uints;
  /** Offset in the block of the string data. */
  readonly dataStart: number;
  readonly end: number;

  constructor(data: Buffer, offset: number, count: number, what: string) {
    this.data = data;
    this.count = count;
    if (count === 0) {
      this.offsets = new Uints(data, offset, 0, what);
      this.dataStart = offset;
      this.end = offset;
      return;
    }
    this.offsets = new Uints(data, offset, count + 1, what);
    if (this.offsets.hasBase || this.offsets.isWide) fail(`${what}: offsets with a base or 8-byte width`);
    this.dataStart = this.offsets.end;
    this.end = this.dataStart + this.offsets.at(count);
    if (this.end > data.length) fail(`${what}: string data runs past the block`);
  }

  /** Start (block offset) of string i; its end is start(i + 1). */
  start(i: number): number {
    return this.dataStart + this.offsets.at(i);
  }

  /** Set by bounds(i): the block range [s, e) of string i. */
  s = 0;
  e = 0;

  /** The block range of string i into `s` and `e` (no allocation per row), checked to lie in the column. */
  bounds(i: number): void {
    const s = this.start(i);
    const e = this.start(i + 1);
    if (s > e || e > this.end) fail(`string ${i} has a bad range [${s}, ${e})`);
    this.s = s;
    this.e = e;
  }

  at(i: number): Buffer {
    this.bounds(i);
    return this.data.subarray(this.s, this.e);
  }
}

/** A column of sorted byte strings with a shared prefix and per-bundle prefixes. */
export class PrefixBytes {
  readonly rows: number;
  readonly raw: RawBytes;
  readonly end: number;
  private readonly shift: number;
  private readonly sharedLength: number;

  constructor(data: Buffer, offset: number, rows: number, what: string) {
    if (rows === 0) fail(`${what}: prefix-compressed column of no rows`);
    if (offset >= data.length) fail(`${what}: column starts past the block`);
    const shift = data[offset]!;
    if (shift > 16) fail(`${what}: bundle size 2^${shift}`);
    this.shift = shift;
    this.rows = rows;
    const bundles = 1 + ((rows - 1) >>> shift);
    this.raw = new RawBytes(data, offset + 1, rows + bundles, what);
    this.end = this.raw.end;
    this.sharedLength = this.raw.offsets.at(0);
    if (this.raw.dataStart + this.sharedLength > this.end)
      fail(`${what}: shared prefix runs past the column`);
  }

  /** Write row `row`'s value at out[pos...]; returns its length. `out` must hold maxLength bytes. */
  materialize(row: number, out: Buffer, pos: number): number {
    const raw = this.raw;
    const d = raw.data;
    const shift = this.shift;
    const bundle = row >>> shift;
    const bundleIndex = bundle + (bundle << shift);
    let n = this.sharedLength;
    copyBytes(d, raw.dataStart, raw.dataStart + n, out, pos);
    raw.bounds(bundleIndex);
    copyBytes(d, raw.s, raw.e, out, pos + n);
    n += raw.e - raw.s;
    let i = 1 + bundle + row;
    raw.bounds(i);
    let s = raw.s;
    let e = raw.e;
    // an empty suffix repeats the row before it in the bundle
    while (s === e && i > bundleIndex + 1) {
      i--;
      e = s;
      s = raw.start(i);
      if (s > e) fail(`string ${i} has a bad range`);
    }
    copyBytes(d, s, e, out, pos + n);
    return n + e - s;
  }
}

/** A decoded columnar block header: its columns' types and where their data lies. */
export class ColumnarBlock {
  readonly data: Buffer;
  readonly columns: number;
  readonly rows: number;
  private readonly headerAt: number;

  /** `customHeader`: bytes before the columnar header (data blocks, keyspan blocks). */
  constructor(data: Buffer, customHeader: number) {
    this.data = data;
    this.headerAt = customHeader;
    if (data.length < customHeader + HEADER_SIZE + 1) fail(`columnar block too short (${data.length} bytes)`);
    const version = data[customHeader]!;
    if (version !== COLBLK_VERSION) fail(`columnar block version ${version} (this reader knows 1)`);
    this.columns = data.readUInt16LE(customHeader + 1);
    this.rows = data.readUInt32LE(customHeader + 3);
    // every row of every columnar block Pebble writes differs from its neighbours in some column, so
    // takes at least a byte: a larger count is damage (and would loop over billions of empty rows)
    if (this.rows > data.length) fail(`${this.rows} rows in a block of ${data.length} bytes`);
    const dataStart = customHeader + HEADER_SIZE + this.columns * COLUMN_HEADER_SIZE;
    if (dataStart >= data.length) fail(`${this.columns} column headers do not fit in the block`);
    let prev = dataStart;
    for (let c = 0; c < this.columns; c++) {
      const start = this.pageStart(c);
      if (start < prev || start > data.length - 1)
        fail(`column ${c} starts at ${start}, outside [${prev}, ${data.length - 1}]`);
      prev = start;
    }
  }

  type(col: number): number {
    return this.data[this.headerAt + HEADER_SIZE + col * COLUMN_HEADER_SIZE]!;
  }

  /** Offset of a column's data; past the last column, the padding byte. */
  pageStart(col: number): number {
    if (col >= this.columns) return this.data.length - 1;
    return this.data.readUInt32LE(this.headerAt + HEADER_SIZE + col * COLUMN_HEADER_SIZE + 1);
  }

  private column<T extends { end: number }>(
    col: number,
    type: ColumnType,
    make: (offset: number, what: string) => T,
  ): T {
    if (col >= this.columns) fail(`column ${col} missing (the block has ${this.columns})`);
    const what = `column ${col}`;
    const t = this.type(col);
    if (t !== type) fail(`${what} is of type ${TYPE_NAMES[t] ?? t}, not ${TYPE_NAMES[type]}`);
    const v = make(this.pageStart(col), what);
    if (v.end !== this.pageStart(col + 1))
      fail(`${what} ends at ${v.end}, the next column starts at ${this.pageStart(col + 1)}`);
    return v;
  }

  uints(col: number, rows = this.rows): Uints {
    return this.column(col, ColumnType.Uint, (o, w) => new Uints(this.data, o, rows, w));
  }

  bitmap(col: number, rows = this.rows): Bitmap {
    return this.column(col, ColumnType.Bool, (o, w) => new Bitmap(this.data, o, rows, w));
  }

  rawBytes(col: number, rows = this.rows): RawBytes {
    return this.column(col, ColumnType.Bytes, (o, w) => new RawBytes(this.data, o, rows, w));
  }

  prefixBytes(col: number, rows = this.rows): PrefixBytes {
    return this.column(col, ColumnType.PrefixBytes, (o, w) => new PrefixBytes(this.data, o, rows, w));
  }
}

/** A key-value block (colblk.KeyValueBlock): (Pebble,v6)+ metaindex, (Pebble,v7)+ properties. */
export function keyValueEntries(data: Buffer): { key: Buffer; value: Buffer }[] {
  const b = new ColumnarBlock(data, 0);
  if (b.columns !== 2) fail(`key-value block with ${b.columns} columns (expected 2)`);
  const keys = b.rawBytes(0);
  const values = b.rawBytes(1);
  const out: { key: Buffer; value: Buffer }[] = [];
  for (let i = 0; i < b.rows; i++) out.push({ key: keys.at(i), value: values.at(i) });
  return out;
}
