/**
 * Public types of `computeSizes()`: what a store holds, record by record, per column family, plus the
 * Ethereum views (account population, code sizes, block co-tenancy of maximum-size contracts).
 * Plain data only (JSON-serialisable), sizes in bytes.
 */
import type { ColumnFamilyModel, DatadirModel, InstanceModel } from "../datadir/model.js";
import type { KeptReads } from "../lsm/kept_tables.js";
import type { StorageView } from "./contracts/view.js";
import type { SampledStorageView } from "./contracts/sample.js";

/** A confidence interval [low, high] at `SizesReport.confidence`; an unbounded end is Infinity (null in JSON). */
export type { Interval } from "../util/interval.js";
import type { Interval } from "../util/interval.js";

export interface HistogramBucket {
  /** Upper bound (inclusive) of the log2 bucket: sizes in (le/2, le]; the first bucket is le = 0. */
  le: number;
  count: number;
}

/** The figures of one distribution (of sizes, or of per-contract counts): shared by its summaries. */
export interface DistFigures {
  min: number;
  max: number;
  mean: number;
  /** Nearest-rank percentiles. */
  p50: number;
  p90: number;
  p99: number;
  /** log2 buckets: values in (le/2, le]. */
  histogram: HistogramBucket[];
  /** Values ≥ 65,536 are kept in 1/256-octave bins: percentiles above that are bin bounds (< 0.4% off). */
  approximate?: boolean;
}

export interface SizeSummary extends DistFigures {
  count: number;
  totalBytes: number;
  /** Sample mode: block-bootstrap intervals of the figures (percentile method). */
  intervals?: { mean: Interval; p50: Interval; p90: Interval; p99: Interval };
}

/** A share of a population with its interval (sample mode) — counts are sample counts. */
export interface Share {
  /** Records in the sample (full mode: in the store) with the property. */
  count: number;
  /** Of how many. */
  of: number;
  share: number;
  /** Sample mode: cluster-adjusted Wilson interval (see sample.ts). */
  interval?: Interval;
}

export interface ColumnFamilySizes {
  /** Instance path relative to the scanned root ("." for the root). */
  instance: string;
  /** Column family name (text when printable, else hex). */
  name: string;
  nameHex: string;
  /** Client-aware name, e.g. "cf06 ACCOUNT_INFO_STATE". */
  displayName: string;
  /**
   * Full mode: live keys (newest visible version is a value, blob index, merge or entity).
   * Sample mode: estimated live keys at their newest version (sampled table records that are their
   * key's newest version, extrapolated, plus the WAL's live keys).
   */
  liveKeys: number;
  liveKeysInterval?: Interval;
  /**
   * Full mode: entries read that are not a live key's newest version: shadowed versions + tombstones
   * (+ entries covered by range deletions). Sample mode: null (needs the whole key space).
   */
  obsoleteEntries: number | null;
  /** Full mode breakdown of obsoleteEntries. */
  shadowedVersions?: number;
  tombstones?: number;
  rangeDeleted?: number;
  /** Every entry read (data blocks + WAL), all versions. */
  entriesRead: number;
  /** Unflushed WAL writes merged in as the newest layer (full mode). */
  walEntries: number;
  /** Sample mode: share of sampled entries that are tombstones. */
  tombstoneShare?: Share;
  /** Entries by value type name ("value", "deletion", "blob-index", ...) among those read. */
  valueTypes: Record<string, number>;
  keySize: SizeSummary;
  /**
   * Value bytes: the length a Get returns. A blob-indexed value is sized from its blob record (the
   * uncompressed length), never from its stored size.
   */
  valueSize: SizeSummary;
  /**
   * Values stored in blob files: `storedBytes` what the blob files hold for them (after blob
   * compression, from the indexes), `valueBytes` what a Get returns for them (from the blob records),
   * `unread` values whose blob record could not be read, or whose blob file RocksDB would not open
   * (blobFileRefusals: a bad header or footer, another column family's), left out of valueSize and
   * valueBytes.
   */
  blobIndexed: {
    count: number;
    storedBytes: number;
    valueBytes: number;
    unread: number;
    compressions: Record<string, number>;
    files: number;
  };
  /** Data blocks: stored bytes (block + 5-byte trailer, as rocksdb.data.size) and uncompressed bytes. */
  physicalBytes: number;
  logicalBytes: number;
  /** physicalBytes / logicalBytes. */
  compressionRatio: number;
  dataBlocks: number;
  averageBlockBytes: number;
  averageBlockLogicalBytes: number;
  /** Per-block physical/logical ratio: distribution over blocks (full mode: every block; sample: sampled). */
  blockRatio: { p50: number; min: number; max: number; histogram: { le: number; count: number }[] };
  /** Sample mode: blocks drawn and blocks in the column family. */
  sampledBlocks?: number;
  totalBlocks?: number;
  /** Sample mode: intervals for the totals extrapolated from the sample. */
  physicalBytesInterval?: Interval;
  logicalBytesInterval?: Interval;
  sstFiles: number;
  /** Full mode: the `--timeout` deadline stopped the scan of this column family part-way (figures partial). */
  partial?: boolean;
  /**
   * Full mode on a geth LevelDB chaindata (one keyspace): live records by geth key category
   * (eth/geth_schema.ts gethKeyCategory: `geth db inspect`'s categories, "Account snapshot", "Storage
   * snapshot", "Contract codes", "Hash trie nodes", "Headers", "Block number->hash", ...).
   */
  keyCategories?: Record<string, { liveKeys: number; keySize: SizeSummary; valueSize: SizeSummary }>;
}

export interface CoTenancyBlock {
  file: string;
  blockOffset: number;
  blockBytes: number;
  /** Records in the block (all versions). */
  records: number;
  /** Maximum-size bytecodes in the block (code records, not the accounts that use them). */
  maxSizeContracts: number;
  /** Records and key+value bytes in the block other than the maximum-size contracts. */
  otherRecords: number;
  otherBytes: number;
}

/** Where a view's records live: instance path, column family display name, key prefix (geth). */
export interface ViewPlace {
  instance: string;
  cf: string;
  prefixHex?: string;
}

/** Records or bytes sharing a block with maximum-size contracts, over the blocks holding one. */
export interface CoTenancyStat {
  mean: number;
  meanInterval?: Interval;
  min: number;
  max: number;
  total: number;
}

export interface CodeView extends ViewPlace {
  /** "instance/displayName" (+ " prefix 0x63" for geth's code keys); `instance`/`cf` give the parts. */
  location: string;
  /**
   * Live code keys (code records at their newest version, WAL included). Sample mode: estimated
   * (interval beside).
   */
  liveKeys: number;
  liveKeysInterval?: Interval;
  /** EIP-7702 delegation designators (23 bytes, 0xef0100‖address). */
  delegations: Share;
  /** Distinct contract bytecodes (code entries that are not delegations); sample mode: estimate. */
  distinctContractBytecodes: number;
  distinctContractBytecodesInterval?: Interval;
  /** Contract code of exactly 24,576 bytes (EIP-170 maximum), and above it (pre-EIP-170). */
  atMax: Share;
  overMax: number;
  /** Contract code sizes (delegations excluded), one per stored bytecode. */
  codeSize: SizeSummary;
  /** Counts per class of eth/code.ts CODE_SIZE_CLASSES (sample mode: of the records measured). */
  classes: Record<string, number>;
  /** Sample mode: each class's share of the code records, estimated with its interval. */
  classShares?: Record<string, Share>;
  /** Code keyed by code hash (normal) or by account hash (legacy Besu): keys are then re-hashed. */
  keyedBy: "code-hash" | "account-hash";
  coTenancy: {
    /** Data blocks holding at least one maximum-size contract (sample mode: among the sampled blocks). */
    blocks: number;
    /** Sample mode: share of the code column family's blocks holding one, and the estimated count. */
    blockShare?: Share;
    estimatedBlocks?: number;
    estimatedBlocksInterval?: Interval;
    /** Maximum-size bytecodes (code records, not the accounts that use them) in those blocks. */
    maxSizeContracts: number;
    /** Sample mode: `meanInterval`, a Student-t interval of the mean over the co-tenant blocks found. */
    otherRecords: CoTenancyStat;
    otherBytes: CoTenancyStat;
    /** Up to 50 blocks, largest co-tenancy first. */
    perBlock: CoTenancyBlock[];
  };
}

export interface AccountView extends ViewPlace {
  /** "instance/displayName" (+ " prefix 0x61" for geth's account keys); `instance`/`cf` give the parts. */
  location: string;
  /** Full mode: account records. Sample mode: estimated account records (interval beside). */
  total: number;
  totalInterval?: Interval;
  eoa: Share;
  delegatedEoa: Share;
  contract: Share;
  /** Records that did not decode as an account (wrong key length or RLP). */
  undecodable: number;
  /** Accounts with a code hash that no code entry has (counted as contracts). */
  codeNotFound: number;
  /** Distinct code hashes of contract accounts (exact up to 4M, else a HyperLogLog estimate). */
  distinctCodeHashes: number;
  distinctCodeHashesExact: boolean;
  /**
   * Contract accounts per distinct code hash. Sample mode cannot count the distinct code hashes of all
   * contract accounts and gives contractsPerStoredBytecode here (distinctCodeHashes is then the count
   * seen in the sample): the same figure when every stored bytecode is some contract account's, below
   * it when the code column family keeps bytecodes no account names any more.
   */
  reuseFactor: number;
  /** Sample mode: the interval of contractsPerStoredBytecode (reuseFactor's estimate). */
  reuseFactorInterval?: Interval;
  /**
   * Contract accounts per contract bytecode the code column family stores (distinctContractBytecodes;
   * delegations excluded). Full mode: counted (0 without a code view); sample mode: (accounts × contract
   * share) / estimated contract bytecodes, its interval from the bounds of both.
   */
  contractsPerStoredBytecode: number;
  contractsPerStoredBytecodeInterval?: Interval;
  /** Code size of every contract account (reuse counted), when the code map fitted. */
  perContractCodeSize?: SizeSummary;
}

export interface EthSizes {
  client: string;
  accounts?: AccountView;
  code?: CodeView;
  /**
   * Storage per contract (Besu, Nethermind's flat DB, geth's snapshot): full mode contracts/view.ts;
   * sample mode (`sampled: true`, Besu and geth) contracts/sample.ts.
   */
  storage?: StorageView | SampledStorageView;
  notes: string[];
}

export interface SizesReport {
  root: string;
  client: string;
  mode: "full" | "sample";
  /** Sample mode: blocks requested per column family, and the seed. */
  sampleBlocks?: number;
  seed?: number;
  confidence: number;
  /** Threads that scanned (this one plus workers that got a task). */
  workers: number;
  columnFamilies: ColumnFamilySizes[];
  eth?: EthSizes;
  /** What the mode measures, and anything that could not be measured. */
  notes: string[];
  elapsedMs: number;
  /**
   * Error findings of the datadir model ("file @ offset N: message"): what the figures leave out. Not
   * empty: the picture is incomplete and the CLI exits 2.
   */
  incomplete?: string[];
  /** Full mode: tables the current MANIFEST no longer lists and WALs, deleted during the scan (skipped). */
  vanishedFiles?: string[];
  /** Entries read per second over the data scan (full mode). */
  entriesPerSecond?: number;
}

/** Which column family (and key prefix) holds accounts / code, when not recognised from the client. */
export interface EthViewLocation {
  /** Instance path relative to the root ("." for the root). */
  instance: string;
  /** Column family name (text) or "0x"-hex of its raw name. */
  cf: string;
  /** Only keys with this prefix (geth: "a" / "c"), given as hex. */
  prefixHex?: string;
  /** Only keys of this length (prefix included). */
  keyLength?: number;
}

export interface SizesOptions {
  /** Column families to report (name, display name, hex, or "instance/name"); default all. */
  cf?: string | string[];
  /** "full" (default): every block, newest version per key; "sample": N blocks per column family. */
  mode?: "full" | "sample";
  /** Sample mode: data blocks drawn per column family (default 1000). */
  sampleBlocks?: number;
  /**
   * Sample mode: a column family whose Ethereum roles have key prefixes (geth's one keyspace) draws its
   * blocks only from the tables whose key ranges meet them (planWithin), and its figures describe those
   * tables (check's code-population; default false).
   */
  drawWithinRoles?: boolean;
  /** Sample mode: data blocks drawn in one column family, where not `sampleBlocks` (check's budget). */
  sampleBlocksFor?: (instance: InstanceModel, cf: ColumnFamilyModel) => number | undefined;
  /** Sample mode: PRNG seed (default 1): same seed, same blocks. */
  seed?: number;
  /** Full mode: worker threads (default min(2, cores) for stores of ≥ 256 MiB of SSTs, else 1); 1 runs in this thread. */
  workers?: number;
  /** Full mode: this thread scans too while workers start (default true); false leaves scanning to workers. */
  mainThreadScans?: boolean;
  /** Full mode: column families at least this big (stored data bytes) are split by key range (default 4 MiB). */
  splitMinBytes?: number;
  /**
   * Full mode: column families of at least this many sorted runs (each L0 file is one) tell the newest
   * versions by the keys of each sub-range instead of merging (default 1024; lsm/newest_by_hash.ts).
   */
  newestByHashMinRuns?: number;
  /**
   * Full mode: mean data bytes per sorted run from which a merged column family (fewer runs than
   * newestByHashMinRuns) is cut into key ranges between threads (default 1 MiB; sizes/plan.ts
   * KEY_RANGE_CUT_MIN_RUN_BYTES).
   */
  keyRangeCutMinRunBytes?: number;
  /** Full mode with several threads: key ranges per thread a split column family is cut into (default 1). */
  rangesPerThread?: number;
  /** Merge unflushed WAL writes as the newest layer (default true). */
  includeWal?: boolean;
  /** Ethereum views: "auto" (default: from the recognised client), "off", or explicit locations. */
  eth?: "auto" | "off" | { accounts?: EthViewLocation; code?: EthViewLocation };
  /** Confidence level of intervals (default 0.95). */
  confidence?: number;
  /** A model already built by inspectDatadir(dir). */
  model?: DatadirModel;
  /**
   * Sample mode: what the model's read kept of its tables (check keeps them): a point lookup asks a kept
   * filter first and opens the table only when it may hold the key, and takes a kept table rather
   * than parsing it again.
   */
  kept?: KeptReads;
  /** Full mode: epoch ms after which no data block is read; what was read is reported, marked partial. */
  deadline?: number;
  /** Progress: data-block bytes done / total. */
  onProgress?: (done: number, total: number) => void;
  /** Sample mode: contracts drawn for storage per contract (default 200: contracts/sample.ts)... */
  contractDraws?: number;
  /** ...and progress over them: draws done / draws. */
  onContractDraw?: (done: number, total: number) => void;
}
