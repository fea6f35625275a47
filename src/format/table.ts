/**
 * One SST file, read without an engine and without any lock: RocksDB block-based tables (format
 * versions 0-7) and LevelDB tables. See table_format.md for the whole file layout:
 *
 *   [data block]* [meta blocks: filter(s), range deletions, compression dictionary, properties, index
 *   partitions...] [metaindex block] [index block] [footer]
 *   (every block followed by its 5-byte trailer; the footer is described in footer.ts)
 *
 * The metaindex block (metaindex.ts; names in block_kind.ts) maps names to block handles:
 *   "rocksdb.properties" (old: "rocksdb.stats")   properties (properties.ts)
 *   "rocksdb.index"                               index block (format_version >= 6)
 *   "rocksdb.compression_dict"                    raw dictionary for ZSTD / LZ4 blocks
 *   "rocksdb.range_del"                           range deletions: internal key -> end user key
 *   "fullfilter.<policy>"                         one full filter (filter_reader.ts, filter_bits.ts)
 *   "partitionedfilter.<policy>"                  index of filter partitions (an index block)
 *   "filter.<policy>"                             legacy block-based filter (LevelDB format)
 *   "rocksdb.hashindex.prefixes" / ".metadata"    hash index side blocks (the index itself is still a
 *                                                 binary-search index and is read as one)
 *
 * SstTable is the entry point. Opening reads the footer, the metaindex, the properties (decoded once,
 * typed) and (when present) the compression dictionary: a handful of small reads. It then chooses, once,
 * an index reader (index_reader.ts) and a filter reader (filter_reader.ts); the index and the filter are
 * read on demand and kept, data blocks and partitions are read per call. Every block read verifies its
 * checksum (as RocksDB with verify_checksums=true) unless the caller opts out. Reads are positioned and
 * synchronous (table_file.ts).
 */
import { LsmscopeError } from "../util/errors.js";
import { escapeText } from "../util/bytes.js";
import { BLOCK_TRAILER_SIZE, type BlockHandle } from "./handle.js";
import { Block, BlockCursor } from "./block.js";
import {
  BlockKind,
  META_COMPRESSION_DICT,
  META_INDEX,
  META_PROPERTIES,
  META_PROPERTIES_OLD,
  META_RANGE_DEL,
  META_RANGE_DEL2,
  META_PEBBLE_RANGE_KEY,
  META_PEBBLE_VALUE_INDEX,
  metaBlockKind,
  topIndexBlockKind,
} from "./block_kind.js";
import { ChecksumType, CHECKSUM_NAMES } from "../base/checksum_type.js";
import { blockCompression, firstBlockCompression } from "./block_trailers.js";
import { DataBlock, DataCursor, type DataEntryCursor, type EntryView } from "./data_block.js";
import {
  createFilterReader,
  type DetachedFilter,
  type FilterInfo,
  type FilterReader,
} from "./filter_reader.js";
import {
  pebbleFormatName,
  type PebbleBlobValues,
  type PebbleEntries,
  type RangeKeyCounts,
} from "./pebble.js";
import { decodeFooter, FOOTER_SIZE, footerSize, MAX_FOOTER_SIZE, type Footer } from "./footer.js";
import {
  ColumnarLayout,
  columnarProperties,
  decodeColumnarMetaindex,
  hasColumnarMetaindex,
  hasColumnarProperties,
  KEY_SCHEMA_PROPERTY,
} from "./pebble/columnar.js";
import { ColumnarIndexReader } from "./pebble/colblk_index.js";
import { decodeKeyspanBlock, type KeyspanBlock } from "./pebble/colblk_keyspan.js";
import { PebbleValueBlocks, valueIndexHandleOf } from "./pebble_value_blocks.js";
import { wrapDecodeError } from "./errors.js";
import { HASH_INDEX_METADATA, HASH_INDEX_PREFIXES, PrefixHashIndex } from "./hash_index.js";
import { createIndexReader, type IndexLayout, type IndexReader, type IndexType } from "./index_reader.js";
import { decodeMetaindex, type MetaBlockEntry } from "./metaindex.js";
import {
  emptyTableProperties,
  propertiesBuilder,
  type PropertyValue,
  type TableProperties,
} from "./properties.js";
import { countBlockRead, emptyLookupStats, type LookupStats } from "./read_stats.js";
import { scanTable, type ScanOptions, type ScanSummary } from "./table_scan.js";
import { TableBlocks } from "./table_blocks.js";
import { TableFile, type IoStats } from "./table_file.js";
import { familyOf, tableCodecs, type TableFamily } from "./table_family.js";
import type {
  GetResult,
  IndexEntry,
  IndexHandleVisit,
  OpenTableOptions,
  RangeTombstone,
  TableFormat,
} from "./table_types.js";
import { DataBlockReader } from "./data_block_reader.js";
import { packIndex, type PackedIndex } from "./packed_index.js";
import { pointLookup, type DataBlockReadOptions, type LastDataBlock } from "./table_get.js";
import { countColumnarRangeKeys, countRowRangeKeys } from "./pebble_range_keys.js";
import { isBytewiseComparator } from "../base/comparator.js";
import { tableCompressionName } from "../base/compression_type.js";

export { DataBlock, type EntryView } from "./data_block.js";
export type { FilterInfo } from "./filter_reader.js";
export type { FilterKind } from "./filter_bits.js";
export type { IndexType } from "./index_reader.js";
export type { MetaBlockEntry } from "./metaindex.js";
export { emptyLookupStats, type LookupStats } from "./read_stats.js";
export type { ScanSummary } from "./table_scan.js";
export type { GetResult, IndexEntry, OpenTableOptions, TableFormat } from "./table_types.js";
export { DataBlockReader } from "./data_block_reader.js";
export type { LastDataBlock } from "./table_get.js";

/** Open one table: footer, metaindex, properties (and compression dictionary) are read now. */
export function openTable(path: string, opts: OpenTableOptions = {}): SstTable {
  // an expected size stands in for the fstat only where the tail read that confirms it comes first
  const expected =
    opts.prefetchTail !== undefined && opts.prefetchTail >= MAX_FOOTER_SIZE ? opts.expectedSize : undefined;
  const file = new TableFile(path, expected, opts.prefetchTail !== undefined ? opts.preread : undefined);
  try {
    return new SstTable(file, opts);
  } catch (err) {
    file.close();
    throw err;
  }
}

/** The cursor over properties blocks (one table is opened at a time on a thread: one cursor serves all). */
const propertiesCursor = new BlockCursor();

export class SstTable {
  readonly path: string;
  readonly fileSize: number;
  readonly footer: Footer;
  readonly format: TableFormat;
  readonly formatVersion: number;
  /** Checksum type name: "crc32c", "xxhash", "xxhash64", "xxh3", "none". */
  readonly checksumType: string;
  readonly metaindex: MetaBlockEntry[];
  /** The table's properties, decoded once: typed fields, every property by name, user properties. */
  readonly props: TableProperties;
  /** Every property under RocksDB's names, user-collected ones included (props.all). */
  readonly properties: Record<string, PropertyValue>;
  readonly indexHandle: BlockHandle;
  readonly indexType: IndexType;
  readonly indexKeyIsUserKey: boolean;
  readonly indexValueIsDeltaEncoded: boolean;
  /**
   * Name of the compression from the properties; a table without the property (LevelDB): the first
   * data block's ("NoCompression" without data blocks); blockCompression() counts every block's.
   */
  readonly compression: string;
  readonly comparator: string;
  /** Bytes and reads spent so far on this table. */
  readonly io: IoStats;
  /** The block layer the readers share. */
  readonly blocks: TableBlocks;
  /** The index reader of the table's index type, chosen at open. */
  readonly index: IndexReader;
  /** The filter reader of the table's filter meta block, chosen at open. */
  readonly filterReader: FilterReader;

  /** Pebble's columnar tables: the data blocks' key schema (undefined for row tables). */
  readonly columnar: ColumnarLayout | undefined;

  private readonly file: TableFile;
  private readonly family: TableFamily;
  private readonly propsHandle: BlockHandle | undefined;
  private tombstones?: RangeTombstone[];

  constructor(file: TableFile, opts: OpenTableOptions) {
    this.file = file;
    this.path = file.path;

    this.io = file.io;
    this.blocks = new TableBlocks(file);
    file.readWith(opts);
    this.footer = this.readFooter(opts.prefetchTail);
    // after the footer: reading the tail confirmed the size (TableFile's expected size)
    this.fileSize = file.size;
    this.formatVersion = this.footer.formatVersion;
    this.checksumType = CHECKSUM_NAMES[this.footer.checksumType as ChecksumType];

    const pebbleVersion = this.footer.magic === "pebble" ? this.formatVersion : 0;
    const mh = this.footer.metaindexHandle;
    // decoded now and not kept (RocksDB's and LevelDB's metaindex): read in place from the tail
    const mi =
      pebbleVersion === 0
        ? this.blocks.view(mh, BlockKind.Metaindex)
        : this.blocks.read(mh, BlockKind.Metaindex);
    this.metaindex = hasColumnarMetaindex(pebbleVersion, mi)
      ? decodeColumnarMetaindex(this.blocks, mh, mi)
      : decodeMetaindex(
          this.blocks,
          new Block(mi, { file: this.path, kind: BlockKind.Metaindex, offset: mh.offset }),
          mh.offset,
        );
    const propsHandle = this.meta(META_PROPERTIES) ?? this.meta(META_PROPERTIES_OLD);
    this.family = familyOf(this.footer, propsHandle !== undefined);
    if (this.family.pebbleEntries) this.attachValueBlocks(this.family.pebbleEntries);
    this.format = this.family.format;
    file.codecs!.leveldb = this.format === "leveldb";

    this.propsHandle = propsHandle;
    this.props = propsHandle ? this.decodeProperties(propsHandle, pebbleVersion) : emptyTableProperties();
    this.properties = this.props.all;
    this.comparator = this.props.comparatorName ?? this.family.defaultComparator;

    const layout: IndexLayout = {
      keyIsUserKey: this.props.indexKeyIsUserKey === 1,
      valueDeltaEncoded: this.props.indexValueIsDeltaEncoded === 1,
    };
    this.indexKeyIsUserKey = layout.keyIsUserKey;
    this.indexValueIsDeltaEncoded = layout.valueDeltaEncoded;
    const idx = this.footer.indexHandle ?? this.meta(META_INDEX);
    if (!idx)
      throw new LsmscopeError("no index block: footer has none and the metaindex lacks rocksdb.index", {
        file: this.path,
        offset: this.footer.metaindexHandle.offset,
      });
    this.indexHandle = idx;
    if (this.family.columnar) {
      const schema = this.props.all[KEY_SCHEMA_PROPERTY];
      this.columnar = new ColumnarLayout(
        this.path,
        this.formatVersion,
        typeof schema === "string" ? schema : undefined,
      );
      this.index = new ColumnarIndexReader(this.blocks, idx, this.props.indexType === 2);
      this.indexKeyIsUserKey = true;
    } else {
      this.columnar = undefined;
      this.index = createIndexReader(
        this.blocks,
        idx,
        this.props.indexType ?? 0,
        layout,
        propsHandle?.offset,
      );
    }
    this.indexType = this.index.type;
    this.filterReader = createFilterReader(this.metaindex, {
      blocks: this.blocks,
      properties: this.props,
      indexLayout: layout,
      leveldbHash: this.family.leveldbHash,
    });

    // compression dictionary (raw bytes, stored uncompressed)
    const dict = this.meta(META_COMPRESSION_DICT);
    if (dict) file.codecs!.dictionary = this.blocks.read(dict, BlockKind.CompressionDictionary);
    const rocksdbFormatVersion = this.format === "block-based" ? this.formatVersion : 0; // not Pebble's
    this.compression =
      tableCompressionName(this.props.compressionName, rocksdbFormatVersion) ??
      (this.format === "leveldb" ? firstBlockCompression(this.index, this.file) : "unknown");
  }

  /** The footer, from the file's last bytes (or a prefetched tail); configures the file's block reads. */
  private readFooter(prefetchTail: number | undefined): Footer {
    const file = this.file;
    const readTail = (n: number) =>
      prefetchTail !== undefined && prefetchTail > n
        ? file.prefetchTail(prefetchTail).subarray(-n)
        : file.read(file.size - n, n);
    // the prefetched tail first when there is one: it confirms (or corrects) a size the file was only
    // expected to have (OpenTableOptions.expectedSize) before the size is used
    const first =
      prefetchTail !== undefined && prefetchTail > Math.min(file.size, FOOTER_SIZE)
        ? file.prefetchTail(prefetchTail)
        : undefined;
    let tailLen = Math.min(file.size, FOOTER_SIZE);
    let tail = first ? first.subarray(-tailLen) : readTail(tailLen);
    // (Pebble,v6)+ footers are longer: read again what the magic and version ask for
    const need = Math.min(file.size, footerSize(tail));
    if (need > tailLen) tail = readTail((tailLen = need));
    const footer = decodeFooter(file.path, tail, file.size - tailLen);
    file.blockAreaEnd = footer.footerOffset;
    file.checksumType = footer.checksumType;
    file.baseContextChecksum = footer.baseContextChecksum;
    file.codecs = tableCodecs(footer);
    // a Pebble table is called one in every block error
    if (footer.magic === "pebble") file.kindPrefix = "Pebble table ";
    return footer;
  }

  /** The properties block, decoded (properties.ts PropertiesBuilder: no string per repeated name or text). */
  private decodeProperties(h: BlockHandle, pebbleVersion: number): TableProperties {
    // decoded now and not kept (the builder copies what it keeps): read in place from the tail
    const data =
      pebbleVersion === 0
        ? this.blocks.view(h, BlockKind.Properties)
        : this.blocks.read(h, BlockKind.Properties);
    const b = propertiesBuilder();
    if (hasColumnarProperties(pebbleVersion, data)) {
      for (const { name, raw } of columnarProperties(this.blocks, h, data)) {
        const nb = Buffer.from(name, "latin1");
        b.add(nb, 0, nb.length, raw, 0, raw.length);
      }
      return b.finish();
    }
    const c = propertiesCursor.reset(
      new Block(data, { file: this.path, kind: BlockKind.Properties, offset: h.offset }),
    );
    this.blocks.guard(BlockKind.Properties, h.offset, () => {
      while (c.next()) b.add(c.key, 0, c.keyLength, c.data, c.valueOffset, c.valueOffset + c.valueLength);
    });
    return b.finish();
  }

  /** Each property's name and raw value bytes (valid during the call only) in the properties block. */
  private forEachProperty(
    h: BlockHandle,
    pebbleVersion: number,
    fn: (name: string, raw: Buffer) => void,
  ): void {
    const data = this.blocks.read(h, BlockKind.Properties);
    if (hasColumnarProperties(pebbleVersion, data)) {
      for (const { name, raw } of columnarProperties(this.blocks, h, data)) fn(name, raw);
      return;
    }
    const origin = { file: this.path, kind: BlockKind.Properties, offset: h.offset };
    const c = new DataCursor().load(data, origin);
    this.blocks.guard(BlockKind.Properties, h.offset, () => {
      while (c.next())
        fn(
          c.key.toString("latin1", 0, c.keyLength),
          c.data.subarray(c.valueOffset, c.valueOffset + c.valueLength),
        );
    });
  }

  /**
   * Raw bytes of every property, read again from the file: the decoded values (props) are what readers
   * keep; the tests that compare the bytes with sst_dump's read them here.
   */
  get rawProperties(): Map<string, Buffer> {
    const raw = new Map<string, Buffer>();
    if (this.propsHandle)
      this.forEachProperty(
        this.propsHandle,
        this.footer.magic === "pebble" ? this.formatVersion : 0,
        (n, v) => raw.set(n, Buffer.from(v)),
      );
    return raw;
  }

  /**
   * Pebble: values in value blocks are resolved through the table's value index (read on first use).
   * A malformed index entry is damage met when a value is resolved, not when the table opens.
   */
  private attachValueBlocks(p: PebbleEntries): void {
    const entry = this.metaindex.find((m) => m.name === META_PEBBLE_VALUE_INDEX);
    if (!entry) return;
    let ih;
    try {
      ih = valueIndexHandleOf(entry);
    } catch (err) {
      wrapDecodeError(err, this.path, BlockKind.Metaindex, this.footer.metaindexHandle.offset);
    }
    p.valueBlocks = new PebbleValueBlocks(this.blocks, ih);
  }

  /**
   * Pebble: resolve this table's blob handles (value separation) through the store's blob files. The
   * table alone does not know them: its MANIFEST entry's blob references do.
   */
  attachBlobValues(source: PebbleBlobValues): void {
    if (this.family.pebbleEntries) this.family.pebbleEntries.blobValues = source;
  }

  /** Pebble's row tables: how their entries differ (undefined for RocksDB and LevelDB tables). */
  get pebbleEntries(): PebbleEntries | undefined {
    return this.family.pebbleEntries;
  }

  /** Pebble's name of the table format, e.g. "(Pebble,v1)"; undefined for RocksDB and LevelDB tables. */
  get pebbleFormat(): string | undefined {
    return this.format === "pebble" ? pebbleFormatName(this.formatVersion) : undefined;
  }

  /** The range-deletion block: RocksDB's "rocksdb.range_del" or Pebble's "rocksdb.range_del2". */
  rangeDelHandle(): BlockHandle | undefined {
    return this.meta(META_RANGE_DEL) ?? this.meta(META_RANGE_DEL2);
  }

  /** Pebble's columnar tables: a keyspan block (range deletions or range keys), decoded. */
  readKeyspanBlock(h: BlockHandle, kind: BlockKind): KeyspanBlock {
    const data = this.blocks.read(h, kind);
    return this.blocks.guard(kind, h.offset, () => decodeKeyspanBlock(data));
  }

  /** Pebble: the entries of the range-key block by kind (undefined when the table has none). */
  rangeKeyCounts(): RangeKeyCounts | undefined {
    const h = this.meta(META_PEBBLE_RANGE_KEY);
    if (!h) return undefined;
    return this.family.columnar
      ? countColumnarRangeKeys(this.readKeyspanBlock(h, BlockKind.RangeKey), h, this.path)
      : countRowRangeKeys(this.blocks, h);
  }

  /** Handle of a meta block by its metaindex name. */
  meta(name: string): BlockHandle | undefined {
    return this.metaindex.find((e) => e.name === name)?.handle;
  }

  /**
   * A meta block's payload (checksum-checked, decompressed) as raw bytes, for meta blocks that are not
   * in block format (the hash index's prefixes and metadata blocks, a filter). Read through a separate
   * descriptor: not counted in `io`.
   */
  readMetaBlockRaw(handle: BlockHandle, kind: string = BlockKind.Meta): Buffer {
    const f = new TableFile(this.path);
    try {
      f.verifyChecksums = this.file.verifyChecksums;
      f.checksumType = this.footer.checksumType;
      f.baseContextChecksum = this.footer.baseContextChecksum;
      f.codecs = tableCodecs(this.footer);
      f.blockAreaEnd = this.footer.footerOffset;
      return Buffer.from(f.readBlock(handle, kind));
    } finally {
      f.close();
    }
  }

  /** The prefix hash index of a kHashSearch table (hash_index.ts), undefined when its meta blocks are absent. */
  readHashIndex(): PrefixHashIndex | undefined {
    const p = this.meta(HASH_INDEX_PREFIXES);
    const m = this.meta(HASH_INDEX_METADATA);
    if (!p || !m) return undefined;
    const prefixes = this.readMetaBlockRaw(p, BlockKind.HashIndexMeta);
    const metadata = this.readMetaBlockRaw(m, BlockKind.HashIndexMeta);
    return this.blocks.guard(BlockKind.HashIndexMeta, m.offset, () =>
      PrefixHashIndex.decode(prefixes, metadata),
    );
  }

  close(): void {
    this.file.close();
  }

  /** Bytes from the end of the file that the reads so far reached (0 before any read). */
  get tailReach(): number {
    const low = this.file.lowestRead;
    return low === Infinity ? 0 : this.fileSize - low;
  }

  /**
   * Data blocks per compression type, from every data block's trailer (one byte each, read through a
   * read-ahead window): what a table without a compression property (LevelDB) actually stores.
   */
  blockCompression(): Record<string, number> {
    return blockCompression(this.index, this.file);
  }

  private requireBytewise(): void {
    const cmp = this.comparator;
    if (!isBytewiseComparator(cmp)) {
      throw new LsmscopeError(
        `point lookups and key seeks need a bytewise comparator; this table uses ${escapeText(cmp)}`,
        { file: this.path, offset: this.meta(META_PROPERTIES)?.offset },
      );
    }
  }

  // ---------------------------------------------------------------- index

  /**
   * `visit` every data block handle with a copy of its separator key, in key order (reads index
   * partitions as it goes), until it returns false. With `from`, starts at the first block that can
   * hold a user key ≥ `from` (IndexReader.walk).
   */
  forEachIndexEntry(visit: (e: IndexEntry) => boolean | void, opts: { from?: Uint8Array } = {}): void {
    const isInternal = !this.indexKeyIsUserKey;
    this.index.walk(
      ({ cursor, partition }) => {
        const e = indexEntry(cursor, isInternal);
        if (partition) e.partition = partition;
        return visit(e);
      },
      { from: this.seekKey(opts.from) },
    );
  }

  /** forEachIndexEntry's entries in an array (every one held at once: for a table's listing, tests). */
  indexEntries(opts: { from?: Uint8Array } = {}): IndexEntry[] {
    const out: IndexEntry[] = [];
    this.forEachIndexEntry((e) => {
      out.push(e);
    }, opts);
    return out;
  }

  /** `from` as a Buffer to seek the index with (a comparator other than bytewise is refused). */
  private seekKey(from: Uint8Array | undefined): Buffer | undefined {
    if (from) this.requireBytewise();
    return from && Buffer.from(from.buffer, from.byteOffset, from.byteLength);
  }

  /** The blocks from `from` to the first separator ≥ `until`, packed (packed_index.ts packIndex). */
  packedIndex(from?: Uint8Array, until?: Uint8Array): PackedIndex {
    return packIndex(this.index, !this.indexKeyIsUserKey, this.seekKey(from), until);
  }

  /**
   * The walk of forEachIndexEntry() (same blocks read, same checks and errors, from the same `from`)
   * with nothing copied or allocated per entry. `partitionOffset`: the offset of the index partition
   * of a two-level index (-1 otherwise); `separator[0, separatorLength)`: the stored separator
   * (internal unless index_key_is_user_key), valid during the call only. `pin` false: for a table
   * closed after this walk, index blocks in the prefetched tail are read in place and not kept
   * (IndexReader.walk). The walk stops where `visit` returns false.
   */
  forEachIndexHandle(visit: IndexHandleVisit, pin = true, from?: Uint8Array): void {
    this.index.walk(
      ({ cursor: c, partition }) =>
        visit(c.handleOffset, c.handleSize, partition ? partition.offset : -1, c.key, c.keyLength),
      { pin, from: this.seekKey(from) },
    );
  }

  // ---------------------------------------------------------------- data

  /**
   * Read one data block to iterate or seek, its bytes living where `opts.lifetime` says (default a
   * buffer of its own; TableFile.readBlock). The read counts in `stats` when given.
   */
  readDataBlock(handle: BlockHandle, opts: DataBlockReadOptions = {}): DataBlock {
    const data = this.blocks.read(handle, BlockKind.Data, opts.lifetime);
    countBlockRead(opts.stats, "data", handle);
    const origin = { file: this.path, kind: BlockKind.Data, offset: handle.offset };
    const row = this.columnar ? undefined : new Block(data, origin);
    return new DataBlock(data, origin, handle, () => this.newDataCursor(), row);
  }

  /**
   * A cursor over data blocks of this table's layout (row blocks, or Pebble's columnar blocks under
   * the table's key schema); refused with one line for a columnar table whose key schema is unknown.
   */
  newDataCursor(): DataEntryCursor {
    return this.columnar
      ? this.columnar.dataCursor(this.family.pebbleEntries)
      : new DataCursor(this.family.pebbleEntries);
  }

  /**
   * Reads of this table's data blocks (as readDataBlock into a "scratch" buffer, into a cursor of the
   * table's layout) through an object that holds the file and nothing else of the table: a merge over
   * thousands of L0 files keeps one per run, and the table's metadata (properties, metaindex) made
   * most of its memory. Closing it closes the file (a caller that keeps the table does not).
   */
  dataBlockReader(): DataBlockReader {
    // the cursor factory must not hold the table (the point of the reader): its parts only
    const columnar = this.columnar;
    const pebble = this.family.pebbleEntries;
    return new DataBlockReader(
      this.blocks,
      columnar ? () => columnar.dataCursor(pebble) : () => new DataCursor(pebble),
      // RocksDB and LevelDB tables: every value lies in its data block
      columnar === undefined && pebble === undefined,
    );
  }

  /**
   * Visit every entry of every data block in key order (then the range deletions), reusing one read
   * buffer and one entry object. Return `false` from the visitor to stop early.
   */
  scan(visitor?: (e: EntryView) => boolean | void, opts: ScanOptions = {}): ScanSummary {
    const { summary, stopped } = scanTable(this, this.file, visitor, opts);
    if (!stopped && !opts.blocks) this.filterReader.noteScannedEntries(summary.dataEntries);
    return summary;
  }

  /** Range deletions of this table: [start user key, end user key) at a sequence number. */
  rangeDeletions(): RangeTombstone[] {
    const rd = this.rangeDelHandle();
    if (!rd) return [];
    if (this.family.columnar)
      return this.readKeyspanBlock(rd, BlockKind.RangeDeletion).keys.map((k) => ({
        start: Buffer.from(k.start),
        end: Buffer.from(k.end),
        seqno: k.seqno,
      }));
    const c = new DataCursor().reset(this.blocks.parsed(rd, BlockKind.RangeDeletion));
    const out: RangeTombstone[] = [];
    this.blocks.guard(BlockKind.RangeDeletion, rd.offset, () => {
      while (c.next()) out.push({ start: c.userKeyCopy(), end: c.valueCopy(), seqno: c.seqno });
    });
    return out;
  }

  /**
   * Read every block other than the data blocks (meta blocks, index and its partitions, filter
   * partitions), so that every trailer gets checked; `scan()` covers data blocks. Blocks are counted
   * once, by their stored bytes (block and trailer).
   */
  verifyAllBlocks(onError?: (err: unknown, kind: string, handle: BlockHandle) => void): {
    blocks: number;
    bytes: number;
  } {
    let blocks = 0;
    let bytes = 0;
    const read = (h: BlockHandle, kind: string) => {
      blocks++;
      try {
        this.blocks.read(h, kind);
      } catch (err) {
        if (!onError) throw err;
        onError(err, kind, h);
        return; // a handle's declared size is no measure of bytes read (it may be 1 TiB)
      }
      bytes += h.size + BLOCK_TRAILER_SIZE;
    };
    const each = (kind: string, handles: () => Iterable<BlockHandle>, at: BlockHandle) => {
      try {
        for (const h of handles()) read(h, kind);
      } catch (err) {
        if (!onError) throw err;
        onError(err, kind, at);
      }
    };
    read(this.footer.metaindexHandle, BlockKind.Metaindex);
    for (const m of this.metaindex) read(m.handle, metaBlockKind(m.name));
    if (!this.meta(META_INDEX)) read(this.indexHandle, topIndexBlockKind(this.indexType));
    each(BlockKind.IndexPartition, () => this.index.partitions(), this.indexHandle);
    const fh = this.filter.metaBlock ? this.meta(this.filter.metaBlock) : undefined;
    if (fh) each(BlockKind.FilterPartition, () => this.filterReader.partitions(), fh);
    const vb = this.family.pebbleEntries?.valueBlocks;
    if (vb) each(BlockKind.PebbleValueBlock, () => vb.handles(), vb.indexHandle.handle);
    return { blocks, bytes };
  }

  // ---------------------------------------------------------------- filter and lookups

  /** Filter kind and geometry. Reads the filter's 5 metadata bytes (or the partition index) once. */
  get filter(): FilterInfo {
    return this.filterReader.describe();
  }

  /** `filter`, with what only the whole filter block tells (a LevelDB filter's probes: read for it). */
  get filterInFull(): FilterInfo {
    return this.filterReader.describeFully();
  }

  /**
   * Query the table's filter for a user key, as RocksDB does before reading the index (full and
   * partitioned filters) or after it (block-based filters, which need the data block offset).
   * Returns undefined when the table has no usable whole-key filter.
   */
  mayContain(userKey: Uint8Array, stats?: LookupStats): boolean | undefined {
    const s = stats ?? emptyLookupStats();
    const key = Buffer.from(userKey.buffer, userKey.byteOffset, userKey.byteLength);
    return this.filterReader.mayContain(key, s, () => this.index.seek(key, s)?.offset);
  }

  /**
   * A query that tells, without this table (which may be closed), that `get()` would not find a key:
   * the table's whole-key filter, when the table is bytewise-ordered and has no range deletions (those
   * apply whatever the filter says); undefined when no such shortcut exists.
   */
  detachedFilter(): DetachedFilter | undefined {
    if (!isBytewiseComparator(this.comparator) || this.rangeDelHandle()) return undefined;
    return this.filterReader.detachedQuery?.();
  }

  /**
   * The newest range deletion of this table covering `key` (RocksDB's Get treats entries older than it
   * as deleted). The range-deletion block is read once and kept.
   */
  private coveringRangeDeletion(key: Buffer): RangeTombstone | undefined {
    if (!this.rangeDelHandle()) return undefined;
    this.tombstones ??= this.rangeDeletions();
    let best: RangeTombstone | undefined;
    for (const t of this.tombstones) {
      if (t.start.compare(key) <= 0 && key.compare(t.end) < 0 && (!best || t.seqno > best.seqno)) best = t;
    }
    return best;
  }

  /**
   * Point lookup of the newest entry for `userKey` in this table, the way RocksDB's table reader does:
   * filter (full/partitioned) -> index (-> partition) -> [block-based filter] -> data block.
   * Counts what it reads in `stats` (also returned). Index and full filter blocks are kept after their
   * first read, like a table reader that pins them; partitions and data blocks are read every time.
   */
  get(userKey: Uint8Array, stats?: LookupStats, lastBlock?: LastDataBlock): GetResult {
    this.requireBytewise();
    const s = stats ?? emptyLookupStats();
    const key = Buffer.from(userKey.buffer, userKey.byteOffset, userKey.byteLength);
    // like TableCache::Get, the table's range tombstones apply whatever the filter says
    return pointLookup(this, key, this.coveringRangeDeletion(key), s, lastBlock);
  }
}

function indexEntry(c: BlockCursor, isInternal: boolean): IndexEntry {
  const e: IndexEntry = {
    separator: c.keyCopy(),
    separatorIsInternal: isInternal,
    handle: { offset: c.handleOffset, size: c.handleSize },
  };
  if (c.indexHasFirstKey)
    e.firstKey = Buffer.from(c.data.subarray(c.firstKeyOffset, c.firstKeyOffset + c.firstKeyLength));
  return e;
}
