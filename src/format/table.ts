/**
 * One SST file, read without an engine and without any lock: RocksDB block-based tables (format
 * versions 0-7) and LevelDB tables. See table_format.md for the whole file layout:
 *
 *   [data block]* [meta blocks: filter(s), range deletions, compression dictionary, properties, index
 *   partitions...] [metaindex block] [index block] [footer]
 *   (every block followed by its 5-byte trailer; the footer is described in footer.ts)
 *
 * The metaindex block (block.ts layout, restart interval 1) maps names to block handles:
 *   "rocksdb.properties" (old: "rocksdb.stats")   properties (properties.ts)
 *   "rocksdb.index"                               index block (format_version >= 6)
 *   "rocksdb.compression_dict"                    raw dictionary for ZSTD / LZ4 blocks
 *   "rocksdb.range_del"                           range deletions: internal key -> end user key
 *   "fullfilter.<policy>"                         one full filter (filter_bits.ts)
 *   "partitionedfilter.<policy>"                  index of filter partitions (an index block)
 *   "filter.<policy>"                             legacy block-based filter (LevelDB format)
 *   "rocksdb.hashindex.prefixes" / ".metadata"    hash index side blocks (the index itself is still a
 *                                                 binary-search index and is read as one)
 *
 * Reads are positioned and synchronous (table_file.ts). Opening reads the footer, the metaindex, the
 * properties and (when present) the compression dictionary: a handful of small reads. The index and the
 * filter are read on demand and kept; data blocks and partitions are read per call.
 */
import { LsmscopeError } from "../util/errors.js";
import { escapeText } from "../util/bytes.js";
import { LIMITS } from "../util/limits.js";
import { cursor as makeCursor } from "../util/coding.js";
import { Block, BlockCursor } from "./block.js";
import { ChecksumType, CHECKSUM_NAMES } from "../base/checksum_type.js";
import { compressionName } from "../base/compression_type.js";
import { indexTypeName, type IndexTypeName } from "../base/index_type.js";
import { createCodecs } from "./compression.js";
import { decodeFooter, FOOTER_SIZE, type Footer } from "./footer.js";
import { BLOCK_TRAILER_SIZE, decodeBlockHandle, type BlockHandle } from "./handle.js";
import { internalKeySeqno, valueTypeName, ValueType } from "../base/internal_key.js";
import { propertyValue, type PropertyValue } from "./properties.js";
import {
  decodeBlockBasedFilter,
  decodeFilterBits,
  filterMetadata,
  type FilterMetadata,
  type BlockBasedFilter,
  type FilterBits,
  type FilterBitsKind,
} from "./filter_bits.js";
import { wrapDecodeError } from "./errors.js";
import { TableFile, type IoStats } from "./table_file.js";
import { HASH_INDEX_METADATA, HASH_INDEX_PREFIXES, PrefixHashIndex } from "./hash_index.js";

export interface OpenTableOptions {
  /** Verify every block checksum read (footer checksum of format >= 6 is always verified). */
  verifyChecksums?: boolean;
  /**
   * Read this many bytes at the end of the file at once (instead of the footer alone) and serve the
   * metadata blocks inside them from memory (TableFile.prefetchTail). For whole-table metadata reads.
   */
  prefetchTail?: number;
  /** Sequential scans: read this many bytes at a time and serve the blocks inside them (TableFile.readAhead). */
  readAhead?: number;
}

export type TableFormat = "block-based" | "leveldb";
export type IndexType = IndexTypeName;
export type FilterKind = "bloom" | "fastbloom" | "ribbon" | "none";

export interface MetaBlockEntry {
  name: string;
  handle: BlockHandle;
}

export interface FilterInfo {
  /** What the filter bits are, from the filter block's own marker byte (not the policy name). */
  kind: FilterKind;
  /** The marker said something this reader treats as "always may contain" or "never contains". */
  degenerate?: "always-true" | "always-false";
  partitioned: boolean;
  /** Legacy block-based filter ("filter." meta block, LevelDB format, one Bloom per 2 KiB of data). */
  blockBased: boolean;
  /** Metaindex key of the filter block, e.g. "fullfilter.rocksdb.BuiltinBloomFilter". */
  metaBlock?: string;
  /** Policy name from the metaindex key. */
  policy?: string;
  /** Stored filter bits per key: filter bytes * 8 / keys added (num.filter_entries or num.entries). */
  bitsPerKey?: number;
  numProbes?: number;
  /** Ribbon: 128-slot blocks of the (first) filter, and its seed. */
  ribbonBlocks?: number;
  /** Expected false-positive rate from the filter's own geometry (RocksDB's estimators). */
  estimatedFpRate?: number;
  /** Bytes of the filter (the full filter block, or the "rocksdb.filter.size" property). */
  filterBytes: number;
  /** Partitioned: number of partitions (read from the partition index when it is loaded). */
  partitions?: number;
  /** Whether whole user keys were added ("rocksdb.block.based.table.whole.key.filtering"). */
  wholeKeyFiltering: boolean;
  /**
   * Prefix extractor of the table ("rocksdb.prefix.extractor.name"). Without whole keys the filter
   * holds prefixes; may-contain then queries the key's prefix for rocksdb.FixedPrefix.N and
   * rocksdb.CappedPrefix.N, and cannot answer for other extractors.
   */
  prefixExtractor?: string;
}

/** One index entry: the separator key as stored and the data block it points to. */
export interface IndexEntry {
  /** Separator key (internal key, or user key when index_key_is_user_key). A copy. */
  separator: Buffer;
  /** True when `separator` is an internal key (user key + 8-byte trailer). */
  separatorIsInternal: boolean;
  handle: BlockHandle;
  /** kBinarySearchWithFirstKey: first internal key of the data block. */
  firstKey?: Buffer;
  /** Two-level index: handle of the partition this entry came from. */
  partition?: BlockHandle;
}

/** Counters for one lookup (or a sequence of calls), for probes. */
export interface LookupStats {
  filterChecked: number;
  filterRejected: number;
  indexBlocksRead: number;
  filterBlocksRead: number;
  dataBlocksRead: number;
  /** Bytes read from the file (block bytes + trailers) by this call. */
  bytesRead: number;
}

export interface GetResult {
  found: boolean;
  /** Rejected by the filter (no index or data block read for the key). */
  filterRejected: boolean;
  type?: number;
  typeName?: string;
  seqno?: number;
  /**
   * Value bytes (copy); for blob-index entries the blob index (db/blob/blob_index.h), for merges one
   * operand, for a covering range deletion (type 0xf) its end key.
   */
  value?: Buffer;
  stats: LookupStats;
}

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
  /** First and last user keys of the data blocks. */
  firstKey?: Buffer;
  lastKey?: Buffer;
  /** Stored (compressed) bytes of the data blocks, without trailers, and uncompressed bytes. */
  dataBlockBytes: number;
  uncompressedDataBytes: number;
}

class DataCursor extends BlockCursor implements EntryView {
  blockHandle: BlockHandle | undefined;
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

/** Zeroed lookup statistics, to pass to mayContain/get. */
export function emptyLookupStats(): LookupStats {
  return {
    filterChecked: 0,
    filterRejected: 0,
    indexBlocksRead: 0,
    filterBlocksRead: 0,
    dataBlocksRead: 0,
    bytesRead: 0,
  };
}

/** Open one table: footer, metaindex, properties (and compression dictionary) are read now. */
export function openTable(path: string, opts: OpenTableOptions = {}): SstTable {
  const file = new TableFile(path);
  try {
    return new SstTable(file, opts);
  } catch (err) {
    file.close();
    throw err;
  }
}

export class SstTable {
  readonly path: string;
  readonly fileSize: number;
  readonly footer: Footer;
  readonly format: TableFormat;
  readonly formatVersion: number;
  /** Checksum type name: "crc32c", "xxhash", "xxhash64", "xxh3", "none". */
  readonly checksumType: string;
  readonly metaindex: MetaBlockEntry[];
  /** Every property under RocksDB's names, user-collected ones included. */
  readonly properties: Record<string, PropertyValue>;
  /** Raw bytes of every property. */
  readonly rawProperties: Map<string, Buffer>;
  readonly indexHandle: BlockHandle;
  readonly indexType: IndexType;
  readonly indexKeyIsUserKey: boolean;
  readonly indexValueIsDeltaEncoded: boolean;
  /** Name of the compression from the properties, or (LevelDB) of the first data block. */
  readonly compression: string;
  readonly comparator: string;
  /** Bytes and reads spent so far on this table. */
  readonly io: IoStats;

  private readonly file: TableFile;
  private topIndex?: Block;
  private filterInfo?: FilterInfo;
  private fullFilter?: FilterBits;
  private filterIndex?: Block;
  private blockFilter?: BlockBasedFilter;
  private readonly statsStack: LookupStats[] = [];

  constructor(file: TableFile, opts: OpenTableOptions) {
    this.file = file;
    this.path = file.path;
    this.fileSize = file.size;
    this.io = file.io;
    file.verifyChecksums = Boolean(opts.verifyChecksums);
    if (opts.readAhead !== undefined) file.readAhead(opts.readAhead);
    const tailLen = Math.min(file.size, FOOTER_SIZE);
    const tail =
      opts.prefetchTail !== undefined && opts.prefetchTail > tailLen
        ? file.prefetchTail(opts.prefetchTail).subarray(-tailLen)
        : file.read(file.size - tailLen, tailLen);
    this.footer = decodeFooter(file.path, tail, file.size - tailLen);
    file.blockAreaEnd = this.footer.footerOffset;
    file.checksumType = this.footer.checksumType;
    file.baseContextChecksum = this.footer.baseContextChecksum;
    file.codecs = createCodecs(this.footer.formatVersion, this.footer.magic === "legacy");

    // metaindex
    this.metaindex = [];
    const mi = this.readBlockParsed(this.footer.metaindexHandle, "metaindex");
    const c = new BlockCursor().reset(mi);
    this.guard("metaindex", this.footer.metaindexHandle.offset, () => {
      while (c.next()) {
        const name = c.key.toString("latin1", 0, c.keyLength);
        const hc = makeCursor(c.data, c.valueOffset, c.valueOffset + c.valueLength);
        this.metaindex.push({ name, handle: decodeBlockHandle(hc) });
      }
    });
    const props = this.meta("rocksdb.properties") ?? this.meta("rocksdb.stats");
    this.format = this.footer.magic === "legacy" && !props ? "leveldb" : "block-based";
    file.codecs.leveldb = this.format === "leveldb";
    this.formatVersion = this.footer.formatVersion;
    this.checksumType = CHECKSUM_NAMES[this.footer.checksumType as ChecksumType];

    // properties
    this.properties = {};
    this.rawProperties = new Map();
    if (props) {
      const pb = this.readBlockParsed(props, "properties");
      const pc = new BlockCursor().reset(pb);
      this.guard("properties", props.offset, () => {
        while (pc.next()) {
          const name = pc.key.toString("latin1", 0, pc.keyLength);
          const raw = pc.valueCopy();
          this.rawProperties.set(name, raw);
          this.properties[name] = propertyValue(name, raw);
        }
      });
    }

    // index
    const idx = this.footer.indexHandle ?? this.meta("rocksdb.index");
    if (!idx)
      throw new LsmscopeError("no index block: footer has none and the metaindex lacks rocksdb.index", {
        file: this.path,
        offset: this.footer.metaindexHandle.offset,
      });
    this.indexHandle = idx;
    const rawType = this.rawProperties.get("rocksdb.block.based.table.index.type");
    const typeNum = rawType && rawType.length >= 4 ? rawType.readUInt32LE(0) : 0;
    const indexType = indexTypeName(typeNum);
    if (indexType === undefined) {
      throw new LsmscopeError(`unsupported index type ${typeNum}`, {
        file: this.path,
        offset: props?.offset,
      });
    }
    this.indexType = indexType;
    this.indexKeyIsUserKey = this.properties["rocksdb.index.key.is.user.key"] === 1;
    this.indexValueIsDeltaEncoded = this.properties["rocksdb.index.value.is.delta.encoded"] === 1;
    this.comparator = String(
      this.properties["rocksdb.comparator"] ??
        (this.format === "leveldb" ? "leveldb.BytewiseComparator" : ""),
    );

    // compression dictionary (raw bytes, stored uncompressed)
    const dict = this.meta("rocksdb.compression_dict");
    if (dict) file.codecs.dictionary = file.readBlock(dict, "compression dictionary");

    const pc = this.properties["rocksdb.compression"];
    this.compression =
      typeof pc === "string" ? pc : this.format === "leveldb" ? this.firstBlockCompression() : "unknown";
  }

  /** Handle of a meta block by its metaindex name. */
  meta(name: string): BlockHandle | undefined {
    return this.metaindex.find((e) => e.name === name)?.handle;
  }

  /**
   * A meta block's payload (checksum-checked when the block trailer says so, decompressed) as raw bytes,
   * for meta blocks that are not in block format (the hash index's prefixes and metadata blocks, a
   * filter). Read through a separate descriptor: not counted in `io`, no verifyChecksums option.
   */
  readMetaBlockRaw(handle: BlockHandle, kind = "meta block"): Buffer {
    const f = new TableFile(this.path);
    try {
      f.checksumType = this.footer.checksumType;
      f.baseContextChecksum = this.footer.baseContextChecksum;
      f.codecs = createCodecs(this.footer.formatVersion, this.footer.magic === "legacy");
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
    return PrefixHashIndex.decode(
      this.readMetaBlockRaw(p, "hash index meta block"),
      this.readMetaBlockRaw(m, "hash index meta block"),
    );
  }

  close(): void {
    this.file.close();
  }

  /** Compression of the first data block (LevelDB tables have no properties). */
  private firstBlockCompression(): string {
    for (const e of this.iterateIndex()) {
      const t = this.file.read(e.handle.offset + e.handle.size, 1)[0]!;
      return compressionName(t);
    }
    return "NoCompression";
  }

  private guard<T>(kind: string, offset: number, fn: () => T): T {
    try {
      return fn();
    } catch (err) {
      return wrapDecodeError(err, this.path, kind, offset);
    }
  }

  private countRead(kind: "index" | "filter" | "data", handle: BlockHandle): void {
    for (const s of this.statsStack) {
      if (kind === "index") s.indexBlocksRead++;
      else if (kind === "filter") s.filterBlocksRead++;
      else s.dataBlocksRead++;
      s.bytesRead += handle.size + BLOCK_TRAILER_SIZE;
    }
  }

  private readBlockParsed(handle: BlockHandle, kind: string, reuse = false): Block {
    const data = this.file.readBlock(handle, kind, reuse);
    return new Block(data, { file: this.path, kind, offset: handle.offset });
  }

  private indexCursor(): BlockCursor {
    return new BlockCursor({
      index: true,
      valueDelta: this.indexValueIsDeltaEncoded,
      firstKey: this.indexType === "binary-search-with-first-key",
    });
  }

  private partitionCursor(): BlockCursor {
    // the top level of a two-level index never carries first keys
    return new BlockCursor({ index: true, valueDelta: this.indexValueIsDeltaEncoded });
  }

  private loadTopIndex(): Block {
    if (!this.topIndex) {
      this.topIndex = this.readBlockParsed(
        this.indexHandle,
        this.indexType === "two-level" ? "top-level index" : "index",
      );
      this.countRead("index", this.indexHandle);
    }
    return this.topIndex;
  }

  /**
   * The index walk behind iterateIndex() and forEachIndexHandle(): one step per data block, with the
   * step's cursor positioned on that block's index entry and `partition` set to the index partition of
   * a two-level index. The step object is reused, so walking allocates nothing per entry.
   *
   * With `from` (a user key) the walk starts at the first block that can hold a key ≥ `from`: the first
   * entry whose separator (≥ every key of its block, < every key of the next) has a user-key part
   * ≥ `from`, found by binary search over the index's restart points instead of a walk from the start
   * (a scan split into key ranges seeks every table once per range). Needs a bytewise comparator.
   */
  private *walkIndex(
    from?: Buffer,
  ): Generator<{ cursor: BlockCursor; partition?: BlockHandle }, void, undefined> {
    const top = this.loadTopIndex();
    const cmp = from ? SstTable.cmpUser(from, !this.indexKeyIsUserKey) : undefined;
    if (this.indexType !== "two-level") {
      const c = this.indexCursor().reset(top);
      const step = { cursor: c };
      let n = 0;
      if (cmp) {
        if (!this.guard("index", this.indexHandle.offset, () => c.seek(cmp))) return;
        n++;
        yield step;
      }
      while (this.guard("index", this.indexHandle.offset, () => c.next())) {
        if (++n > LIMITS.maxBlocksPerTable) throw top.corrupt("too many index entries");
        yield step;
      }
      return;
    }
    const tc = this.partitionCursor().reset(top);
    let n = 0;
    // with `from`: the first partition whose separator is ≥ from, then the seek inside it
    let seekTop = cmp !== undefined;
    for (;;) {
      const more = seekTop
        ? this.guard("top-level index", this.indexHandle.offset, () => tc.seek(cmp!))
        : this.guard("top-level index", this.indexHandle.offset, () => tc.next());
      if (!more) return;
      const partition = { offset: tc.handleOffset, size: tc.handleSize };
      const pb = this.readBlockParsed(partition, "index partition");
      this.countRead("index", partition);
      const pc = this.indexCursor().reset(pb);
      const step = { cursor: pc, partition };
      if (seekTop) {
        seekTop = false;
        if (this.guard("index partition", partition.offset, () => pc.seek(cmp!))) {
          n++;
          yield step;
        }
      }
      while (this.guard("index partition", partition.offset, () => pc.next())) {
        if (++n > LIMITS.maxBlocksPerTable) throw pb.corrupt("too many index entries");
        yield step;
      }
    }
  }

  /**
   * Every data block handle with its separator key, in key order (reads index partitions as it goes).
   * With `from`, starts at the first block that can hold a user key ≥ `from` (see walkIndex).
   */
  *iterateIndex(opts: { from?: Uint8Array } = {}): Generator<IndexEntry> {
    const isInternal = !this.indexKeyIsUserKey;
    let from: Buffer | undefined;
    if (opts.from) {
      this.requireBytewise();
      from = Buffer.from(opts.from.buffer, opts.from.byteOffset, opts.from.byteLength);
    }
    for (const { cursor, partition } of this.walkIndex(from)) {
      const e = this.indexEntry(cursor, isInternal);
      if (partition) e.partition = partition;
      yield e;
    }
  }

  /**
   * The walk of iterateIndex() (same blocks read, same checks and errors) for callers that need only the
   * data-block handles: nothing is copied or allocated per entry. `partitionOffset` is the offset of
   * the index partition of a two-level index (-1 otherwise). `separator[0, separatorLength)` is the
   * stored separator key (internal unless index_key_is_user_key), valid during the call only.
   */
  forEachIndexHandle(
    visit: (
      offset: number,
      size: number,
      partitionOffset: number,
      separator: Buffer,
      separatorLength: number,
    ) => void,
  ): void {
    for (const { cursor, partition } of this.walkIndex()) {
      visit(
        cursor.handleOffset,
        cursor.handleSize,
        partition ? partition.offset : -1,
        cursor.key,
        cursor.keyLength,
      );
    }
  }

  private indexEntry(c: BlockCursor, isInternal: boolean): IndexEntry {
    const e: IndexEntry = {
      separator: c.keyCopy(),
      separatorIsInternal: isInternal,
      handle: { offset: c.handleOffset, size: c.handleSize },
    };
    if (c.indexHasFirstKey)
      e.firstKey = Buffer.from(c.data.subarray(c.firstKeyOffset, c.firstKeyOffset + c.firstKeyLength));
    return e;
  }

  /**
   * Read one data block to iterate or seek. With `reuse`, the block may live in a scratch buffer that
   * the next `reuse` read overwrites (no allocation for uncompressed / reused-output blocks).
   */
  readDataBlock(handle: BlockHandle, opts: { reuse?: boolean } = {}): DataBlock {
    const b = this.readBlockParsed(handle, "data", Boolean(opts.reuse));
    this.countRead("data", handle);
    return new DataBlock(b, handle);
  }

  /**
   * Visit every entry of every data block in key order (then the range deletions), reusing one read
   * buffer and one entry object. Return `false` from the visitor to stop early.
   */
  scan(
    visitor?: (e: EntryView) => boolean | void,
    opts: {
      /** Include the range-deletion block (default true; only with a full scan). */
      rangeDeletions?: boolean;
      /** Only data blocks [start, end) in index order, e.g. to split a scan between workers. */
      blocks?: { start: number; end: number };
    } = {},
  ): ScanSummary {
    const s: ScanSummary = {
      entries: 0,
      dataEntries: 0,
      rangeDeletions: 0,
      rawKeyBytes: 0,
      rawValueBytes: 0,
      deletions: 0,
      mergeOperands: 0,
      blobIndexes: 0,
      dataBlocks: 0,
      dataBlockBytes: 0,
      uncompressedDataBytes: 0,
    };
    const c = new DataCursor();
    let stopped = false;
    const range = opts.blocks;
    let blockNo = -1;
    for (const ie of this.iterateIndex()) {
      blockNo++;
      if (range && blockNo < range.start) continue;
      if (range && blockNo >= range.end) break;
      const h = ie.handle;
      const data = this.file.readBlock(h, "data", true);
      const block = new Block(data, { file: this.path, kind: "data", offset: h.offset });
      s.dataBlocks++;
      s.dataBlockBytes += h.size;
      s.uncompressedDataBytes += data.length;
      c.reset(block);
      c.blockHandle = h;
      let any = false;
      try {
        while (c.next()) {
          const kl = c.keyLength;
          if (kl < 8) throw block.corrupt(`internal key of ${kl} bytes`, c.entryOffset);
          if (!any) {
            any = true;
            if (s.firstKey === undefined) s.firstKey = c.userKeyCopy();
          }
          s.dataEntries++;
          s.rawKeyBytes += kl;
          s.rawValueBytes += c.valueLength;
          const t = c.key[kl - 8]!;
          if (t !== ValueType.Value) {
            if (
              t === ValueType.Deletion ||
              t === ValueType.SingleDeletion ||
              t === ValueType.DeletionWithTimestamp
            )
              s.deletions++;
            else if (t === ValueType.Merge) s.mergeOperands++;
            else if (t === ValueType.BlobIndex) s.blobIndexes++;
          }
          if (visitor && visitor(c) === false) {
            stopped = true;
            break;
          }
        }
      } catch (err) {
        wrapDecodeError(err, this.path, "data", h.offset);
      }
      if (any) s.lastKey = c.userKeyCopy();
      if (stopped) break;
    }
    const rd = this.meta("rocksdb.range_del");
    if (!stopped && rd && opts.rangeDeletions !== false && !range) {
      const rb = this.readBlockParsed(rd, "range deletion");
      c.reset(rb);
      c.blockHandle = undefined;
      this.guard("range deletion", rd.offset, () => {
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
    s.entries = s.dataEntries + s.rangeDeletions;
    if (!stopped && !range) {
      const f = this.filter;
      if (f.blockBased && f.bitsPerKey === undefined && this.blockFilter && s.dataEntries > 0) {
        setBlockBasedBitsPerKey(f, this.blockFilter, s.dataEntries);
      }
    }
    return s;
  }

  /** Range deletions of this table: [start user key, end user key) at a sequence number. */
  rangeDeletions(): { start: Buffer; end: Buffer; seqno: number }[] {
    const rd = this.meta("rocksdb.range_del");
    if (!rd) return [];
    const rb = this.readBlockParsed(rd, "range deletion");
    const c = new DataCursor().reset(rb);
    const out: { start: Buffer; end: Buffer; seqno: number }[] = [];
    this.guard("range deletion", rd.offset, () => {
      while (c.next()) out.push({ start: c.userKeyCopy(), end: c.valueCopy(), seqno: c.seqno });
    });
    return out;
  }

  /**
   * Read every block other than the data blocks (meta blocks, index and its partitions, filter
   * partitions), so that with verifyChecksums every trailer gets checked; `scan()` covers data blocks.
   */
  verifyAllBlocks(): { blocks: number; bytes: number } {
    let blocks = 0;
    let bytes = 0;
    const read = (h: BlockHandle, kind: string) => {
      this.file.readBlock(h, kind);
      blocks++;
      bytes += h.size + BLOCK_TRAILER_SIZE;
    };
    read(this.footer.metaindexHandle, "metaindex");
    for (const m of this.metaindex) read(m.handle, `meta block ${m.name}`);
    if (!this.metaindex.some((m) => m.name === "rocksdb.index")) read(this.indexHandle, "index");
    if (this.indexType === "two-level") {
      const tc = this.partitionCursor().reset(this.loadTopIndex());
      while (this.guard("top-level index", this.indexHandle.offset, () => tc.next())) {
        read({ offset: tc.handleOffset, size: tc.handleSize }, "index partition");
      }
    }
    if (this.filter.partitioned) {
      const c = this.partitionCursor().reset(this.loadFilterIndex());
      while (this.guard("filter partition index", this.filterHandle().offset, () => c.next())) {
        read({ offset: c.handleOffset, size: c.handleSize }, "filter partition");
      }
    }
    return { blocks, bytes };
  }

  // ---------------------------------------------------------------- filters

  /** Filter kind and geometry. Reads the filter's 5 metadata bytes (or the partition index) once. */
  get filter(): FilterInfo {
    if (!this.filterInfo) this.filterInfo = this.detectFilter();
    return this.filterInfo;
  }

  private filterEntries(): number {
    const fe = this.properties["rocksdb.num.filter_entries"];
    if (typeof fe === "number" && fe > 0) return fe;
    const ne = this.properties["rocksdb.num.entries"];
    return typeof ne === "number" ? ne : 0;
  }

  private detectFilter(): FilterInfo {
    const wk = this.rawProperties.get("rocksdb.block.based.table.whole.key.filtering");
    const wholeKeyFiltering = wk === undefined ? true : wk.toString("latin1") !== "0";
    const prefixes = ["fullfilter.", "partitionedfilter.", "filter."];
    const entry = this.metaindex.find((e) => prefixes.some((p) => e.name.startsWith(p)));
    if (!entry)
      return { kind: "none", partitioned: false, blockBased: false, filterBytes: 0, wholeKeyFiltering };
    const policy = entry.name.slice(entry.name.indexOf(".") + 1);
    const pe = this.properties["rocksdb.prefix.extractor.name"];
    const prefixExtractor = typeof pe === "string" && pe !== "nullptr" && pe !== "" ? pe : undefined;
    const base = {
      metaBlock: entry.name,
      policy,
      wholeKeyFiltering,
      ...(prefixExtractor ? { prefixExtractor } : {}),
    };
    const keys = this.filterEntries();
    if (entry.name.startsWith("filter.")) {
      const f = this.loadBlockFilter();
      const bytes = entry.handle.size;
      const info: FilterInfo = {
        ...base,
        kind: "bloom",
        partitioned: false,
        blockBased: true,
        filterBytes: bytes,
      };
      if (f?.numProbes !== undefined) info.numProbes = f.numProbes;
      // LevelDB tables have no entry count: a full scan() fills bitsPerKey in later
      if (keys > 0 && f) setBlockBasedBitsPerKey(info, f, keys);
      return info;
    }
    if (entry.name.startsWith("fullfilter.")) {
      // the 5 metadata bytes tell the kind: no need to read the (possibly large) filter bits yet
      const bits = this.fullFilter ?? this.readFilterMetadata(entry.handle);
      return {
        ...base,
        ...describeBits(bits, keys, entry.handle.size),
        partitioned: false,
        blockBased: false,
        filterBytes: entry.handle.size,
      };
    }
    // partitioned: kind from the first partition's metadata bytes
    const idx = this.loadFilterIndex();
    const c = this.partitionCursor().reset(idx);
    let first: BlockHandle | undefined;
    let partitions = 0;
    this.guard("filter partition index", entry.handle.offset, () => {
      while (c.next()) {
        if (!first) first = { offset: c.handleOffset, size: c.handleSize };
        partitions++;
      }
    });
    const fsProp = this.properties["rocksdb.filter.size"];
    const filterBytes = typeof fsProp === "number" ? fsProp : entry.handle.size;
    if (!first)
      return { ...base, kind: "none", partitioned: true, blockBased: false, filterBytes, partitions };
    const bits = this.readFilterMetadata(first);
    // filter bits proper: without the partition index and each partition's 5 metadata bytes
    const bitsBytes = Math.max(0, filterBytes - entry.handle.size - 5 * (partitions - 1));
    const d = describeBits(bits, keys, bitsBytes);
    return { ...base, ...d, partitioned: true, blockBased: false, filterBytes, partitions };
  }

  /**
   * Kind and geometry of a filter block from its last 5 bytes and its trailer's compression byte (one
   * small read, not counted as a block read). RocksDB stores filters uncompressed; a compressed one is
   * read and decoded whole.
   */
  private readFilterMetadata(h: BlockHandle): FilterMetadata {
    if (h.size < 5 || h.offset + h.size + 1 > this.file.blockAreaEnd)
      return filterMetadata(new Uint8Array(0), h.size);
    const tail = this.file.read(h.offset + h.size - 5, 6);
    if (tail[5] !== 0) return decodeFilterBits(this.file.readBlock(h, "filter"));
    return filterMetadata(tail, h.size);
  }

  private loadFullFilter(): FilterBits {
    if (!this.fullFilter) {
      const h = this.filterHandle();
      const data = this.file.readBlock(h, "filter");
      this.countRead("filter", h);
      this.fullFilter = decodeFilterBits(data);
    }
    return this.fullFilter;
  }

  private loadFilterIndex(): Block {
    if (!this.filterIndex) {
      const h = this.filterHandle();
      this.filterIndex = this.readBlockParsed(h, "filter partition index");
      this.countRead("filter", h);
    }
    return this.filterIndex;
  }

  private loadBlockFilter(): BlockBasedFilter | undefined {
    if (!this.blockFilter) {
      const h = this.filterHandle();
      const data = this.file.readBlock(h, "filter");
      this.countRead("filter", h);
      this.blockFilter = decodeBlockBasedFilter(data, this.format === "leveldb");
    }
    return this.blockFilter;
  }

  private readFilterPartition(h: BlockHandle): Buffer {
    const data = this.file.readBlock(h, "filter partition");
    this.countRead("filter", h);
    return data;
  }

  private filterHandle(): BlockHandle {
    const e = this.metaindex.find((m) => /^(fullfilter|partitionedfilter|filter)\./.test(m.name));
    if (!e) throw new Error("no filter block");
    return e.handle;
  }

  /** Comparison of a stored key (user or internal) against a user key, bytewise on the user-key part. */
  private static cmpUser(target: Buffer, internal: boolean): (key: Buffer, len: number) => number {
    return (key, len) => key.compare(target, 0, target.length, 0, internal ? len - 8 : len);
  }

  private requireBytewise(): void {
    const cmp = this.comparator;
    if (cmp !== "leveldb.BytewiseComparator" && cmp !== "") {
      throw new LsmscopeError(
        `point lookups and key seeks need a bytewise comparator; this table uses ${escapeText(cmp)}`,
        {
          file: this.path,
          offset: this.meta("rocksdb.properties")?.offset,
        },
      );
    }
  }

  /**
   * Query the table's filter for a user key, as RocksDB does before reading the index (full and
   * partitioned filters) or after it (block-based filters, which need the data block offset).
   * Returns undefined when the table has no usable whole-key filter.
   */
  mayContain(userKey: Uint8Array, stats?: LookupStats): boolean | undefined {
    const s = stats ?? emptyLookupStats();
    this.statsStack.push(s);
    try {
      return this.queryFilter(
        Buffer.from(userKey.buffer, userKey.byteOffset, userKey.byteLength),
        s,
        undefined,
      );
    } finally {
      this.statsStack.pop();
    }
  }

  /** What the filter holds for `key`: the key itself, its prefix, or undefined (cannot tell). */
  private filterKeyFor(key: Buffer): Buffer | undefined {
    const f = this.filter;
    if (f.wholeKeyFiltering) return key;
    const m = /^rocksdb\.(Fixed|Capped)Prefix\.(\d+)$/.exec(f.prefixExtractor ?? "");
    if (!m) return undefined;
    const n = Number(m[2]);
    if (m[1] === "Fixed") return key.length >= n ? key.subarray(0, n) : undefined; // out of domain
    return key.subarray(0, Math.min(n, key.length));
  }

  private queryFilter(key: Buffer, s: LookupStats, dataBlockOffset: number | undefined): boolean | undefined {
    const f = this.filter;
    if (f.kind === "none") return undefined;
    const fkey = this.filterKeyFor(key);
    if (!fkey) return undefined;
    if (f.blockBased) {
      let off = dataBlockOffset;
      if (off === undefined) {
        const h = this.seekIndex(key);
        if (!h) return false;
        off = h.offset;
      }
      const bf = this.loadBlockFilter();
      if (!bf) return undefined;
      s.filterChecked++;
      const ok = bf.mayMatch(off, fkey);
      if (!ok) s.filterRejected++;
      return ok;
    }
    let bits: FilterBits;
    if (!f.partitioned) {
      bits = this.loadFullFilter();
    } else {
      const idx = this.loadFilterIndex();
      const c = this.partitionCursor().reset(idx);
      let found = this.guard("filter partition index", this.filterHandle().offset, () =>
        c.seek(SstTable.cmpUser(key, !this.indexKeyIsUserKey)),
      );
      if (!found) {
        // beyond the last key: RocksDB consults the last partition
        c.reset(idx);
        while (c.next()) found = true;
        if (!found) return undefined;
      }
      bits = decodeFilterBits(this.readFilterPartition({ offset: c.handleOffset, size: c.handleSize }));
    }
    s.filterChecked++;
    const ok = bits.mayMatch(fkey);
    if (!ok) s.filterRejected++;
    return ok;
  }

  private tombstones?: { start: Buffer; end: Buffer; seqno: number }[];

  /**
   * The newest range deletion of this table covering `key`, as a GetResult builder (RocksDB's Get treats
   * entries older than it as deleted). The range-deletion block is read once and kept.
   */
  private coveringRangeDeletion(
    key: Buffer,
  ): (((s: LookupStats, filterRejected: boolean) => GetResult) & { seqno: number }) | undefined {
    if (!this.meta("rocksdb.range_del")) return undefined;
    this.tombstones ??= this.rangeDeletions();
    let best: { start: Buffer; end: Buffer; seqno: number } | undefined;
    for (const t of this.tombstones) {
      if (t.start.compare(key) <= 0 && key.compare(t.end) < 0 && (!best || t.seqno > best.seqno)) best = t;
    }
    if (!best) return undefined;
    const b = best;
    const build = (s: LookupStats, filterRejected: boolean): GetResult => ({
      found: true,
      filterRejected,
      type: ValueType.RangeDeletion,
      typeName: valueTypeName(ValueType.RangeDeletion),
      seqno: b.seqno,
      value: Buffer.from(b.end),
      stats: s,
    });
    return Object.assign(build, { seqno: b.seqno });
  }

  /** Data block handle whose key range may hold `userKey` (reads index partitions); undefined if none. */
  private seekIndex(key: Buffer): BlockHandle | undefined {
    const top = this.loadTopIndex();
    const cmp = SstTable.cmpUser(key, !this.indexKeyIsUserKey);
    if (this.indexType !== "two-level") {
      const c = this.indexCursor().reset(top);
      const ok = this.guard("index", this.indexHandle.offset, () => c.seek(cmp));
      return ok ? { offset: c.handleOffset, size: c.handleSize } : undefined;
    }
    const tc = this.partitionCursor().reset(top);
    if (!this.guard("top-level index", this.indexHandle.offset, () => tc.seek(cmp))) return undefined;
    const ph = { offset: tc.handleOffset, size: tc.handleSize };
    const pb = this.readBlockParsed(ph, "index partition");
    this.countRead("index", ph);
    const pc = this.indexCursor().reset(pb);
    const ok = this.guard("index partition", ph.offset, () => pc.seek(cmp));
    return ok ? { offset: pc.handleOffset, size: pc.handleSize } : undefined;
  }

  /**
   * Point lookup of the newest entry for `userKey` in this table, the way RocksDB's table reader does:
   * filter (full/partitioned) -> index (-> partition) -> [block-based filter] -> data block.
   * Counts what it reads in `stats` (also returned). Index and full filter blocks are kept after their
   * first read, like a table reader that pins them; partitions and data blocks are read every time.
   */
  get(userKey: Uint8Array, stats?: LookupStats): GetResult {
    this.requireBytewise();
    const s = stats ?? emptyLookupStats();
    const key = Buffer.from(userKey.buffer, userKey.byteOffset, userKey.byteLength);
    this.statsStack.push(s);
    try {
      // like TableCache::Get, the table's range tombstones apply whatever the filter says
      const tomb = this.coveringRangeDeletion(key);
      const f = this.filter;
      if (!f.blockBased && this.queryFilter(key, s, undefined) === false) {
        return tomb ? tomb(s, true) : { found: false, filterRejected: true, stats: s };
      }
      const h = this.seekIndex(key);
      if (!h) return tomb ? tomb(s, false) : { found: false, filterRejected: false, stats: s };
      if (f.blockBased && this.queryFilter(key, s, h.offset) === false) {
        return tomb ? tomb(s, true) : { found: false, filterRejected: true, stats: s };
      }
      const db = this.readDataBlock(h);
      const c = new DataCursor().reset(db.block);
      const found = this.guard("data", h.offset, () => c.seek(SstTable.cmpUser(key, true)));
      const hit = found && c.keyLength >= 8 && key.compare(c.key, 0, c.keyLength - 8) === 0;
      if (tomb && (!hit || c.seqno < tomb.seqno)) return tomb(s, false);
      if (!hit) return { found: false, filterRejected: false, stats: s };
      const type = c.type;
      return {
        found: true,
        filterRejected: false,
        type,
        typeName: valueTypeName(type),
        seqno: c.seqno,
        value: c.valueCopy(),
        stats: s,
      };
    } finally {
      this.statsStack.pop();
    }
  }
}

function describeBits(
  bits: FilterMetadata,
  keys: number,
  totalBytes: number,
): Omit<FilterInfo, "partitioned" | "blockBased" | "filterBytes" | "wholeKeyFiltering"> {
  const kind: FilterKind =
    bits.kind === "always-true" || bits.kind === "always-false"
      ? "none"
      : (bits.kind as Exclude<FilterBitsKind, "always-true" | "always-false">);
  const out: Omit<FilterInfo, "partitioned" | "blockBased" | "filterBytes" | "wholeKeyFiltering"> = { kind };
  if (kind === "none") out.degenerate = bits.kind as "always-true" | "always-false";
  if (keys > 0) out.bitsPerKey = (Math.max(0, totalBytes - 5) * 8) / keys;
  if (bits.numProbes !== undefined) out.numProbes = bits.numProbes;
  if (bits.ribbonBlocks !== undefined) out.ribbonBlocks = bits.ribbonBlocks;
  if (keys > 0 && out.bitsPerKey) out.estimatedFpRate = estimateFpRate(bits, out.bitsPerKey, keys);
  return out;
}

function setBlockBasedBitsPerKey(info: FilterInfo, f: BlockBasedFilter, keys: number): void {
  // bits over all per-range filters (each ends in its k byte)
  info.bitsPerKey = ((f.dataBytes - f.nonEmptyFilters) * 8) / keys;
  if (info.numProbes) info.estimatedFpRate = standardFpRate(info.bitsPerKey, info.numProbes);
}

// util/bloom_impl.h BloomMath
function standardFpRate(bitsPerKey: number, probes: number): number {
  return Math.pow(1 - Math.exp(-probes / bitsPerKey), probes);
}
function cacheLocalFpRate(bitsPerKey: number, probes: number, lineBits: number): number {
  if (bitsPerKey <= 0) return 1;
  const kpl = lineBits / bitsPerKey;
  const sd = Math.sqrt(kpl);
  return (standardFpRate(lineBits / (kpl + sd), probes) + standardFpRate(lineBits / (kpl - sd), probes)) / 2;
}
function fingerprintFpRate(keys: number, bits: number): number {
  const base = keys * Math.pow(0.5, bits);
  return base > 0.0001 ? 1 - Math.exp(-base) : base - base * base * 0.5;
}
function indep(a: number, b: number): number {
  return a + b - a * b;
}

function estimateFpRate(bits: FilterMetadata, bitsPerKey: number, keys: number): number | undefined {
  if (bits.kind === "fastbloom" && bits.numProbes) {
    return indep(cacheLocalFpRate(bitsPerKey, bits.numProbes, 512), fingerprintFpRate(keys, 64));
  }
  if (bits.kind === "bloom" && bits.numProbes) {
    const f = cacheLocalFpRate(bitsPerKey, bits.numProbes, 512) + 0.1 / (bitsPerKey * 0.75 + 22);
    return indep(f, fingerprintFpRate(keys, 32));
  }
  if (bits.kind === "ribbon" && bits.ribbonBlocks) {
    // InterleavedSolutionStorage::ExpectedFpRate with the filter's own geometry
    const numBlocks = bits.ribbonBlocks;
    const numSegments = Math.floor(bits.dataBytes / 16);
    let upper = Math.floor((numSegments + numBlocks - 1) / numBlocks);
    let upperStart = upper * numBlocks - numSegments;
    if (upper > 32) {
      upper = 32;
      upperStart = 0;
    }
    const numStarts = numBlocks * 128 - 127;
    const lower = (upperStart * 128) / numStarts;
    const fp = lower * Math.pow(0.5, upper - 1) + (1 - lower) * Math.pow(0.5, upper);
    return indep(fp, fingerprintFpRate(keys, 64));
  }
  return undefined;
}

/** A data block read on its own: iterate (copies) or use a cursor (no copies). */
export class DataBlock {
  readonly block: Block;
  readonly handle: BlockHandle;
  constructor(block: Block, handle: BlockHandle) {
    this.block = block;
    this.handle = handle;
  }
  /** Number of restart points and whether the data-block hash index bit is set. */
  get numRestarts(): number {
    return this.block.numRestarts;
  }
  get hasHashIndex(): boolean {
    return this.block.hasHashIndex;
  }
  /**
   * Seek inside the block (restart-point binary search, then linear): the first entry whose internal
   * key, compared by `cmp(key, keyLength)` (< 0 when the entry sorts before the target), is not before
   * the target; undefined if every entry sorts before it.
   */
  seek(cmp: (key: Buffer, keyLength: number) => number): (EntryView & { next(): boolean }) | undefined {
    const c = new DataCursor().reset(this.block);
    c.blockHandle = this.handle;
    return c.seek(cmp) ? c : undefined;
  }
  /** A cursor over the entries (reused key buffer, values as ranges of the block). */
  cursor(): EntryView & { next(): boolean } {
    const c = new DataCursor().reset(this.block);
    c.blockHandle = this.handle;
    return c;
  }
  *[Symbol.iterator](): Generator<{ userKey: Buffer; seqno: number; type: number; value: Buffer }> {
    const c = new DataCursor().reset(this.block);
    while (c.next()) yield { userKey: c.userKeyCopy(), seqno: c.seqno, type: c.type, value: c.valueCopy() };
  }
}
