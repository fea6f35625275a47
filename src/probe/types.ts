/**
 * Shapes shared by the probe library, its worker processes and the CLI. Plain data only: a point is
 * measured in a child process and comes back as JSON.
 */

/** One column family's filter policy as the engine loaded it. */
export interface EnginePolicy {
  /** Raw name as text (datadir/names.ts cfNameText: "06" for Besu's 0x06), as the model's `name`. */
  cf: string;
  /** The model's display name ("cf06 ACCOUNT_INFO_STATE"), when the caller passed the model's column families. */
  displayName?: string;
  filterPolicy: string;
}

/** Which lookup implementation a point measures. */
export type ProbePath = "reader" | "engine";

/** Where a lookup was answered: "memtable" (unflushed WAL writes), "L0".."L6", or "none" (not found anywhere). */
export type AnswerLevel = string;

/** One file of the column family's current version, as the probe worker needs it (from the datadir model). */
export interface ProbeFile {
  fileNumber: number;
  path: string;
  level: number;
  /** Smallest/largest user key, hex. */
  smallestKey: string;
  largestKey: string;
  smallestSeqno?: number;
  largestSeqno?: number;
}

/** The options in force for the column family (from the store's newest OPTIONS file), as the probe applies them. */
export interface ProbeCfOptions {
  /** Where they come from: the OPTIONS file path, or "leveldb" (no OPTIONS; geth's bloom(10) assumed). */
  source: string;
  /** filter_policy as RocksDB spells it ("bloomfilter:10:false", "ribbonfilter:10:0", "nullptr"). */
  filterPolicy: string;
  wholeKeyFiltering: boolean;
  optimizeFiltersForHits: boolean;
  prefixExtractor?: string;
  cacheIndexAndFilterBlocks?: boolean;
  blockSize?: number;
  formatVersion?: number;
  indexType?: string;
  compression?: string;
  enableBlobFiles?: boolean;
}

/** Everything a worker needs to measure one point, without re-reading the MANIFEST. */
export interface ProbeTarget {
  /** Store directory (the RocksDB/LevelDB instance). */
  instanceDir: string;
  engine: "rocksdb" | "leveldb" | "pebble";
  /** Column family name bytes, hex. */
  cfNameHex: string;
  cfDisplayName: string;
  cfId: number;
  /** WALs with a smaller number hold nothing for this CF. */
  cfLogNumber: number;
  files: ProbeFile[];
  /** Blob files by number: path. */
  blobFiles: Record<string, string>;
  /** Live WAL files (path, number), oldest first: replayed into the memtable as RocksDB's read-only open does. */
  wals: { path: string; logNumber: number }[];
  options: ProbeCfOptions;
  /** Every file of the store (SSTs, blobs, WALs, MANIFEST, OPTIONS): what a cold run drops from the page cache. */
  storeFiles: string[];
}

/** Counters of one lookup. */
export interface LookupTrace {
  found: boolean;
  level: AnswerLevel;
  /** Tables whose key range held the key (the ones RocksDB's FilePicker hands to the table reader). */
  files: number;
  filterChecks: number;
  filterRejections: number;
  /** Index blocks the lookup used (top-level and partition), whether resident or read. */
  indexBlocks: number;
  /** Filter partitions read (a full filter is loaded with the table and not counted per lookup). */
  filterBlocks: number;
  dataBlocks: number;
  blobReads: number;
  /** Bytes read for this lookup: data blocks, partitions, blob records (block bytes + 5-byte trailers). */
  bytes: number;
  /** Data blocks read, as "fileNumber:offset:bytes" (reader path only). */
  dataBlockIds?: string[];
}

/** What the engine's own counters said about one point. */
export interface EngineCounters {
  /** PerfContext totals over the point's lookups (block_read_count, block_read_byte, bloom_sst_*...). */
  perf: Record<string, number>;
  /** Statistics ticker deltas (rocksdb.block.cache.data.miss, rocksdb.bloom.filter.useful, ...). */
  tickers: Record<string, number>;
  /** PerfContextByLevel totals, by level. */
  perLevel: Record<string, Record<string, number>>;
  iostats: Record<string, number>;
  /** How data-block reads were derived from the counters (see engine_path.ts). */
  dataBlockSource: string;
  /** Option adjustments the addon reported at open, and our own notes. */
  notes: string[];
}

/** One measured point of a sweep. Per-lookup figures are means over `lookups`. */
export interface ProbePoint {
  count: number;
  path: ProbePath;
  cold: boolean;
  lookups: number;
  found: number;
  filesPerLookup: number | null;
  /** The most tables one lookup consulted (reader path; null on the engine path). */
  maxFilesPerLookup: number | null;
  filterChecksPerLookup: number;
  filterRejectionsPerLookup: number;
  indexBlocksPerLookup: number | null;
  filterBlocksPerLookup: number;
  dataBlocksPerLookup: number;
  blobReadsPerLookup: number;
  bytesPerLookup: number;
  /** Distinct data blocks (file, offset) read over the point: the working set. Reader path only. */
  distinctDataBlocks: number | null;
  distinctDataBlockBytes: number | null;
  /** /proc/self/io read_bytes delta around the lookups: bytes the block layer served this process. */
  blockLayerBytes: number | null;
  /** Sectors read on the store's device (/proc/diskstats) × 512 around the lookups; device-wide. */
  deviceReadBytes: number | null;
  /** How the page cache was dropped: "drop_caches", "fadvise", or null when not cold. */
  coldMethod: string | null;
  /**
   * Bytes read opening the tables, not charged to lookups: each table's last bytes in one read (footer,
   * metaindex, properties, and the index and filter where they lie within it, as RocksDB prefetches a
   * table's tail at open), and what lies beyond it of the index and filter.
   */
  openBytes: number | null;
  answeredAtLevel: Record<AnswerLevel, number>;
  elapsedMs: number;
  /** Process that measured it (a fresh child per point when cold). */
  pid: number;
  engine?: EngineCounters;
  /** Per-lookup traces (for --path both comparisons). */
  perLookup?: LookupTrace[];
}

export interface ProbeComparison {
  count: number;
  lookups: number;
  readerDataBlocks: number;
  engineDataBlocks: number;
  /** |reader − engine| / max(engine, 1). */
  relativeDifference: number;
  /** Lookups whose data-block count or found flag differ. */
  mismatchedLookups: number;
  firstMismatches: {
    index: number;
    key: string;
    reader: number;
    engine: number;
    readerFound: boolean;
    engineFound: boolean;
  }[];
}

/**
 * Read amplification: the layout's figure (src/analysis/layout.ts, as inspect and check state it) beside
 * what the lookups measured, and an L0 pile-up's severity judged on the measured figure.
 */
export interface ReadAmplification {
  layout: {
    /** The most tables one lookup can consult, from the key ranges (inspect's maxFilesPerLookup). */
    maxFilesPerLookup: number;
    l0Files: number;
    l0SlowdownTrigger: number;
    l0StopTrigger: number;
  };
  /** Over the reader path's points: the most tables one lookup consulted, and the mean of the largest point. */
  measured: { maxFilesPerLookup: number; filesPerLookup: number; lookups: number } | null;
  /**
   * When L0 holds at least the slowdown trigger's tables (inspect's l0-pileup flag): the severity by the
   * same rule as the flag's, on the measured figure (on the layout's without a reader-path point).
   */
  l0Pileup: { severity: "info" | "warn" | "error"; from: "measured" | "layout" } | null;
}

export interface ProbeReport {
  dir: string;
  instance: string;
  cf: string;
  cfDisplayName: string;
  keys: { source: string; generated: number; note?: string };
  options: ProbeCfOptions;
  /** Filter policy per column family of the store, as loaded by the engine (printed before an engine run). */
  enginePolicies?: EnginePolicy[];
  points: ProbePoint[];
  readAmplification: ReadAmplification;
  comparisons?: ProbeComparison[];
  notes: string[];
  /** Error findings of the store ("file @ offset N: message"): the picture is incomplete, exit 2. */
  incomplete?: string[];
}
