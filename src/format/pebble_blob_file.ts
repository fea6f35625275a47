/**
 * Pebble's blob files (value separation, `<number>.blob`; Pebble's sstable/blob/blob.go, blocks.go,
 * handle.go). Values are stored in columnar value blocks; a table's value is a handle into one of them.
 *
 *   [value block]* [index block] [properties block (blobV2)] footer
 *   (blobV2 files are recognised and refused: no Pebble-written one was at hand to check against)
 *   (every block followed by the usual 5-byte trailer: compression type, checksum of its type)
 *
 *   footer blobV1 (38 bytes) / blobV2 (70 bytes), little-endian:
 *     0   masked crc32c of the footer's bytes [4, end)
 *     4   index block offset uint64 | 12 index block length uint64 (without trailer)
 *     20  checksum type u8 (0 none, 1 crc32c, 2 xxhash, 3 xxhash64) | 21 format u8 (1 blobV1, 2 blobV2)
 *     22  original file number uint64
 *     blobV2: 30 properties block offset uint64 | 38 length uint64 | 46 16 zero bytes
 *     last 8: magic f0 9f aa b3 f0 9f a6 80 (blobV1) or … a6 82 (blobV2)
 *   index block    virtual block count uint32 | columnar block (2 columns, rows = physical blocks):
 *                  virtual blocks uint (virtual block count rows: physical index | value id offset << 32)
 *                  offsets uint (rows + 1: block i spans [offset i, offset i+1) with its trailer)
 *   value block    columnar block, 1 bytes column: the values, value id = row
 *
 * A value handle names (block id, value id); with virtual blocks (a rewritten file) the block id is
 * remapped to a physical block and an offset added to the value id. Columnar blocks: version 1 |
 * columns uint16 | rows uint32 | per column type u8 and page start uint32 | pages | one padding byte;
 * a uint column is an encoding byte (width 0/1/2/4/8, 0x80 = delta from a uint64 base that follows),
 * padding to the width, rows × width bytes; a bytes column is a uint column of rows + 1 offsets, then
 * the data.
 */
import { crc32c } from "@node-rs/crc32";
import { maskCrc32c } from "../base/crc.js";
import { ChecksumType, CHECKSUM_NAMES } from "../base/checksum_type.js";
import { LsmscopeError } from "../util/errors.js";
import { LIMITS } from "../util/limits.js";
import { createCodecs } from "./compression.js";
import { BlockCorruptionError } from "./errors.js";
import { BLOCK_TRAILER_SIZE, type BlockHandle } from "./handle.js";
import { TableFile } from "./table_file.js";

const MAGIC_V1 = Buffer.from("f09faab3f09fa680", "hex");
const MAGIC_V2 = Buffer.from("f09faab3f09fa682", "hex");
const FOOTER_V1 = 38;
const FOOTER_V2 = 70;

export const PEBBLE_BLOB_KIND = {
  Footer: "footer",
  Index: "blob index",
  Values: "blob value",
  Properties: "blob properties",
};

export interface PebbleBlobFooter {
  /** "blobV1" or "blobV2". */
  format: string;
  checksumType: string;
  index: BlockHandle;
  /** The file number the file was written under. */
  originalFileNumber: number;
  /** blobV2 only. */
  properties?: BlockHandle;
  footerOffset: number;
}

/** One value's place: a physical block and the row in it. */
interface ValuePlace {
  block: number;
  row: number;
}

function fail(what: string): never {
  throw new RangeError(what);
}

/** A uint column at data[off): count values; at(i) as a JS number (values past 2^53 are damage). */
function uintColumn(data: Buffer, off: number, count: number): { at(i: number): number; end: number } {
  if (count === 0) return { at: () => fail("empty column"), end: off };
  if (off >= data.length) fail("uint column starts past the block");
  const enc = data[off++]!;
  const width = enc & 0x7f;
  const delta = (enc & 0x80) !== 0;
  if (![0, 1, 2, 4, 8].includes(width) || (delta && width === 8))
    fail(`uint column encoding 0x${enc.toString(16)}`);
  let base = 0;
  if (delta) {
    if (off + 8 > data.length) fail("uint column base runs past the block");
    base = Number(data.readBigUInt64LE(off));
    off += 8;
  }
  if (width > 0) off = Math.ceil(off / width) * width;
  const end = off + count * width;
  if (end > data.length) fail("uint column runs past the block");
  const start = off;
  const at = (i: number): number => {
    if (i < 0 || i >= count) fail(`row ${i} of a ${count}-row column`);
    const p = start + i * width;
    const v = width === 0 ? 0 : width === 8 ? Number(data.readBigUInt64LE(p)) : data.readUIntLE(p, width);
    const r = base + v;
    if (!Number.isSafeInteger(r)) fail("uint value past 2^53");
    return r;
  };
  return { at, end };
}

/** The header of a columnar block after `custom` bytes: rows and each column's page start. */
function columnarHeader(data: Buffer, custom: number, columns: number): { rows: number; pages: number[] } {
  if (data.length < custom + 7 + 5 * columns + 1) fail("columnar block shorter than its header");
  if (data[custom] !== 1) fail(`columnar block version ${data[custom]}`);
  const cols = data.readUInt16LE(custom + 1);
  if (cols !== columns) fail(`columnar block of ${cols} columns (expected ${columns})`);
  const rows = data.readUInt32LE(custom + 3);
  const pages: number[] = [];
  for (let c = 0; c < columns; c++) pages.push(data.readUInt32LE(custom + 7 + 5 * c + 1));
  // the last column ends before the block's padding byte
  pages.push(data.length - 1);
  for (let c = 0; c < columns; c++)
    if (pages[c]! > pages[c + 1]!) fail(`column ${c} starts after the next one`);
  return { rows, pages };
}

/** A decoded value block: the values by row. */
export class BlobValueBlock {
  readonly rows: number;
  private readonly offsets: { at(i: number): number };
  private readonly dataStart: number;
  constructor(readonly data: Buffer) {
    const { rows, pages } = columnarHeader(data, 0, 1);
    if (rows === 0) fail("value block of 0 rows");
    // a row takes at least an offset byte: more rows than bytes is damage (and no loop over them)
    if (rows > data.length) fail(`value block of ${rows} rows in ${data.length} bytes`);
    this.rows = rows;
    const offs = uintColumn(data, pages[0]!, rows + 1);
    this.offsets = offs;
    this.dataStart = offs.end;
    if (offs.at(0) !== 0) fail("first value offset is not 0");
    // every value within the data, so that range() of any row cannot fail later
    for (let i = 0; i < rows; i++) if (offs.at(i + 1) < offs.at(i)) fail(`value ${i} ends before it starts`);
    if (offs.end + offs.at(rows) !== pages[1])
      fail("value data does not end where the block's padding starts");
  }
  /** Row i's value: data[start, end). */
  range(i: number): [number, number] {
    const s = this.dataStart + this.offsets.at(i);
    const e = this.dataStart + this.offsets.at(i + 1);
    if (e < s) fail(`value ${i} ends before it starts`);
    return [s, e];
  }
  /** Sum of the value lengths. */
  get valueBytes(): number {
    return this.offsets.at(this.rows);
  }
}

export class PebbleBlobFile {
  readonly path: string;
  readonly size: number;
  readonly footer: PebbleBlobFooter;
  private readonly file: TableFile;
  private checksumCode: ChecksumType = ChecksumType.CRC32c;
  private index?: {
    blocks: number;
    virtualCount: number;
    virtualAt(i: number): number;
    offsetAt(i: number): number;
  };
  private cached?: { block: number; values: BlobValueBlock };

  /** `verifyChecksums` false skips the blocks' checksums (the footer's is always checked): tests only. */
  constructor(path: string, opts: { verifyChecksums?: boolean } = {}) {
    this.file = new TableFile(path);
    this.file.verifyChecksums = opts.verifyChecksums ?? true;
    this.path = path;
    this.size = this.file.size;
    try {
      this.footer = this.readFooter();
      this.file.kindPrefix = "Pebble ";
      this.file.blockAreaEnd = this.footer.footerOffset;
      this.file.checksumType = this.checksumCode;
      this.file.codecs = createCodecs(2, false);
    } catch (err) {
      this.file.close();
      throw err;
    }
  }

  close(): void {
    this.file.close();
  }

  private corrupt(kind: string, offset: number, detail: string): BlockCorruptionError {
    return new BlockCorruptionError(this.path, `Pebble ${kind}`, offset, detail);
  }

  private readFooter(): PebbleBlobFooter {
    const size = this.size;
    if (size < FOOTER_V1)
      throw new LsmscopeError(`Pebble blob file of ${size} bytes is shorter than its footer`, {
        file: this.path,
      });
    const tail = this.file.read(size - Math.min(size, FOOTER_V2), Math.min(size, FOOTER_V2));
    const magic = tail.subarray(tail.length - 8);
    const v2 = magic.equals(MAGIC_V2);
    if (!v2 && !magic.equals(MAGIC_V1))
      throw new LsmscopeError(
        `bad Pebble blob file magic ${magic.toString("hex")} (not a Pebble blob file, or truncated)`,
        {
          file: this.path,
          offset: size - 8,
        },
      );
    // Pebble's testdata holds no blobV2 file written by Pebble to check a reader against: refused by name
    if (v2)
      throw new LsmscopeError(
        "Pebble blob file in format blobV2, which lsmscope does not read (it reads blobV1 blob files)",
        { file: this.path, offset: size - 8 },
      );
    const len = v2 ? FOOTER_V2 : FOOTER_V1;
    if (tail.length < len)
      throw this.corrupt(
        PEBBLE_BLOB_KIND.Footer,
        0,
        `file of ${size} bytes is shorter than its ${len}-byte footer`,
      );
    const f = tail.subarray(tail.length - len);
    const at = size - len;
    const stored = f.readUInt32LE(0);
    const computed = maskCrc32c(crc32c(f.subarray(4)));
    if (stored !== computed)
      throw this.corrupt(
        PEBBLE_BLOB_KIND.Footer,
        at,
        `footer checksum mismatch (stored ${stored}, computed ${computed})`,
      );
    const checksum = f[20]!;
    const format = f[21]!;
    if (format !== (v2 ? 2 : 1))
      throw this.corrupt(
        PEBBLE_BLOB_KIND.Footer,
        at,
        `blob file format ${format} under the blobV${v2 ? 2 : 1} magic`,
      );
    // Pebble's checksum types (block.ChecksumType) are RocksDB's first four
    if (checksum > ChecksumType.XXHash64)
      throw this.corrupt(PEBBLE_BLOB_KIND.Footer, at, `checksum type ${checksum}`);
    this.checksumCode = checksum as ChecksumType;
    const u64 = (p: number) => {
      const v = f.readBigUInt64LE(p);
      if (v > BigInt(size))
        throw this.corrupt(PEBBLE_BLOB_KIND.Footer, at, `footer field at ${p} is ${v}, past the file`);
      return Number(v);
    };
    const out: PebbleBlobFooter = {
      format: v2 ? "blobV2" : "blobV1",
      checksumType: CHECKSUM_NAMES[checksum as ChecksumType],
      index: { offset: u64(4), size: u64(12) },
      originalFileNumber: Number(f.readBigUInt64LE(22)),
      footerOffset: at,
    };
    if (v2) out.properties = { offset: u64(30), size: u64(38) };
    return out;
  }

  /** The index block, read (checksum checked) and decoded once. */
  private readIndex(): NonNullable<PebbleBlobFile["index"]> {
    if (this.index) return this.index;
    const h = this.footer.index;
    const data = this.file.readBlock(h, PEBBLE_BLOB_KIND.Index);
    try {
      if (data.length < 4) fail("index block shorter than its header");
      const virtualCount = data.readUInt32LE(0);
      const { rows, pages } = columnarHeader(data, 4, 2);
      if (rows === 0 || rows > LIMITS.maxBlocksPerTable) fail(`index of ${rows} blocks`);
      if (virtualCount > LIMITS.maxBlocksPerTable) fail(`index of ${virtualCount} virtual blocks`);
      const virt = uintColumn(data, pages[0]!, virtualCount);
      const offs = uintColumn(data, pages[1]!, rows + 1);
      if (virt.end !== pages[1] || offs.end !== pages[2])
        fail("index columns do not end where the next begins");
      if (offs.at(0) !== 0) fail("first value block does not start at offset 0");
      for (let i = 0; i < rows; i++)
        if (offs.at(i + 1) - offs.at(i) <= BLOCK_TRAILER_SIZE)
          fail(`value block ${i} is shorter than its trailer`);
      if (offs.at(rows) !== h.offset)
        fail(`value blocks end at ${offs.at(rows)}, the index starts at ${h.offset}`);
      this.index = { blocks: rows, virtualCount, virtualAt: virt.at, offsetAt: offs.at };
      return this.index;
    } catch (err) {
      if (err instanceof RangeError) throw this.corrupt(PEBBLE_BLOB_KIND.Index, h.offset, err.message);
      throw err;
    }
  }

  /** Number of value blocks (physical). */
  get blockCount(): number {
    return this.readIndex().blocks;
  }

  /** Handle (without trailer) of physical value block i. */
  blockHandle(i: number): BlockHandle {
    const ix = this.readIndex();
    if (i < 0 || i >= ix.blocks)
      throw this.corrupt(
        PEBBLE_BLOB_KIND.Index,
        this.footer.index.offset,
        `no value block ${i} (${ix.blocks} blocks)`,
      );
    const off = ix.offsetAt(i);
    return { offset: off, size: ix.offsetAt(i + 1) - off - BLOCK_TRAILER_SIZE };
  }

  /** Physical value block i, read (checksum checked), decompressed and decoded; the last one kept. */
  valueBlock(i: number): BlobValueBlock {
    if (this.cached?.block === i) return this.cached.values;
    const h = this.blockHandle(i);
    const data = this.file.readBlock(h, PEBBLE_BLOB_KIND.Values);
    let values: BlobValueBlock;
    try {
      values = new BlobValueBlock(data);
    } catch (err) {
      if (err instanceof RangeError) throw this.corrupt(PEBBLE_BLOB_KIND.Values, h.offset, err.message);
      throw err;
    }
    this.cached = { block: i, values };
    return values;
  }

  /** Where (block id, value id) of a handle lives (blob.cachedReader.GetUnsafeValue). */
  private place(blockId: number, valueId: number): ValuePlace {
    const ix = this.readIndex();
    if (ix.virtualCount === 0) return { block: blockId, row: valueId };
    if (blockId >= ix.virtualCount)
      throw this.corrupt(
        PEBBLE_BLOB_KIND.Index,
        this.footer.index.offset,
        `no virtual block ${blockId} (${ix.virtualCount})`,
      );
    const v = ix.virtualAt(blockId);
    const offset = Math.floor(v / 2 ** 32);
    if (offset === 0xffffffff)
      throw this.corrupt(
        PEBBLE_BLOB_KIND.Index,
        this.footer.index.offset,
        `virtual block ${blockId} is unreferenced`,
      );
    return { block: v % 2 ** 32, row: valueId + offset };
  }

  /** The value a handle's (block id, value id) names: its bytes as data[offset, offset + length). */
  value(blockId: number, valueId: number): { data: Buffer; offset: number; length: number } {
    const p = this.place(blockId, valueId);
    const b = this.valueBlock(p.block);
    if (p.row >= b.rows)
      throw this.corrupt(
        PEBBLE_BLOB_KIND.Values,
        this.blockHandle(p.block).offset,
        `no value ${p.row} (${b.rows} values)`,
      );
    const [s, e] = b.range(p.row);
    return { data: b.data, offset: s, length: e - s };
  }

  /**
   * Read and check every block (value blocks, index, properties): values counted and their bytes summed.
   * Throws the first damage met, located at its block.
   */
  verify(): { blocks: number; values: number; valueBytes: number; bytes: number } {
    let values = 0;
    let valueBytes = 0;
    const n = this.blockCount;
    for (let i = 0; i < n; i++) {
      const b = this.valueBlock(i);
      values += b.rows;
      valueBytes += b.valueBytes;
    }
    let blocks = n + 1;
    if (this.footer.properties && this.footer.properties.size > 0) {
      this.file.readBlock(this.footer.properties, PEBBLE_BLOB_KIND.Properties);
      blocks++;
    }
    return { blocks, values, valueBytes, bytes: this.size };
  }
}
