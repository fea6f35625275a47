/**
 * Typed access to a real RocksDB (the system librocksdb 7.8.3) through the optional native addon.
 * Contract: /work/notes/engine-api.md. Every function throws MissingDependencyError (one line: what is
 * missing and the install command) when the addon is absent, and EngineError / StoreLockedError /
 * CompactionCanceledError (src/engine/errors.ts) when RocksDB returns a non-OK Status.
 *
 * Never use @nxtedition/rocksdb on a user's store (it ignores read-only and rewrites files): this is the
 * engine for that. Read-only opens go through DB::OpenForReadOnly with a null info logger, so they take
 * no LOCK and write nothing into the directory.
 */
import { addon, type NativeDb } from "./native.js";
import { translateEngineError } from "./errors.js";
import { LsmscopeError } from "../util/errors.js";

export { engineAvailable, engineUnavailableReason, INSTALL_COMMAND } from "./native.js";
export { EngineError, StoreLockedError, CompactionCanceledError } from "./errors.js";

/** A column family name: a string (UTF-8) or raw bytes (Besu names its CFs with one raw byte, e.g. 0x06). */
export type CfName = string | Buffer;

/** Throws MissingDependencyError with the one-line reason when the addon is unavailable. */
export function requireEngine(): void {
  addon();
}

/**
 * The highest table format_version the engine's RocksDB (Debian's 7.8.3) reads and writes back: `probe`'s
 * engine path and `compact` refuse tables of a later one.
 */
export const ENGINE_MAX_FORMAT_VERSION = 5;

/** The RocksDB version the addon is linked against, e.g. "7.8.3". */
export function rocksdbVersion(): string {
  return addon().rocksdbVersion;
}

function cfBytes(cf: CfName): Buffer {
  return typeof cf === "string" ? Buffer.from(cf, "utf8") : cf;
}

function call<T>(dir: string | undefined, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    throw translateEngineError(err, dir);
  }
}

/** DB::ListColumnFamilies: the names in the store's MANIFEST, as bytes. */
export function listColumnFamilies(dir: string): Buffer[] {
  const a = addon();
  return call(dir, () => a.listColumnFamilies(dir));
}

export interface LoadedOptions {
  /** RocksDB option string of the DBOptions. */
  dbOptions: string;
  /**
   * Per column family: its ColumnFamilyOptions as an option string (without table options) and the
   * table factory's own option string (`table_factory->GetOptionString()`), e.g. "...;filter_policy=...".
   */
  columnFamilies: { name: Buffer; options: string; tableOptions: string; tableFactory?: string }[];
}

/** rocksdb::LoadLatestOptions with ignore_unknown_options=true (OPTIONS files of newer RocksDB load). */
export function loadLatestOptions(dir: string): LoadedOptions {
  const a = addon();
  return call(dir, () => a.loadLatestOptions(dir));
}

export interface OpenOptions {
  /** DB::OpenForReadOnly: no LOCK, no writes, no LOG file. */
  readOnly?: boolean;
  /** create_if_missing and create_missing_column_families. */
  createIfMissing?: boolean;
  /** DBOptions option string, e.g. "avoid_flush_during_shutdown=true"; applied on top of loaded options. */
  dbOptions?: string;
  /**
   * ColumnFamilyOptions strings, e.g. "compression=kLZ4Compression;block_based_table_factory={...}".
   * With useLatestOptionsFile they apply on top of that CF's loaded options. "default" is added if absent.
   */
  columnFamilies?: { name: CfName; options: string }[];
  /** Open with exactly the store's newest OPTIONS file (all CFs, their filters, compression...). */
  useLatestOptionsFile?: boolean;
  /** Enable rocksdb::Statistics so getManyWithStats reports ticker deltas. */
  statistics?: boolean;
}

export interface WriteOp {
  type: "put" | "delete" | "singleDelete";
  cf: CfName;
  key: Buffer;
  value?: Buffer;
}

export interface GetStats {
  /** PerfContext counters by their RocksDB names (block_read_count, bloom_sst_miss_count, ...). */
  perf: Record<string, number>;
  /** PerfContextByLevel by level number: bloom_filter_useful, bloom_filter_full_positive, ... */
  perLevel: Record<string, Record<string, number>>;
  /** IOStatsContext counters: bytes_read, read_nanos, ... */
  iostats: Record<string, number>;
  /** Statistics ticker deltas by RocksDB name ("rocksdb.bloom.filter.useful", ...); {} without statistics. */
  tickers: Record<string, number>;
}

export type Bottommost = "skip" | "ifHaveFilter" | "force" | "forceOptimized";

export interface CompactRangeOptions {
  bottommost: Bottommost;
  /** exclusive_manual_compaction: no automatic compaction runs alongside. */
  exclusive?: boolean;
  /** change_level / target_level: move the result to targetLevel (-1: the lowest level that fits). */
  changeLevel?: boolean;
  targetLevel?: number;
}

/** An open RocksDB. Not thread-safe across JS workers (open one per worker); close() when done. */
export class EngineDb {
  readonly dir: string;
  readonly readOnly: boolean;
  readonly #db: NativeDb;

  /** @internal use openDb() */
  constructor(dir: string, readOnly: boolean, db: NativeDb) {
    this.dir = dir;
    this.readOnly = readOnly;
    this.#db = db;
  }

  #call<T>(fn: (db: NativeDb) => T): T {
    return call(this.dir, () => fn(this.#db));
  }

  /** The column families this handle opened (bytes). */
  get columnFamilyNames(): Buffer[] {
    return this.#call((db) => db.columnFamilyNames());
  }

  /** Option adjustments made at open (e.g. partition_filters without a two-level index switched off). */
  get notes(): string[] {
    return this.#call((db) => db.notes());
  }

  put(cf: CfName, key: Buffer, value: Buffer): void {
    this.#call((db) => db.put(cfBytes(cf), key, value));
  }

  delete(cf: CfName, key: Buffer): void {
    this.#call((db) => db.delete(cfBytes(cf), key));
  }

  /** One atomic WriteBatch. disableWal: the writes live only in the memtable until a flush. */
  write(ops: WriteOp[], opts: { disableWal?: boolean; sync?: boolean } = {}): void {
    const native = ops.map((o) => ({ type: o.type, cf: cfBytes(o.cf), key: o.key, value: o.value }));
    this.#call((db) => db.write(native, opts));
  }

  /** Point get; fill_cache=false unless asked. */
  get(cf: CfName, key: Buffer, opts: { fillCache?: boolean } = {}): Buffer | undefined {
    return this.#call((db) => db.get(cfBytes(cf), key, opts.fillCache ?? false));
  }

  /**
   * A batch of point gets (fill_cache=false by default) measured with PerfContext (per-level on),
   * IOStatsContext and Statistics tickers. Perf level kEnableTimeAndCPUTimeExceptForMutex, or
   * kEnableCount with `countOnly` (no timers, so the *_time/*_nanos counters stay 0).
   */
  getManyWithStats(
    cf: CfName,
    keys: Buffer[],
    opts: { fillCache?: boolean; countOnly?: boolean } = {},
  ): { found: boolean[]; valueBytes: number; stats: GetStats } {
    return this.#call(
      (db) =>
        db.getManyWithStats(cfBytes(cf), keys, opts.fillCache ?? false, opts.countOnly ?? false) as {
          found: boolean[];
          valueBytes: number;
          stats: GetStats;
        },
    );
  }

  /** Flush one CF's memtable (or all CFs') and wait for it. */
  flush(cf?: CfName): void {
    this.#call((db) => (cf === undefined ? db.flush() : db.flush(cfBytes(cf))));
  }

  /** CompactRange over the whole key range of one CF, on this thread. */
  compactRange(cf: CfName, opts: CompactRangeOptions): void {
    this.#call((db) => db.compactRange(cfBytes(cf), opts));
  }

  /** CompactRange on a libuv worker thread, so the caller can draw progress; cancel with cancelManualCompaction(). */
  async compactRangeAsync(cf: CfName, opts: CompactRangeOptions): Promise<void> {
    const p = this.#call((db) => db.compactRangeAsync(cfBytes(cf), opts));
    try {
      await p;
    } catch (err) {
      throw translateEngineError(err, this.dir);
    }
  }

  /** Stop running manual compactions (for Ctrl-C); they reject with CompactionCanceledError. */
  cancelManualCompaction(): void {
    this.#call((db) => db.cancelManualCompaction());
  }

  /** rocksdb::CancelAllBackgroundWork (also cancels manual compactions). */
  cancelAllBackgroundWork(wait = false): void {
    this.#call((db) => db.cancelAllBackgroundWork(wait));
  }

  /** DB::GetProperty for one CF, e.g. "rocksdb.num-files-at-level0"; undefined if unknown. */
  getProperty(cf: CfName, name: string): string | undefined {
    return this.#call((db) => db.getProperty(cfBytes(cf), name));
  }

  latestSequenceNumber(): number {
    return this.#call((db) => db.latestSequenceNumber());
  }

  /** Create a column family with an option string (same syntax as OpenOptions.columnFamilies). */
  createColumnFamily(name: CfName, options: string): void {
    this.#call((db) => db.createColumnFamily(cfBytes(name), options));
  }

  /** Close (waits for async compactions, cancelling them first). Idempotent. */
  close(): void {
    this.#call((db) => db.close());
  }
}

/** Open a store. See OpenOptions; errors name the directory (a held LOCK gives StoreLockedError). */
export function openDb(dir: string, opts: OpenOptions = {}): EngineDb {
  const a = addon();
  const native = {
    ...opts,
    columnFamilies: opts.columnFamilies?.map((c) => ({ name: cfBytes(c.name), options: c.options })),
  };
  const db = call(dir, () => new a.Db(dir, native));
  return new EngineDb(dir, opts.readOnly ?? false, db);
}

/** posix_fadvise(POSIX_FADV_DONTNEED) on one file: drop its pages from the OS page cache. */
export function dropFileCache(path: string): void {
  const a = addon();
  try {
    a.dropFileCache(path);
  } catch (err) {
    throw new LsmscopeError(`cannot drop page cache: ${(err as Error).message}`, { file: path, cause: err });
  }
}
