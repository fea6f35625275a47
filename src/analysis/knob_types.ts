/**
 * The types of the knob analysis (knobs.ts): what a column family is configured with, what its files
 * carry, where the two disagree, and how two column families compare knob by knob.
 */
/** Names of the knobs compared; stable (used as ids by `check`). */
export type KnobName =
  | "filter"
  | "filter-bits"
  | "filter-partitioned"
  | "compression"
  | "format-version"
  | "index-type"
  | "checksum"
  | "block-size"
  | "whole-key-filtering"
  | "partition-filters"
  | "optimize-filters-for-hits"
  | "restart-interval"
  | "index-restart-interval"
  | "data-block-index"
  | "prefix-extractor"
  | "blob";

/** The filter a CF is configured with, parsed from `filter_policy`. */
export interface ConfiguredFilter {
  /** As written in OPTIONS, e.g. "bloomfilter:10:false", "ribbonfilter:10:3", "nullptr". */
  policy: string;
  kind: "none" | "bloom" | "ribbon" | "other";
  bitsPerKey?: number;
  /** `bloomfilter:N:true`: the legacy block-based filter. */
  blockBased?: boolean;
  /** Ribbon: levels below this one get Bloom. */
  bloomBeforeLevel?: number;
}

/**
 * Table and column-family options as configured, normalised to the names the files use (compression
 * "LZ4", checksum "xxh3", index type "two-level", ...). Undefined fields were not in the OPTIONS file.
 */
export interface ConfiguredKnobs {
  /** The OPTIONS file these come from (file name). */
  optionsFile?: string;
  /** RocksDB version that wrote the OPTIONS file. */
  rocksdbVersion?: string;
  tableFactory?: string;
  filter: ConfiguredFilter;
  /** `compression`, normalised ("LZ4", "Snappy", "NoCompression", "ZSTD", ...). */
  compression?: string;
  /** `compression_per_level`, normalised; undefined when not set. */
  compressionPerLevel?: string[];
  /** `bottommost_compression`, normalised; undefined when kDisableCompressionOption (= not used). */
  bottommostCompression?: string;
  formatVersion?: number;
  blockSize?: number;
  /** "binary-search" | "hash-search" | "two-level" | "binary-search-with-first-key" | other raw value. */
  indexType?: string;
  /** As written. */
  partitionFilters?: boolean;
  /** What RocksDB does with it: partitioned filters need a two-level index. */
  partitionFiltersEffective: boolean;
  wholeKeyFiltering?: boolean;
  optimizeFiltersForHits?: boolean;
  /** "crc32c" | "xxhash" | "xxhash64" | "xxh3" | "none" | raw. */
  checksum?: string;
  blockRestartInterval?: number;
  indexBlockRestartInterval?: number;
  /** data_block_index_type, e.g. "kDataBlockBinarySearch", "kDataBlockBinaryAndHash". */
  dataBlockIndexType?: string;
  dataBlockHashTableUtilRatio?: number;
  prefixExtractor?: string;
  numLevels?: number;
  levelCompactionDynamicLevelBytes?: boolean;
  blob: {
    enableBlobFiles?: boolean;
    minBlobSize?: number;
    blobFileSize?: number;
    /** Normalised compression name. */
    blobCompression?: string;
    enableBlobGarbageCollection?: boolean;
    blobGarbageCollectionAgeCutoff?: number;
    blobFileStartingLevel?: number;
  };
}

/** Files and bytes carrying one value of a knob. `key` is the value as shown ("LZ4", "fastbloom ~10"). */
export interface Tally {
  key: string;
  files: number;
  /** Sum of the MANIFEST file sizes of those files. */
  bytes: number;
}

/** Block size estimated from the files' properties. */
export interface BlockSizeEstimate {
  /** Mean bytes per data block. */
  meanBytes: number;
  /**
   * "uncompressed": data size of uncompressed files (exact, includes 5-byte trailers);
   * "raw-upper-bound": raw key+value bytes of compressed files (an overestimate).
   */
  basis: "uncompressed" | "raw-upper-bound";
  dataBlocks: number;
  /** Files the estimate is drawn from. */
  files: number;
}

/** Knobs carried by the files of one level (or of the whole CF when `level` is -1). */
export interface CarriedLevel {
  /** Level number, or -1 for the whole column family. */
  level: number;
  files: number;
  bytes: number;
  /** Files whose details were read without error. */
  filesRead: number;
  /** Files without details (not read, missing, or the reader failed). */
  filesUnread: number;
  /** Filter by kind only: "none", "bloom", "fastbloom", "ribbon". */
  filterKind: Tally[];
  /** Filter by kind, bits/key rounded to an integer, and "partitioned": "fastbloom ~10 partitioned". */
  filter: Tally[];
  /**
   * Entry-weighted mean stored bits/key over files with a filter (undefined when none): the figure every
   * command calls "bits/key" (the knob table, the level rows, the HTML report).
   */
  filterBitsPerKey?: number;
  /**
   * Entry-weighted mean of the files' estimated filter false-positive rates (each from its filter's own
   * geometry, RocksDB's estimators); undefined when no filter's rate is known.
   */
  filterFpRate?: number;
  /**
   * The same over files with at least MIN_KEYS_FOR_BITS filter entries only: small filters are rounded up
   * to 64-byte cache lines (116 keys at 10 bits/key store 13.2), so only these say what the policy was.
   * The filter-bits check and options-mismatch judge it; text names it LARGE_FILTER_BITS_NAME (carried.ts).
   */
  filterBitsPerKeyLarge?: number;
  /** Files with a partitioned filter. */
  filterPartitioned: number;
  /** "rocksdb.filter.policy" property (the policy name the file was built under, not the bits). */
  filterPolicy: Tally[];
  compression: Tally[];
  formatVersion: Tally[];
  indexType: Tally[];
  checksum: Tally[];
  /** "rocksdb.block.based.table.whole.key.filtering": "true" / "false". */
  wholeKeyFiltering: Tally[];
  blockSize?: BlockSizeEstimate;
  entries: number;
  dataBytes: number;
  indexBytes: number;
  filterBytes: number;
  rawKeyBytes: number;
  rawValueBytes: number;
}

export interface CarriedKnobs {
  /** One entry per level present in the model (empty levels included, with zero counts). */
  levels: CarriedLevel[];
  /** The whole column family. */
  all: CarriedLevel;
  /** Deepest non-empty level (undefined when the CF has no files). */
  bottomLevel?: number;
}

export type KnobSeverity = "info" | "warn" | "error";

/** The knobs compared CF-wide by one rule (knob_rules.ts simpleKnobsRule), with their OPTIONS names. */
export type SimpleKnobName = "format-version" | "index-type" | "checksum" | "whole-key-filtering";

/**
 * What a finding found, by id: the facts its one-line text is written from (the report layer's
 * src/report/knob_messages.ts). A new rule adds its id here, and the text for it there.
 */
export type KnobFindingFacts =
  | {
      id: "partition-filters-ineffective";
      /** index_type as configured; undefined when OPTIONS does not set it. */
      indexType?: string;
    }
  | { id: "details-missing" }
  | {
      id: "filter-missing";
      /** Levels holding files without a filter. */
      levels: number[];
      /** The bottom level, left out of the scope under optimize_filters_for_hits. */
      excludedLevel?: number;
    }
  | {
      id: "filter-kind";
      /** Filter kinds the policy builds at the configured format version. */
      accepted: string[];
      /** Files carrying other kinds. */
      offending: Tally[];
    }
  | {
      id: "filter-bits";
      /** The configured policy in short form ("bloomfilter:10"). */
      policy: string;
      /** The one filter kind the level's files carry. */
      filterKind: string;
      /** Stored bits/key over the level's tables of ≥ MIN_KEYS_FOR_BITS filter keys (filterBitsPerKeyLarge). */
      bitsPerKey: number;
    }
  | { id: "filter-partitioned" }
  | {
      id: "filter-none";
      /** Levels holding files without a filter. */
      levels: number[];
      /** Files whose details were read. */
      filesRead: number;
    }
  | {
      id: "filter-unconfigured";
      /** Files whose details were read. */
      filesRead: number;
      /** Files carrying a filter, by filter. */
      offending: Tally[];
    }
  | { id: "optimize-filters-for-hits" }
  | {
      id: "compression";
      /** Files carrying another compression. */
      offending: Tally[];
    }
  | {
      id: SimpleKnobName;
      /** The option's name in OPTIONS ("format_version"). */
      option: string;
      /** Files carrying another value. */
      offending: Tally[];
    }
  | {
      id: "block-size";
      /** The estimate judged against block_size. */
      estimate: BlockSizeEstimate;
    }
  | { id: "blob-disabled-files-present" };

/** What every knob finding carries beside its facts. */
export interface KnobFindingBase {
  knob: KnobName;
  severity: KnobSeverity;
  /** Level concerned, when the finding is about one level. */
  level?: number;
  /** Configured value as shown. */
  configured: string;
  /** Carried value(s) as shown. */
  carried: string;
  /** Files and bytes concerned, out of the total in scope (the level, or the CF). */
  files: number;
  bytes: number;
  totalFiles: number;
  totalBytes: number;
}

/**
 * One place where OPTIONS and the files disagree (or a note on what a knob does to the files). `id` is
 * stable: `<knob>` or `<knob>-<what>`, e.g. "filter-missing", "compression", "partition-filters-ineffective".
 * Its one-line text ("OPTIONS: bloomfilter:10 · files: 273 of 277 have no filter") is the report layer's
 * (src/report/knob_messages.ts knobFindingMessage).
 */
export type KnobFinding = KnobFindingBase & KnobFindingFacts;

/** A finding's id. */
export type KnobFindingId = KnobFinding["id"];

/** Everything about one column family's knobs. */
export interface CfKnobs {
  /** Instance path relative to the scanned root. */
  instance: string;
  /** CF name as in the model (text, or hex for non-printable names). */
  cf: string;
  displayName: string;
  /** Undefined when the store has no OPTIONS entry for this CF (LevelDB, or a missing file). */
  configured?: ConfiguredKnobs;
  carried: CarriedKnobs;
  /** OPTIONS against files: what is not as configured. */
  disagreements: KnobFinding[];
  /** Expected effects and context (severity info), e.g. optimize_filters_for_hits leaving L6 unfiltered. */
  notes: KnobFinding[];
}

/** One row of a knob-by-knob comparison of two column families. */
export interface KnobComparisonRow {
  knob: KnobName | string;
  /** "configured": from OPTIONS; "carried": from the files (CF-wide, or `level`). */
  side: "configured" | "carried";
  level?: number;
  a: string;
  b: string;
  equal: boolean;
}

export interface KnobComparison {
  a: { instance: string; cf: string };
  b: { instance: string; cf: string };
  rows: KnobComparisonRow[];
  /** Rows with equal=false. */
  differences: KnobComparisonRow[];
}
