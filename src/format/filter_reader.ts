/**
 * Filter readers, one per filter layout, chosen once from the metaindex (RocksDB's
 * BlockBasedTable::CreateFilterBlockReader; table/block_based/full_filter_block.cc,
 * partitioned_filter_block.cc, block_based_filter_block.cc):
 *
 *   "fullfilter.<policy>"          one filter over the whole table (filter_bits.ts)
 *   "partitionedfilter.<policy>"   an index block of separator -> filter partition handles, each
 *                                  partition a full filter over its key range
 *   "filter.<policy>"              legacy block-based filter: one small Bloom per 2 KiB of data-block
 *                                  offsets (LevelDB tables, old RocksDB), queried after the index
 *
 * The kind inside (bloom / fastbloom / ribbon) is the filter's own marker byte; describing a filter
 * peeks at its 5 metadata bytes (not a block read, not checksummed) so that inspecting thousands of
 * tables does not read every filter. Any query reads the filter (or partition) as a block, checksum
 * verified; the full filter and the partition index are kept after their first read.
 */
import {
  BlockKind,
  BLOCK_BASED_FILTER_PREFIX,
  FULL_FILTER_PREFIX,
  PARTITIONED_FILTER_PREFIX,
} from "./block_kind.js";
import type { Block } from "./block.js";
import {
  decodeBlockBasedFilter,
  decodeFilterBits,
  describeFilterBits,
  setFilterGeometry,
  filterMetadata,
  setBlockBasedBitsPerKey,
  type BlockBasedFilter,
  type FilterBits,
  type FilterGeometry,
  type FilterMetadata,
} from "./filter_bits.js";
import type { BlockHandle } from "./handle.js";
import { compareUserKey, handleCursor, type IndexLayout } from "./index_reader.js";
import type { MetaBlockEntry } from "./metaindex.js";
import type { TableProperties } from "./properties.js";
import { countBlockRead, type LookupStats } from "./read_stats.js";
import type { TableBlocks } from "./table_blocks.js";

export interface FilterInfo extends FilterGeometry {
  partitioned: boolean;
  /** Legacy block-based filter ("filter." meta block, LevelDB format, one Bloom per 2 KiB of data). */
  blockBased: boolean;
  /** Metaindex key of the filter block, e.g. "fullfilter.rocksdb.BuiltinBloomFilter". */
  metaBlock?: string;
  /** Policy name from the metaindex key. */
  policy?: string;
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

/** What a filter reader needs of its table. */
export interface FilterContext {
  blocks: TableBlocks;
  properties: TableProperties;
  /** Layout of the partition index of a partitioned filter (the same as the table's index). */
  indexLayout: IndexLayout;
  /** LevelDB tables hash filter keys with LevelDB's (unsigned) flavour. */
  leveldbHash: boolean;
}

export interface FilterReader {
  /** Block-based filters are queried with the data block's offset, so after the index. */
  readonly needsDataBlockOffset: boolean;
  /** Kind and geometry; the first description's filter reads (if any) count in `stats`. */
  describe(stats?: LookupStats): FilterInfo;
  /**
   * describe(), with what only the whole filter block tells read too: a LevelDB block-based filter's
   * probes, which describe() leaves out (reading every table's filter block to learn them cost
   * `inspect` a third of its table reads on a store of 576 LevelDB tables).
   */
  describeFully(stats?: LookupStats): FilterInfo;
  /**
   * May the table hold user key `key`? undefined when the filter cannot answer (no filter, a prefix
   * filter for an extractor this reader does not know, a key outside the prefix domain). A block-based
   * filter asks `locate` for the offset of the data block that may hold the key (undefined: the key
   * is past the last block, so the table does not hold it).
   */
  mayContain(key: Buffer, stats?: LookupStats, locate?: () => number | undefined): boolean | undefined;
  /**
   * The filter's answer for whole user keys as a query that holds the filter bits and nothing of the
   * table (a full whole-key filter only; undefined otherwise): false means the table does not hold the
   * key. For lookups over thousands of tables that cannot all stay open (sample mode's newer-version
   * checks on an L0 pile-up), so a closed table's filter still rules it out.
   */
  detachedQuery?(): DetachedFilter | undefined;
  /** Filter partitions (none unless partitioned). */
  partitions(): Generator<BlockHandle, void, undefined>;
  /** A full scan found `entries` data entries: LevelDB tables learn their filter's bits/key from it. */
  noteScannedEntries(entries: number): void;
}

/** A table's whole-key filter kept apart from the table (FilterReader.detachedQuery). */
export interface DetachedFilter {
  /** Filter bytes held. */
  readonly bytes: number;
  mayContain(key: Uint8Array): boolean;
  /** mayContain for a key whose 64-bit XXH3 the caller has (FilterBits.mayMatchHash), when the kind has it. */
  mayContainHash?: (lo: number, hi: number) => boolean;
}

/** A filter's 5 metadata bytes and its trailer's compression byte, read here (one table at a time). */
const metadataScratch = Buffer.alloc(6);

/** Policy names by filter meta block name: the same few names recur in every table of a store. */
const policies = new Map<string, string>();

/** The policy in a filter meta block's name ("fullfilter.rocksdb.BuiltinBloomFilter" -> its policy). */
function policyOf(metaBlock: string): string {
  let p = policies.get(metaBlock);
  if (p === undefined) {
    p = metaBlock.slice(metaBlock.indexOf(".") + 1);
    if (policies.size < 256) policies.set(metaBlock, p);
  }
  return p;
}

/** The filter reader for a table's metaindex (the first filter meta block it lists). */
export function createFilterReader(metaindex: readonly MetaBlockEntry[], ctx: FilterContext): FilterReader {
  const prefixes = [FULL_FILTER_PREFIX, PARTITIONED_FILTER_PREFIX, BLOCK_BASED_FILTER_PREFIX];
  const entry = metaindex.find((e) => prefixes.some((p) => e.name.startsWith(p)));
  if (!entry) return new NoFilter(ctx);
  if (entry.name.startsWith(FULL_FILTER_PREFIX)) return new FullFilterReader(ctx, entry);
  if (entry.name.startsWith(PARTITIONED_FILTER_PREFIX)) return new PartitionedFilterReader(ctx, entry);
  return new BlockBasedFilterReader(ctx, entry);
}

/** Number of keys the filter holds: "rocksdb.num.filter_entries", else "rocksdb.num.entries". */
function filterEntries(p: TableProperties): number {
  const fe = p.numFilterEntries;
  if (fe !== undefined && fe > 0) return fe;
  return p.numEntries ?? 0;
}

abstract class FilterReaderBase implements FilterReader {
  abstract readonly needsDataBlockOffset: boolean;
  protected info?: FilterInfo;
  protected readonly wholeKeyFiltering: boolean;

  constructor(protected readonly ctx: FilterContext) {
    this.wholeKeyFiltering = ctx.properties.wholeKeyFiltering ?? true;
  }

  describe(stats?: LookupStats): FilterInfo {
    this.info ??= this.detect(stats);
    return this.info;
  }

  describeFully(stats?: LookupStats): FilterInfo {
    return this.describe(stats);
  }

  protected abstract detect(stats?: LookupStats): FilterInfo;

  abstract mayContain(
    key: Buffer,
    stats?: LookupStats,
    locate?: () => number | undefined,
  ): boolean | undefined;

  *partitions(): Generator<BlockHandle, void, undefined> {}

  noteScannedEntries(_entries: number): void {
    this.describe();
  }

  /** What the filter holds for `key`: the key itself, its prefix, or undefined (cannot tell). */
  protected filterKeyFor(key: Buffer, f: FilterInfo): Buffer | undefined {
    if (f.wholeKeyFiltering) return key;
    const m = /^rocksdb\.(Fixed|Capped)Prefix\.(\d+)$/.exec(f.prefixExtractor ?? "");
    if (!m) return undefined;
    const n = Number(m[2]);
    if (m[1] === "Fixed") return key.length >= n ? key.subarray(0, n) : undefined; // out of domain
    return key.subarray(0, Math.min(n, key.length));
  }

  /**
   * The fields every filter meta block shares: its name, policy, whole-key flag, prefix extractor; the
   * kind's fields are assigned after them (in place, in this order: the description's key order).
   */
  protected baseInfo(entry: MetaBlockEntry): FilterInfo {
    const pe = this.ctx.properties.prefixExtractorName;
    const info = {
      metaBlock: entry.name,
      policy: policyOf(entry.name),
      wholeKeyFiltering: this.wholeKeyFiltering,
    } as FilterInfo;
    if (pe !== undefined && pe !== "nullptr" && pe !== "") info.prefixExtractor = pe;
    return info;
  }

  /**
   * Kind and geometry of a filter block from its last 5 bytes and its trailer's compression byte (one
   * small read, not counted as a block read). RocksDB stores filters uncompressed; a compressed one is
   * read and decoded whole.
   */
  protected peekMetadata(h: BlockHandle): FilterMetadata {
    const file = this.ctx.blocks.file;
    if (h.size < 5 || h.offset + h.size + 1 > file.blockAreaEnd)
      return filterMetadata(new Uint8Array(0), h.size);
    const tail = metadataScratch;
    file.readInto(tail, 0, 6, h.offset + h.size - 5);
    if (tail[5] !== 0) return decodeFilterBits(this.ctx.blocks.read(h, BlockKind.Filter));
    return filterMetadata(tail, h.size);
  }

  /** Count a may-contain check (and its rejection) in `stats`. */
  protected checked(ok: boolean, stats: LookupStats | undefined): boolean {
    if (stats) {
      stats.filterChecked++;
      if (!ok) stats.filterRejected++;
    }
    return ok;
  }
}

class NoFilter extends FilterReaderBase {
  readonly needsDataBlockOffset = false;
  protected detect(): FilterInfo {
    return {
      kind: "none",
      partitioned: false,
      blockBased: false,
      filterBytes: 0,
      wholeKeyFiltering: this.wholeKeyFiltering,
    };
  }
  mayContain(): undefined {
    return undefined;
  }
}

class FullFilterReader extends FilterReaderBase {
  readonly needsDataBlockOffset = false;
  private bits?: FilterBits;

  constructor(
    ctx: FilterContext,
    private readonly entry: MetaBlockEntry,
  ) {
    super(ctx);
  }

  protected detect(): FilterInfo {
    // the 5 metadata bytes tell the kind: no need to read the (possibly large) filter bits yet
    const h = this.entry.handle;
    const bits = this.bits ?? this.peekMetadata(h);
    const info = setFilterGeometry(
      this.baseInfo(this.entry),
      bits,
      filterEntries(this.ctx.properties),
      h.size,
    );
    info.partitioned = false;
    info.blockBased = false;
    info.filterBytes = h.size;
    return info;
  }

  private load(stats?: LookupStats): FilterBits {
    if (!this.bits) {
      const h = this.entry.handle;
      this.bits = decodeFilterBits(this.ctx.blocks.read(h, BlockKind.Filter));
      countBlockRead(stats, "filter", h);
    }
    return this.bits;
  }

  mayContain(key: Buffer, stats?: LookupStats): boolean | undefined {
    const f = this.describe(stats);
    if (f.kind === "none") return undefined;
    const fkey = this.filterKeyFor(key, f);
    if (!fkey) return undefined;
    const bits = this.load(stats);
    return this.checked(bits.mayMatch(fkey), stats);
  }

  detachedQuery(): DetachedFilter | undefined {
    const f = this.describe();
    if (f.kind === "none" || !f.wholeKeyFiltering) return undefined;
    const bits = this.load();
    const d: DetachedFilter = { bytes: this.entry.handle.size, mayContain: (key) => bits.mayMatch(key) };
    if (bits.mayMatchHash) d.mayContainHash = bits.mayMatchHash;
    return d;
  }
}

class PartitionedFilterReader extends FilterReaderBase {
  readonly needsDataBlockOffset = false;
  private index?: Block;

  constructor(
    ctx: FilterContext,
    private readonly entry: MetaBlockEntry,
  ) {
    super(ctx);
  }

  private loadIndex(stats?: LookupStats): Block {
    if (!this.index) {
      const h = this.entry.handle;
      this.index = this.ctx.blocks.parsed(h, BlockKind.FilterPartitionIndex);
      countBlockRead(stats, "filter", h);
    }
    return this.index;
  }

  protected detect(stats?: LookupStats): FilterInfo {
    // kind from the first partition's metadata bytes
    const base = this.baseInfo(this.entry);
    const keys = filterEntries(this.ctx.properties);
    const h = this.entry.handle;
    let first: BlockHandle | undefined;
    let partitions = 0;
    const c = handleCursor(this.ctx.indexLayout).reset(this.loadIndex(stats));
    this.ctx.blocks.guard(BlockKind.FilterPartitionIndex, h.offset, () => {
      while (c.next()) {
        if (!first) first = { offset: c.handleOffset, size: c.handleSize };
        partitions++;
      }
    });
    const filterBytes = this.ctx.properties.filterSize ?? h.size;
    if (!first)
      return { ...base, kind: "none", partitioned: true, blockBased: false, filterBytes, partitions };
    const bits = this.peekMetadata(first);
    // filter bits proper: without the partition index and each partition's 5 metadata bytes
    const bitsBytes = Math.max(0, filterBytes - h.size - 5 * (partitions - 1));
    const d = describeFilterBits(bits, keys, bitsBytes);
    return { ...base, ...d, partitioned: true, blockBased: false, filterBytes, partitions };
  }

  mayContain(key: Buffer, stats?: LookupStats): boolean | undefined {
    const f = this.describe(stats);
    if (f.kind === "none") return undefined;
    const fkey = this.filterKeyFor(key, f);
    if (!fkey) return undefined;
    const idx = this.loadIndex(stats);
    const c = handleCursor(this.ctx.indexLayout).reset(idx);
    const cmp = compareUserKey(key, !this.ctx.indexLayout.keyIsUserKey);
    let found = this.ctx.blocks.guard(BlockKind.FilterPartitionIndex, this.entry.handle.offset, () =>
      c.seek(cmp),
    );
    if (!found) {
      // beyond the last key: RocksDB consults the last partition
      c.reset(idx);
      while (c.next()) found = true;
      if (!found) return undefined;
    }
    const ph = { offset: c.handleOffset, size: c.handleSize };
    const bits = decodeFilterBits(this.ctx.blocks.read(ph, BlockKind.FilterPartition));
    countBlockRead(stats, "filter", ph);
    return this.checked(bits.mayMatch(fkey), stats);
  }

  override *partitions(): Generator<BlockHandle, void, undefined> {
    const c = handleCursor(this.ctx.indexLayout).reset(this.loadIndex());
    const offset = this.entry.handle.offset;
    while (this.ctx.blocks.guard(BlockKind.FilterPartitionIndex, offset, () => c.next())) {
      yield { offset: c.handleOffset, size: c.handleSize };
    }
  }
}

class BlockBasedFilterReader extends FilterReaderBase {
  readonly needsDataBlockOffset = true;
  private filter?: BlockBasedFilter;
  private loaded = false;

  constructor(
    ctx: FilterContext,
    private readonly entry: MetaBlockEntry,
  ) {
    super(ctx);
  }

  private load(stats?: LookupStats): BlockBasedFilter | undefined {
    if (!this.loaded) {
      const h = this.entry.handle;
      const data = this.ctx.blocks.read(h, BlockKind.Filter);
      countBlockRead(stats, "filter", h);
      this.filter = decodeBlockBasedFilter(data, this.ctx.leveldbHash);
      this.loaded = true;
      // a description made before the block was read learns its probes now
      if (this.info && this.filter?.numProbes !== undefined) this.info.numProbes = this.filter.numProbes;
    }
    return this.filter;
  }

  override describeFully(stats?: LookupStats): FilterInfo {
    this.load(stats);
    return this.describe(stats);
  }

  protected detect(stats?: LookupStats): FilterInfo {
    // the block is read when its entries are known (bits per key), else when a lookup needs it (or
    // describeFully asks): LevelDB's tables have no entry count, and their kind and size are in the
    // metaindex already
    const keys = filterEntries(this.ctx.properties);
    const f = keys > 0 || this.loaded ? this.load(stats) : undefined;
    const info: FilterInfo = {
      ...this.baseInfo(this.entry),
      kind: "bloom",
      partitioned: false,
      blockBased: true,
      filterBytes: this.entry.handle.size,
    };
    if (f?.numProbes !== undefined) info.numProbes = f.numProbes;
    // LevelDB tables have no entry count: a full scan fills bitsPerKey in later
    if (keys > 0 && f) setBlockBasedBitsPerKey(info, f, keys);
    return info;
  }

  mayContain(key: Buffer, stats?: LookupStats, locate?: () => number | undefined): boolean | undefined {
    const f = this.describe(stats);
    const fkey = this.filterKeyFor(key, f);
    if (!fkey || !locate) return undefined;
    const dataBlockOffset = locate();
    if (dataBlockOffset === undefined) return false;
    const bf = this.load(stats);
    if (!bf) return undefined;
    return this.checked(bf.mayMatch(dataBlockOffset, fkey), stats);
  }

  override noteScannedEntries(entries: number): void {
    const f = this.describeFully();
    if (f.bitsPerKey === undefined && this.filter && entries > 0) {
      setBlockBasedBitsPerKey(f, this.filter, entries);
    }
  }
}
