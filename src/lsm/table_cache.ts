/**
 * Open tables kept between the key-range tasks of one thread. A full scan split into key ranges
 * visits the same tables once per range; re-opening each one costs the footer, metaindex and
 * properties reads and, worse, re-reading and re-parsing its index block. A thread runs its tasks one
 * after another, so a table is either in use by one run or idle here; idle tables are kept, least
 * recently released first out, up to `maxIdle` (each holds a file descriptor, its index block and a
 * read-ahead window).
 */
import { openTable, type OpenTableOptions, type SstTable } from "../format/table.js";
import type { DetachedFilter } from "../format/filter_reader.js";
import { KeptFilters } from "./kept_filters.js";
import type { KeptReads, KeptTables } from "./kept_tables.js";
import { OpenedAhead, type LeanTable } from "./lean_table.js";
import { TailEstimate } from "../util/tail_estimate.js";

/**
 * Where a run gets its tables from and gives them back. `readAhead`, when given, replaces the
 * source's read-ahead window for a table it opens (a table already open keeps its own).
 */
export interface TableSource {
  acquire(path: string, readAhead?: number): SstTable;
  release(table: SstTable): void;
  /**
   * Called on every table a run reads, acquired here or opened by the run itself (a lean run: see
   * TableRun), before its first block: e.g. to give a Pebble table its store's blob files.
   */
  prepare?(table: SstTable): void;
  /**
   * The filter kept from an earlier opening of the table at `path`, if any: where it rejects a user
   * key, the table surely does not hold it, and a point lookup skips the table without opening it.
   */
  keptFilter?(path: string): DetachedFilter | undefined;
  /**
   * The lean table opened ahead for `path` (lean_table.ts), now the caller's to close; undefined when
   * none was. Only a source without `prepare` offers one: a table opened ahead was not prepared.
   */
  takeOpened?(path: string): LeanTable | undefined;
}

/**
 * What an idle table is taken to hold besides its index and filter blocks (parsed metadata, objects),
 * for a cache bounded by bytes (TableCacheLimits.maxIdleBytes).
 */
const IDLE_TABLE_OVERHEAD = 8 * 1024;

/** Bounds and extras of a TableCache beyond its idle-table count. */
export interface TableCacheLimits {
  /**
   * Idle tables' index and filter blocks plus IDLE_TABLE_OVERHEAD each, at most (default: unbounded;
   * a table that has served lookups holds its filter, which on a large table outweighs its index).
   */
  maxIdleBytes?: number;
  /** Keep the filters of the tables opened, for keptFilter() (point lookups over many tables). */
  keepFilters?: boolean;
  /**
   * Filters kept by whoever read the tables before (check's model): keptFilter() answers from them
   * too, so a table they rule out is not opened again.
   */
  keptBefore?: KeptFilters;
  /**
   * Tables kept parsed by whoever read them before (check's model): acquire() takes a table from there
   * before opening it, and a table this cache lets go goes back there while it has room.
   */
  keptTables?: KeptTables;
}

/** Idle tables' index and filter blocks (and IDLE_TABLE_OVERHEAD each) a lookup cache keeps, at most. */
export const LOOKUP_IDLE_BYTES = 128 * 1024 * 1024;

/**
 * The table cache of point lookups over a whole column family (sample mode's newer-version and code
 * checks): idle tables are bounded by bytes rather than count, and filters are kept, so a lookup over
 * an L0 pile-up opens each table once, not once per lookup (`sizes --sample 100` on 4,354 L0 tables,
 * 64 idle tables: 9.9 s of CPU; all kept: 4.6 s and less memory, 142 -> 122 MiB). The bound holds
 * ~11,000 tables of such a pile-up (each weighs its index, filter and IDLE_TABLE_OVERHEAD): at 64 MiB
 * (~5,900) a pile-up of 10,206 tables closed and opened tables again all through its lookups, 14.3
 * against 11.6 s and 305 against 200 MiB of peak RSS (the churn's garbage outweighed the tables kept).
 * `kept`: the filters and tables an earlier reader kept, asked before a table is opened.
 */
export function lookupTableCache(kept: KeptReads = {}): TableCache {
  return new TableCache({ verifyChecksums: true }, Number.MAX_SAFE_INTEGER, {
    maxIdleBytes: LOOKUP_IDLE_BYTES,
    keepFilters: true,
    keptBefore: kept.filters,
    keptTables: kept.tables,
  });
}

/** No caching: open on acquire, close on release. */
export function uncachedTables(opts: OpenTableOptions = {}): TableSource {
  return {
    acquire: (path, readAhead) => openTable(path, readAhead === undefined ? opts : { ...opts, readAhead }),
    release: (t) => t.close(),
  };
}

export class TableCache implements TableSource {
  /** Idle tables by path; Map order is release order, so the first entry is the least recent. */
  private readonly idle = new Map<string, SstTable>();
  /** With maxIdleBytes: what each idle table counts (idleWeight() when it was released). */
  private readonly weights = new Map<SstTable, number>();
  private idleBytes = 0;
  private readonly maxIdleBytes: number;
  private readonly keepFilters: boolean;
  private readonly keptBefore: KeptFilters | undefined;
  private readonly keptTables: KeptTables | undefined;

  /** With `keepFilters`: the detached filter of each table opened. */
  private readonly filters = new KeptFilters();

  /** Lean tables opened ahead of this thread's runs over many runs (lean_table.ts). */
  readonly ahead = new OpenedAhead();

  /**
   * How much of a table's end acquireForMetadata() reads at once: as far as the metadata reads of the
   * tables it opened before reached (noteMetadataRead).
   */
  private readonly metadataTail = new TailEstimate();
  /** Tables acquireForMetadata() opened (not taken idle) whose metadata reads are not noted yet. */
  private readonly openedForMetadata = new Set<SstTable>();

  constructor(
    private readonly opts: OpenTableOptions = {},
    private readonly maxIdle = 64,
    limits: TableCacheLimits = {},
  ) {
    this.maxIdleBytes = limits.maxIdleBytes ?? Infinity;
    this.keepFilters = limits.keepFilters ?? false;
    this.keptBefore = limits.keptBefore;
    this.keptTables = limits.keptTables;
  }

  keptFilter(path: string): DetachedFilter | undefined {
    return this.filters.get(path) ?? this.keptBefore?.get(path);
  }

  takeOpened(path: string): LeanTable | undefined {
    return this.ahead.take(path);
  }

  /** Tables open and idle right now. */
  get size(): number {
    return this.idle.size;
  }

  /**
   * An idle table, else one kept parsed (TableCacheLimits.keptTables), else the table opened. `tail`,
   * for a table opened: read its last `prefetchTail` bytes at once (OpenTableOptions), the size the
   * MANIFEST gives it confirmed instead of an fstat.
   */
  acquire(
    path: string,
    readAhead?: number,
    tail?: { prefetchTail: number; expectedSize?: number },
  ): SstTable {
    const idle = this.idle.get(path);
    if (idle) {
      this.idle.delete(path);
      this.unweigh(idle);
      return idle;
    }
    const opts = readAhead === undefined ? this.opts : { ...this.opts, readAhead };
    let t = this.keptTables?.take(path);
    // a kept table reads with this cache's settings, as one opened here would
    if (t) t.blocks.file.readWith(opts);
    else t = openTable(path, tail ? { ...opts, ...tail } : opts);
    // a filter kept before is not detached (copied) again
    if (this.keepFilters && this.keptBefore?.get(path) === undefined) this.filters.keep(t);
    return t;
  }

  /**
   * acquire() for a caller that reads the table's metadata first (footer, metaindex, properties,
   * index, filter: all at its end) and then some data blocks. A table not idle is opened with one read
   * of its end, as wide as the metadata of the tables opened here before needed; `expectedSize` (its
   * MANIFEST size) is confirmed by that read instead of an fstat. Opened without it, a table took five
   * or six reads and an fstat (`check` on an L0 pile-up opens thousands).
   */
  acquireForMetadata(path: string, expectedSize?: number): SstTable {
    if (this.idle.has(path) || this.keptTables?.has(path)) return this.acquire(path);
    const t = this.acquire(path, undefined, { prefetchTail: this.metadataTail.bytes, expectedSize });
    this.openedForMetadata.add(t);
    return t;
  }

  /**
   * The caller has read what it needs of `t`'s metadata, before any data block: how far from the end
   * those reads reached tells the next acquireForMetadata() how much to read. Learned only from a
   * table acquireForMetadata() opened: the reads of a table taken idle may reach data blocks read for
   * an earlier caller, which would widen every later tail read.
   */
  noteMetadataRead(t: SstTable): void {
    if (this.openedForMetadata.delete(t)) this.metadataTail.note(t.tailReach);
  }

  release(table: SstTable): void {
    this.openedForMetadata.delete(table);
    if (this.idle.has(table.path)) {
      // the same file was open twice (two runs naming it): keep one
      table.close();
      return;
    }
    this.idle.set(table.path, table);
    if (this.maxIdleBytes !== Infinity) {
      const w = idleWeight(table);
      this.weights.set(table, w);
      this.idleBytes += w;
    }
    while (this.idle.size > this.maxIdle || (this.idleBytes > this.maxIdleBytes && this.idle.size > 1)) {
      const [path, oldest] = this.idle.entries().next().value as [string, SstTable];
      this.idle.delete(path);
      this.unweigh(oldest);
      this.letGo(oldest);
    }
  }

  /** A table this cache no longer holds: back to the kept tables while they have room, else closed. */
  private letGo(t: SstTable): void {
    if (!this.keptTables?.keep(t)) t.close();
  }

  private unweigh(t: SstTable): void {
    this.idleBytes -= this.weights.get(t) ?? 0;
    this.weights.delete(t);
  }

  close(): void {
    for (const t of this.idle.values()) this.letGo(t);
    this.idle.clear();
    this.weights.clear();
    this.idleBytes = 0;
    this.openedForMetadata.clear();
    this.filters.clear();
    this.ahead.close();
  }
}

/** What an idle table counts against TableCacheLimits.maxIdleBytes. */
function idleWeight(t: SstTable): number {
  let filter = 0;
  try {
    filter = t.filter.filterBytes; // described by the lookups that used the table: no read
  } catch {
    // a damaged filter: the lookups report it; the table holds no filter bytes
  }
  return t.indexHandle.size + filter + IDLE_TABLE_OVERHEAD;
}
