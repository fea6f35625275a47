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
 * remapped to a physical block and an offset added to the value id. The columnar blocks are decoded by
 * pebble/colblk.ts.
 */
import { maskedCrc32c } from "../base/crc.js";
import { ChecksumType, CHECKSUM_NAMES } from "../base/checksum_type.js";
import { LsmscopeError } from "../util/errors.js";
import { createCodecs } from "./compression.js";
import { BlockCorruptionError } from "./errors.js";
import { BLOCK_TRAILER_SIZE, type BlockHandle } from "./handle.js";
import { TableFile } from "./table_file.js";
import { ColumnarBlock, type RawBytes, type Uints } from "./pebble/colblk.js";

const MAGIC_V1 = Buffer.from("f09faab3f09fa680", "hex");
const MAGIC_V2 = Buffer.from("f09faab3f09fa682", "hex");
const FOOTER_V1 = 38;

export const PEBBLE_BLOB_KIND = {
  Footer: "footer",
  Index: "blob index",
  Values: "blob value",
};

export interface PebbleBlobFooter {
  /** "blobV1" or "blobV2". */
  format: string;
  checksumType: string;
  index: BlockHandle;
  /** The file number the file was written under. */
  originalFileNumber: number;
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

/** A decoded value block: one bytes column, the values by row. */
export class BlobValueBlock {
  readonly rows: number;
  private readonly values: RawBytes;
  constructor(readonly data: Buffer) {
    const b = new ColumnarBlock(data, 0);
    if (b.columns !== 1) fail(`value block of ${b.columns} columns (expected 1)`);
    if (b.rows === 0) fail("value block of 0 rows");
    this.rows = b.rows;
    this.values = b.rawBytes(0);
    // every value within the data, so that range() of any row cannot fail later
    for (let i = 0; i < b.rows; i++) this.values.bounds(i);
  }
  /** Row i's value: data[start, end). */
  range(i: number): [number, number] {
    this.values.bounds(i);
    return [this.values.s, this.values.e];
  }
  /** Sum of the value lengths. */
  get valueBytes(): number {
    return this.values.offsets.at(this.rows);
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
    /** Per virtual block: physical block index (low 32 bits) | value id offset (high 32 bits). */
    virtual: Uints;
    offsetAt(i: number): number;
  };
  private cached?: { block: number; values: BlobValueBlock };

  /** `verifyChecksums` false skips the blocks' checksums (the footer's is always checked): tests only. */
  constructor(path: string, opts: { verifyChecksums?: boolean } = {}) {
    this.file = new TableFile(path);
    this.file.readWith(opts);
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
    const tail = this.file.read(size - FOOTER_V1, FOOTER_V1);
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
    const f = tail;
    const at = size - FOOTER_V1;
    const stored = f.readUInt32LE(0);
    const computed = maskedCrc32c(f.subarray(4));
    if (stored !== computed)
      throw this.corrupt(
        PEBBLE_BLOB_KIND.Footer,
        at,
        `footer checksum mismatch (stored ${stored}, computed ${computed})`,
      );
    const checksum = f[20]!;
    const format = f[21]!;
    if (format !== 1)
      throw this.corrupt(PEBBLE_BLOB_KIND.Footer, at, `blob file format ${format} under the blobV1 magic`);
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
      format: "blobV1",
      checksumType: CHECKSUM_NAMES[checksum as ChecksumType],
      index: { offset: u64(4), size: u64(12) },
      originalFileNumber: Number(f.readBigUInt64LE(22)),
      footerOffset: at,
    };
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
      const b = new ColumnarBlock(data, 4);
      if (b.columns !== 2) fail(`index block of ${b.columns} columns (expected 2)`);
      const rows = b.rows;
      if (rows === 0) fail("index of 0 blocks");
      const virt = b.uints(0, virtualCount);
      const offs = b.uints(1, rows + 1);
      if (offs.at(0) !== 0) fail("first value block does not start at offset 0");
      for (let i = 0; i < rows; i++)
        if (offs.at(i + 1) - offs.at(i) <= BLOCK_TRAILER_SIZE)
          fail(`value block ${i} is shorter than its trailer`);
      if (offs.at(rows) !== h.offset)
        fail(`value blocks end at ${offs.at(rows)}, the index starts at ${h.offset}`);
      this.index = { blocks: rows, virtualCount, virtual: virt, offsetAt: (i) => offs.at(i) };
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
    ix.virtual.get64(blockId);
    const offset = ix.virtual.hi;
    if (offset === 0xffffffff)
      throw this.corrupt(
        PEBBLE_BLOB_KIND.Index,
        this.footer.index.offset,
        `virtual block ${blockId} is unreferenced`,
      );
    return { block: ix.virtual.lo, row: valueId + offset };
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
   * Read and check every block (value blocks, index): values counted and their bytes summed.
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
    return { blocks: n + 1, values, valueBytes, bytes: this.size };
  }
}
