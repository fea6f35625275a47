/**
 * Knobs: the table options a column family is **configured** with (its newest OPTIONS file) beside the
 * knobs its SST files actually **carry** (footer, properties and filter metadata read by the SST reader),
 * aggregated per level, and every disagreement between the two with a stable id and the numbers behind it.
 *
 * Pure functions over the datadir model (src/datadir/model.ts): no I/O. Per-file knobs come from
 * `SstFileModel.details`, which `inspectDatadir(dir, { tableDetails: "cheap" })` fills; without details the
 * carried side is empty and a `details-missing` note says so.
 *
 * How RocksDB turns the configuration into what a file carries (the rules the comparison follows):
 * - filter: `bloomfilter:N` builds FastLocalBloom from format_version 5 on, legacy Bloom before it
 *   (`bloomfilter:N:true` = the old block-based filter); `ribbonfilter:N:L` builds Ribbon for files created
 *   at level >= L and Bloom below L (a file keeps the filter it was built with when it moves down, so both
 *   kinds are accepted for a hybrid policy). Ribbon stores about 30 % fewer bits than the Bloom-equivalent
 *   N it is configured with, so its bits/key are judged against a wider band.
 * - `optimize_filters_for_hits=true`: files written to the bottommost level get no filter (expected; an
 *   info note, not a disagreement).
 * - `partition_filters=true` is silently ignored unless `index_type=kTwoLevelIndexSearch`.
 * - compression: `compression_per_level` (when set) picks by level, else `compression`; files written to
 *   the bottommost level use `bottommost_compression` unless it is kDisableCompressionOption. With
 *   `level_compaction_dynamic_level_bytes` RocksDB indexes compression_per_level from the base level; we
 *   take the first non-empty level below L0 as the base level (an approximation: the real base level
 *   depends on level targets).
 * - block size: no property records the configured block size; it is estimated per file from the data
 *   size over the data blocks: exactly (uncompressed files), or as an upper bound from raw key+value bytes
 *   (compressed files; raw sizes ignore prefix compression, so they overestimate).
 */
import type {
  ColumnFamilyModel,
  InstanceModel,
  LevelModel,
  SstFileModel,
  TableDetails,
} from "../datadir/model.js";
import type { CfOptionsModel } from "../datadir/options_file.js";
import { checksumNameFromOptions } from "../base/checksum_type.js";
import { compressionNameFromOptions } from "../base/compression_type.js";
import { indexTypeNameFromOptions } from "../base/index_type.js";
import { plural } from "../util/words.js";

// ------------------------------------------------------------------------------------------------ types

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
  /** Entry-weighted mean stored bits/key over files with a filter (undefined when none). */
  filterBitsPerKey?: number;
  /**
   * Entry-weighted mean of the files' estimated filter false-positive rates (each from its filter's own
   * geometry, RocksDB's estimators); undefined when no filter's rate is known.
   */
  filterFpRate?: number;
  /**
   * The same over files with at least MIN_KEYS_FOR_BITS filter entries only: small filters are rounded up
   * to 64-byte cache lines (116 keys at 10 bits/key store 13.2), so only these say what the policy was.
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

/**
 * One place where OPTIONS and the files disagree (or a note on what a knob does to the files). `id` is
 * stable: `<knob>` or `<knob>-<what>`, e.g. "filter-missing", "compression", "partition-filters-ineffective".
 */
export interface KnobFinding {
  id: string;
  knob: KnobName;
  severity: KnobSeverity;
  /** Level concerned, when the finding is about one level. */
  level?: number;
  /** One readable line: "OPTIONS: bloomfilter:10 · files: 273 of 277 have no filter". */
  message: string;
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

// ------------------------------------------------------------------------------------------ normalising

/** OPTIONS compression name → the name files carry ("kLZ4Compression" → "LZ4"); undefined for "disabled". */
export function normalizeCompression(v: string | undefined): string | undefined {
  if (v === undefined) return undefined;
  const t = v.trim();
  if (t === "" || t === "kDisableCompressionOption") return undefined;
  return compressionNameFromOptions(t) ?? t;
}

/** OPTIONS checksum name → reader's name ("kXXH3" → "xxh3"). */
export function normalizeChecksum(v: string | undefined): string | undefined {
  return v === undefined ? undefined : (checksumNameFromOptions(v.trim()) ?? v.trim());
}

/** OPTIONS index_type → reader's name ("kTwoLevelIndexSearch" → "two-level"). */
export function normalizeIndexType(v: string | undefined): string | undefined {
  return v === undefined ? undefined : (indexTypeNameFromOptions(v.trim()) ?? v.trim());
}

/** Short form of a configured filter: "bloomfilter:10", "ribbonfilter:10:3", "none". */
export function describeConfiguredFilter(f: ConfiguredFilter): string {
  if (f.kind === "none") return "none";
  if (f.kind === "bloom")
    return `bloomfilter${f.bitsPerKey !== undefined ? `:${f.bitsPerKey}` : ""}${f.blockBased ? ":block-based" : ""}`;
  if (f.kind === "ribbon")
    return `ribbonfilter${f.bitsPerKey !== undefined ? `:${f.bitsPerKey}` : ""}${
      f.bloomBeforeLevel !== undefined && f.bloomBeforeLevel !== 0 ? `:${f.bloomBeforeLevel}` : ""
    }`;
  return f.policy;
}

/** The configured knobs of one CF from its typed OPTIONS. */
export function configuredKnobs(
  options: CfOptionsModel,
  optionsFile?: string,
  rocksdbVersion?: string,
): ConfiguredKnobs {
  const t = options.table;
  const fp = t?.filterPolicy;
  const indexType = normalizeIndexType(t?.indexType);
  return {
    optionsFile,
    rocksdbVersion,
    tableFactory: t?.factory,
    filter: fp
      ? {
          policy: fp.raw,
          kind: fp.kind,
          bitsPerKey: fp.bitsPerKey,
          blockBased: fp.blockBased,
          bloomBeforeLevel: fp.bloomBeforeLevel,
        }
      : { policy: "nullptr", kind: "none" },
    compression: normalizeCompression(options.compression),
    compressionPerLevel: options.compressionPerLevel?.length
      ? options.compressionPerLevel.map((c) => normalizeCompression(c) ?? c)
      : undefined,
    bottommostCompression: normalizeCompression(options.bottommostCompression),
    formatVersion: t?.formatVersion,
    blockSize: t?.blockSize,
    indexType,
    partitionFilters: t?.partitionFilters,
    partitionFiltersEffective: Boolean(t?.partitionFilters) && indexType === "two-level",
    wholeKeyFiltering: t?.wholeKeyFiltering,
    optimizeFiltersForHits: options.optimizeFiltersForHits,
    checksum: normalizeChecksum(t?.checksum),
    blockRestartInterval: t?.blockRestartInterval,
    indexBlockRestartInterval: t?.indexBlockRestartInterval,
    dataBlockIndexType: t?.dataBlockIndexType,
    dataBlockHashTableUtilRatio: t?.dataBlockHashTableUtilRatio,
    prefixExtractor: options.prefixExtractor,
    numLevels: options.numLevels,
    levelCompactionDynamicLevelBytes: options.levelCompactionDynamicLevelBytes,
    blob: {
      enableBlobFiles: options.blob.enableBlobFiles,
      minBlobSize: options.blob.minBlobSize,
      blobFileSize: options.blob.blobFileSize,
      blobCompression: normalizeCompression(options.blob.blobCompressionType),
      enableBlobGarbageCollection: options.blob.enableBlobGarbageCollection,
      blobGarbageCollectionAgeCutoff: options.blob.blobGarbageCollectionAgeCutoff,
      blobFileStartingLevel: options.blob.blobFileStartingLevel,
    },
  };
}

// ------------------------------------------------------------------------------------------- carried

/** Shown form of a file's filter: "none", "fastbloom ~10", "ribbon ~7 partitioned". */
export function fileFilterKey(f: TableDetails["filter"]): string {
  if (!f || f.kind === "none") return "none";
  let s = f.kind;
  if (f.bitsPerKey !== undefined && Number.isFinite(f.bitsPerKey)) s += ` ~${Math.round(f.bitsPerKey)}`;
  if (f.partitioned) s += " partitioned";
  return s;
}

function wholeKeyProp(d: TableDetails): string | undefined {
  const v = d.properties?.["rocksdb.block.based.table.whole.key.filtering"];
  if (v === undefined) return undefined;
  return String(v) === "0" ? "false" : "true";
}

class TallyMap {
  private m = new Map<string, Tally>();
  add(key: string, bytes: number): void {
    const t = this.m.get(key);
    if (t) {
      t.files++;
      t.bytes += bytes;
    } else this.m.set(key, { key, files: 1, bytes });
  }
  /** Most files first, then by key (stable output). */
  list(): Tally[] {
    return [...this.m.values()].sort(
      (a, b) => b.files - a.files || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0),
    );
  }
}

function emptyDetailsError(d: TableDetails | undefined): boolean {
  return !d || (d.error !== undefined && d.formatVersion === undefined);
}

/** Files with fewer filter keys than this do not count for the bits/key check (cache-line rounding). */
export const MIN_KEYS_FOR_BITS = 1000;

/** Aggregate the knobs carried by a set of files. `level` is -1 for a whole CF. */
export function carriedLevel(level: number, files: readonly SstFileModel[]): CarriedLevel {
  const filterKind = new TallyMap();
  const filter = new TallyMap();
  const filterPolicy = new TallyMap();
  const compression = new TallyMap();
  const formatVersion = new TallyMap();
  const indexType = new TallyMap();
  const checksum = new TallyMap();
  const wholeKey = new TallyMap();
  const out: CarriedLevel = {
    level,
    files: files.length,
    bytes: 0,
    filesRead: 0,
    filesUnread: 0,
    filterKind: [],
    filter: [],
    filterPartitioned: 0,
    filterPolicy: [],
    compression: [],
    formatVersion: [],
    indexType: [],
    checksum: [],
    wholeKeyFiltering: [],
    entries: 0,
    dataBytes: 0,
    indexBytes: 0,
    filterBytes: 0,
    rawKeyBytes: 0,
    rawValueBytes: 0,
  };
  let bitsWeighted = 0;
  let bitsWeight = 0;
  let largeWeighted = 0;
  let largeWeight = 0;
  let bsUncBytes = 0;
  let bsUncBlocks = 0;
  let bsUncFiles = 0;
  let bsRawBytes = 0;
  let bsRawBlocks = 0;
  let bsRawFiles = 0;
  let fpWeighted = 0;
  let fpWeight = 0;
  for (const f of files) {
    out.bytes += f.fileSize;
    const d = f.details;
    if (emptyDetailsError(d)) {
      out.filesUnread++;
      continue;
    }
    const det = d!;
    out.filesRead++;
    const size = f.fileSize;
    const fk = det.filter?.kind ?? "none";
    filterKind.add(fk, size);
    filter.add(fileFilterKey(det.filter), size);
    if (det.filter?.partitioned) out.filterPartitioned++;
    if (det.filterPolicy !== undefined || fk !== "none")
      filterPolicy.add(det.filterPolicy ?? "(unnamed)", size);
    if (det.compression !== undefined) compression.add(det.compression, size);
    if (det.formatVersion !== undefined) formatVersion.add(String(det.formatVersion), size);
    if (det.indexType !== undefined) indexType.add(det.indexType, size);
    if (det.checksum !== undefined) checksum.add(det.checksum, size);
    const wk = wholeKeyProp(det);
    if (wk !== undefined) wholeKey.add(wk, size);
    const entries = det.numEntries ?? 0;
    out.entries += entries;
    out.dataBytes += det.dataSize ?? 0;
    out.indexBytes += det.indexSize ?? 0;
    out.filterBytes += det.filterSize ?? 0;
    out.rawKeyBytes += det.rawKeySize ?? 0;
    out.rawValueBytes += det.rawValueSize ?? 0;
    if (
      fk !== "none" &&
      det.filter?.bitsPerKey !== undefined &&
      Number.isFinite(det.filter.bitsPerKey) &&
      entries > 0
    ) {
      bitsWeighted += det.filter.bitsPerKey * entries;
      bitsWeight += entries;
      if (det.filter.estimatedFpRate !== undefined) {
        fpWeighted += det.filter.estimatedFpRate * entries;
        fpWeight += entries;
      }
      const fe = det.properties?.["rocksdb.num.filter_entries"];
      const keys = typeof fe === "number" && fe > 0 ? fe : entries;
      if (keys >= MIN_KEYS_FOR_BITS) {
        largeWeighted += det.filter.bitsPerKey * keys;
        largeWeight += keys;
      }
    }
    const blocks = det.numDataBlocks ?? 0;
    if (blocks > 0) {
      if (det.compression === "NoCompression" && det.dataSize !== undefined) {
        bsUncBytes += det.dataSize;
        bsUncBlocks += blocks;
        bsUncFiles++;
      } else if (det.rawKeySize !== undefined && det.rawValueSize !== undefined) {
        bsRawBytes += det.rawKeySize + det.rawValueSize;
        bsRawBlocks += blocks;
        bsRawFiles++;
      }
    }
  }
  out.filterKind = filterKind.list();
  out.filter = filter.list();
  out.filterPolicy = filterPolicy.list();
  out.compression = compression.list();
  out.formatVersion = formatVersion.list();
  out.indexType = indexType.list();
  out.checksum = checksum.list();
  out.wholeKeyFiltering = wholeKey.list();
  if (bitsWeight > 0) out.filterBitsPerKey = bitsWeighted / bitsWeight;
  if (fpWeight > 0) out.filterFpRate = fpWeighted / fpWeight;
  if (largeWeight > 0) out.filterBitsPerKeyLarge = largeWeighted / largeWeight;
  if (bsUncBlocks > 0)
    out.blockSize = {
      meanBytes: bsUncBytes / bsUncBlocks,
      basis: "uncompressed",
      dataBlocks: bsUncBlocks,
      files: bsUncFiles,
    };
  else if (bsRawBlocks > 0)
    out.blockSize = {
      meanBytes: bsRawBytes / bsRawBlocks,
      basis: "raw-upper-bound",
      dataBlocks: bsRawBlocks,
      files: bsRawFiles,
    };
  return out;
}

/** Deepest level holding at least one file. */
export function bottomLevelOf(levels: readonly LevelModel[]): number | undefined {
  let b: number | undefined;
  for (const l of levels) if (l.files.length > 0 && (b === undefined || l.level > b)) b = l.level;
  return b;
}

/** Knobs carried by a CF's files, per level and in all. */
export function carriedKnobs(cf: ColumnFamilyModel): CarriedKnobs {
  const levels = cf.levels.map((l) => carriedLevel(l.level, l.files));
  const all = carriedLevel(
    -1,
    cf.levels.flatMap((l) => l.files),
  );
  return { levels, all, bottomLevel: bottomLevelOf(cf.levels) };
}

// ---------------------------------------------------------------------------------------- expectations

/** The compression RocksDB would give a file written to `level` (see the header comment). */
export function expectedCompression(
  c: ConfiguredKnobs,
  level: number,
  isBottom: boolean,
  baseLevel: number | undefined,
): string | undefined {
  if (isBottom && c.bottommostCompression !== undefined) return c.bottommostCompression;
  const per = c.compressionPerLevel;
  if (per && per.length > 0) {
    let idx = level;
    if (c.levelCompactionDynamicLevelBytes && level > 0 && baseLevel !== undefined && baseLevel > 0)
      idx = Math.max(1, level - baseLevel + 1);
    return per[Math.min(idx, per.length - 1)];
  }
  return c.compression;
}

/** Filter kinds a file may carry under the configured policy (files keep the filter they were built with). */
export function acceptedFilterKinds(c: ConfiguredFilter, formatVersion: number | undefined): string[] {
  if (c.kind === "none") return ["none"];
  if (c.kind === "bloom") {
    if (c.blockBased) return ["bloom"];
    if (formatVersion === undefined) return ["bloom", "fastbloom"];
    return formatVersion >= 5 ? ["fastbloom"] : ["bloom"];
  }
  if (c.kind === "ribbon") {
    if (c.bloomBeforeLevel !== undefined && c.bloomBeforeLevel > 0) return ["ribbon", "fastbloom"];
    return ["ribbon"];
  }
  return ["bloom", "fastbloom", "ribbon"];
}

/** Is a measured stored bits/key plausible for the configured policy? */
export function bitsPlausible(configured: ConfiguredFilter, kind: string, measured: number): boolean {
  const b = configured.bitsPerKey;
  if (b === undefined) return true;
  if (kind === "ribbon") return measured >= 0.5 * b && measured <= b + 1.5;
  // Bloom rounds to 64-byte cache lines (small files gain bits); allow 25 % or 1.5 bits
  return Math.abs(measured - b) <= Math.max(1.5, 0.25 * b);
}

// --------------------------------------------------------------------------------------------- analysis

const fmtTallies = (ts: Tally[], unit = "files"): string =>
  ts.length === 0
    ? "-"
    : ts.map((t) => `${t.key}: ${t.files} ${t.files === 1 ? unit.replace(/s$/, "") : unit}`).join(", ");

const sum = (ts: Tally[], pred: (key: string) => boolean): { files: number; bytes: number } => {
  let files = 0;
  let bytes = 0;
  for (const t of ts)
    if (pred(t.key)) {
      files += t.files;
      bytes += t.bytes;
    }
  return { files, bytes };
};

const lvl = (l: number): string => (l < 0 ? "all" : `L${l}`);

function finding(f: Omit<KnobFinding, "severity"> & { severity?: KnobSeverity }): KnobFinding {
  return { severity: "warn", ...f };
}

/** What every knob rule reads, and where it puts what it finds. */
interface KnobContext {
  c: ConfiguredKnobs;
  carried: CarriedKnobs;
  all: CarriedKnobs["all"];
  bottom: number | undefined;
  /** The shallowest level below L0 holding files (where compression_per_level's base applies). */
  baseLevel: number | undefined;
  /** The configured filter in short form ("bloomfilter:10"). */
  filterCfg: string;
  /** optimize_filters_for_hits is on. */
  ofh: boolean;
  dis: KnobFinding[];
  notes: KnobFinding[];
}

/**
 * One rule per knob family, run in this order (their findings keep it). A rule returns "stop" when
 * nothing after it can be judged. New knob families add a rule here.
 */
const KNOB_RULES: readonly ((k: KnobContext) => void | "stop")[] = [
  partitionFiltersRule,
  detailsMissingRule,
  filterMissingRule,
  filterPerLevelRule,
  filterPartitionedRule,
  filterUnconfiguredRule,
  optimizeFiltersForHitsRule,
  compressionRule,
  simpleKnobsRule,
  blockSizeRule,
];

/** OPTIONS against files for one CF: every knob rule in turn. */
export function compareConfiguredToCarried(
  c: ConfiguredKnobs,
  carried: CarriedKnobs,
): { disagreements: KnobFinding[]; notes: KnobFinding[] } {
  const k: KnobContext = {
    c,
    carried,
    all: carried.all,
    bottom: carried.bottomLevel,
    baseLevel: carried.levels.find((l) => l.level > 0 && l.files > 0)?.level,
    filterCfg: describeConfiguredFilter(c.filter),
    ofh: c.optimizeFiltersForHits === true,
    dis: [],
    notes: [],
  };
  for (const rule of KNOB_RULES) if (rule(k) === "stop") break;
  return { disagreements: k.dis, notes: k.notes };
}

/** Configuration-only: partition_filters without a two-level index. */
function partitionFiltersRule({ c, all, dis }: KnobContext): void {
  if (c.partitionFilters && !c.partitionFiltersEffective) {
    dis.push(
      finding({
        id: "partition-filters-ineffective",
        knob: "partition-filters",
        severity: "info",
        message: `partition_filters=true has no effect without a two-level index (index_type=${c.indexType ?? "default binary-search"})`,
        configured: `partition_filters=true, index_type=${c.indexType ?? "binary-search"}`,
        carried: `${all.filterPartitioned} of ${plural(all.filesRead, "file")} partitioned`,
        files: all.filesRead - all.filterPartitioned,
        bytes: 0,
        totalFiles: all.files,
        totalBytes: all.bytes,
      }),
    );
  }
}

/** Nothing to compare when no file's details were read. */
function detailsMissingRule({ all, filterCfg, notes }: KnobContext): void | "stop" {
  if (all.files > 0 && all.filesUnread === all.files) {
    notes.push(
      finding({
        id: "details-missing",
        knob: "filter",
        severity: "info",
        message: `no per-file details read: what the ${plural(all.files, "file")} carry is unknown`,
        configured: filterCfg,
        carried: "-",
        files: all.files,
        bytes: all.bytes,
        totalFiles: all.files,
        totalBytes: all.bytes,
      }),
    );
    return "stop";
  }
}

/**
 * Files of the filter's scope (every level; under optimize_filters_for_hits all but the bottom level)
 * and their filter kinds.
 */
function filterScope({ carried, bottom, ofh }: KnobContext) {
  const scope =
    ofh && bottom !== undefined ? carried.levels.filter((l) => l.level !== bottom) : carried.levels;
  const scopeFiles = scope.reduce((a, l) => a + l.filesRead, 0);
  const scopeBytes = scope.reduce((a, l) => a + l.bytes, 0);
  const scopeTallies = ([] as Tally[]).concat(...scope.map((l) => l.filterKind));
  return { scope, scopeFiles, scopeBytes, scopeTallies };
}

/** A filter is configured: files without one (the bottom level apart under optimize_filters_for_hits). */
function filterMissingRule(k: KnobContext): void {
  const { c, bottom, filterCfg, ofh, dis } = k;
  if (c.filter.kind === "none") return;
  const { scope, scopeFiles, scopeBytes, scopeTallies } = filterScope(k);
  const none = sum(scopeTallies, (k) => k === "none");
  if (none.files > 0) {
    const levels = scope.filter((l) => l.filterKind.some((t) => t.key === "none")).map((l) => lvl(l.level));
    dis.push(
      finding({
        id: "filter-missing",
        knob: "filter",
        severity: "error",
        message: `OPTIONS: ${filterCfg} · files: ${none.files} of ${scopeFiles} have no filter (${levels.join(", ")})${
          ofh && bottom !== undefined ? ` (L${bottom} excluded: optimize_filters_for_hits)` : ""
        }`,
        configured: filterCfg,
        carried: fmtTallies(scope.length ? mergeTallies(scopeTallies) : []),
        files: none.files,
        bytes: none.bytes,
        totalFiles: scopeFiles,
        totalBytes: scopeBytes,
      }),
    );
  }
}

/** A filter is configured: per level, filters of another kind or another bits/key. */
function filterPerLevelRule({ c, carried, filterCfg, dis }: KnobContext): void {
  if (c.filter.kind === "none") return;
  // kind, per level (format version decides bloom vs fastbloom)
  for (const l of carried.levels) {
    if (l.filesRead === 0) continue;
    const fv = c.formatVersion;
    const ok = acceptedFilterKinds(c.filter, fv);
    const wrong = l.filterKind.filter((t) => t.key !== "none" && !ok.includes(t.key));
    if (wrong.length > 0 && c.filter.kind !== "other") {
      const w = sum(wrong, () => true);
      dis.push(
        finding({
          id: "filter-kind",
          knob: "filter",
          level: l.level,
          message: `OPTIONS: ${filterCfg} (builds ${ok.join("/")}) · L${l.level}: ${fmtTallies(wrong)}`,
          configured: filterCfg,
          carried: fmtTallies(l.filterKind),
          files: w.files,
          bytes: w.bytes,
          totalFiles: l.files,
          totalBytes: l.bytes,
        }),
      );
    }
    // bits/key, per kind present
    if (c.filter.bitsPerKey !== undefined && l.filterBitsPerKeyLarge !== undefined) {
      const kinds = l.filterKind.filter((t) => t.key !== "none");
      const kind = kinds.length === 1 ? kinds[0]!.key : "mixed";
      if (kind !== "mixed" && !bitsPlausible(c.filter, kind, l.filterBitsPerKeyLarge)) {
        const f = sum(kinds, () => true);
        dis.push(
          finding({
            id: "filter-bits",
            knob: "filter-bits",
            level: l.level,
            message: `OPTIONS: ${filterCfg} · L${l.level}: ${kind} filters store ${l.filterBitsPerKeyLarge.toFixed(1)} bits/key`,
            configured: String(c.filter.bitsPerKey),
            carried: l.filterBitsPerKeyLarge.toFixed(1),
            files: f.files,
            bytes: f.bytes,
            totalFiles: l.files,
            totalBytes: l.bytes,
          }),
        );
      }
    }
  }
}

/** A filter is configured: partitioned as RocksDB would build it. */
function filterPartitionedRule({ c, all, dis }: KnobContext): void {
  if (c.filter.kind === "none") return;
  // partitioned as RocksDB would build it
  const filtered = sum(all.filterKind, (k) => k !== "none");
  const wantPartitioned = c.partitionFiltersEffective;
  const mismatch = wantPartitioned ? filtered.files - all.filterPartitioned : all.filterPartitioned;
  if (filtered.files > 0 && mismatch > 0) {
    dis.push(
      finding({
        id: "filter-partitioned",
        knob: "filter-partitioned",
        message: `OPTIONS: ${wantPartitioned ? "partitioned" : "full"} filters · files: ${mismatch} of ${filtered.files} filtered files ${
          wantPartitioned ? "have full filters" : "have partitioned filters"
        }`,
        configured: wantPartitioned ? "partitioned" : "full",
        carried: `${all.filterPartitioned} partitioned, ${filtered.files - all.filterPartitioned} full`,
        files: mismatch,
        bytes: 0,
        totalFiles: filtered.files,
        totalBytes: filtered.bytes,
      }),
    );
  }
}

/** No filter configured: files without one (a note), files with one that a reader never consults. */
function filterUnconfiguredRule({ c, carried, all, dis, notes }: KnobContext): void {
  if (c.filter.kind !== "none") return;
  const none = sum(all.filterKind, (k) => k === "none");
  if (none.files > 0) {
    const levels = carried.levels
      .filter((l) => l.filterKind.some((t) => t.key === "none"))
      .map((l) => lvl(l.level));
    notes.push(
      finding({
        id: "filter-none",
        knob: "filter",
        severity: "info",
        message: `no filter configured and ${none.files} of ${plural(all.filesRead, "file")} carry none (${levels.join(", ")}): every point lookup that reaches a file reads its index and a data block`,
        configured: "none",
        carried: fmtTallies(all.filterKind),
        files: none.files,
        bytes: none.bytes,
        totalFiles: all.files,
        totalBytes: all.bytes,
      }),
    );
  }
  const has = sum(all.filterKind, (k) => k !== "none");
  if (has.files > 0) {
    dis.push(
      finding({
        id: "filter-unconfigured",
        knob: "filter",
        message: `OPTIONS: no filter policy · files: ${has.files} of ${all.filesRead} carry filters (${fmtTallies(
          all.filter.filter((t) => t.key !== "none"),
        )}); a reader opened with these options never consults them`,
        configured: "none",
        carried: fmtTallies(all.filter),
        files: has.files,
        bytes: has.bytes,
        totalFiles: all.files,
        totalBytes: all.bytes,
      }),
    );
  }
}

/** optimize_filters_for_hits: what it leaves unfiltered (expected). */
function optimizeFiltersForHitsRule({ c, carried, bottom, ofh, notes }: KnobContext): void {
  if (ofh && bottom !== undefined && c.filter.kind !== "none") {
    const bl = carried.levels.find((l) => l.level === bottom)!;
    const none = sum(bl.filterKind, (k) => k === "none");
    notes.push(
      finding({
        id: "optimize-filters-for-hits",
        knob: "optimize-filters-for-hits",
        severity: "info",
        level: bottom,
        message: `optimize_filters_for_hits leaves the last level unfiltered (L${bottom}: ${none.files} of ${plural(bl.files, "file")}, ${none.bytes} bytes without a filter)`,
        configured: "optimize_filters_for_hits=true",
        carried: fmtTallies(bl.filterKind),
        files: none.files,
        bytes: none.bytes,
        totalFiles: bl.files,
        totalBytes: bl.bytes,
      }),
    );
  }
}

/** Compression, per level. */
function compressionRule({ c, carried, bottom, baseLevel, dis }: KnobContext): void {
  for (const l of carried.levels) {
    if (l.filesRead === 0) continue;
    const want = expectedCompression(c, l.level, l.level === bottom, baseLevel);
    if (want === undefined) continue;
    // a file moved down without rewrite keeps the compression of the level it was written at: accept any
    // configured per-level compression above, but flag what no configuration explains
    const wrong = l.compression.filter((t) => t.key !== want);
    if (wrong.length === 0) continue;
    const w = sum(wrong, () => true);
    dis.push(
      finding({
        id: "compression",
        knob: "compression",
        level: l.level,
        message: `OPTIONS: ${want} · L${l.level}: ${wrong.map((t) => `${plural(t.files, "file")} ${t.key}`).join(", ")}`,
        configured: want,
        carried: fmtTallies(l.compression),
        files: w.files,
        bytes: w.bytes,
        totalFiles: l.files,
        totalBytes: l.bytes,
      }),
    );
  }
}

/** Format version, index type, checksum and whole-key filtering, compared CF-wide. */
function simpleKnobsRule({ c, all, dis }: KnobContext): void {
  const simple: [KnobName, string, string | undefined, Tally[]][] = [
    ["format-version", "format_version", c.formatVersion?.toString(), all.formatVersion],
    ["index-type", "index_type", c.indexType, all.indexType],
    ["checksum", "checksum", c.checksum, all.checksum],
    [
      "whole-key-filtering",
      "whole_key_filtering",
      c.filter.kind === "none" || c.wholeKeyFiltering === undefined ? undefined : String(c.wholeKeyFiltering),
      all.wholeKeyFiltering,
    ],
  ];
  for (const [knob, opt, want, tallies] of simple) {
    if (want === undefined) continue;
    const wrong = tallies.filter((t) => t.key !== want);
    if (wrong.length === 0) continue;
    const w = sum(wrong, () => true);
    dis.push(
      finding({
        id: knob,
        knob,
        message: `OPTIONS: ${opt}=${want} · files: ${wrong.map((t) => `${plural(t.files, "file")} ${t.key}`).join(", ")}`,
        configured: want,
        carried: fmtTallies(tallies),
        files: w.files,
        bytes: w.bytes,
        totalFiles: all.files,
        totalBytes: all.bytes,
      }),
    );
  }
}

/** Block size (estimated; only a clear miss is flagged). */
function blockSizeRule({ c, all, dis }: KnobContext): void {
  if (c.blockSize !== undefined && all.blockSize) {
    const est = all.blockSize;
    const meanEntry = all.entries > 0 ? (all.rawKeyBytes + all.rawValueBytes) / all.entries : 0;
    const tooSmall = est.meanBytes < 0.6 * c.blockSize && est.dataBlocks >= 4 * Math.max(1, est.files);
    const tooBig =
      est.basis === "uncompressed" && est.meanBytes > 2 * c.blockSize && meanEntry < c.blockSize / 4;
    if (tooSmall || tooBig) {
      dis.push(
        finding({
          id: "block-size",
          knob: "block-size",
          message: `OPTIONS: block_size=${c.blockSize} · files: mean data block ${Math.round(est.meanBytes)} bytes (${
            est.basis === "uncompressed" ? "measured" : "upper bound"
          }, ${plural(est.dataBlocks, "block")})`,
          configured: String(c.blockSize),
          carried: `${Math.round(est.meanBytes)} (${est.basis})`,
          files: est.files,
          bytes: 0,
          totalFiles: all.files,
          totalBytes: all.bytes,
        }),
      );
    }
  }
}

function mergeTallies(ts: Tally[]): Tally[] {
  const out = new Map<string, Tally>();
  for (const t of ts) {
    const e = out.get(t.key);
    if (e) {
      e.files += t.files;
      e.bytes += t.bytes;
    } else out.set(t.key, { ...t });
  }
  return [...out.values()].sort((a, b) => b.files - a.files || (a.key < b.key ? -1 : 1));
}

/** Blob settings against the blob files present. */
function blobNotes(cf: ColumnFamilyModel, c: ConfiguredKnobs | undefined): KnobFinding[] {
  const out: KnobFinding[] = [];
  const n = cf.blobFiles.length;
  const bytes = cf.totals.blobFileBytes;
  if (c && c.blob.enableBlobFiles === false && n > 0) {
    out.push(
      finding({
        id: "blob-disabled-files-present",
        knob: "blob",
        severity: "info",
        message: `OPTIONS: enable_blob_files=false · ${plural(n, "blob file")} (${bytes} bytes) still referenced`,
        configured: "enable_blob_files=false",
        carried: `${plural(n, "blob file")}`,
        files: n,
        bytes,
        totalFiles: n,
        totalBytes: bytes,
      }),
    );
  }
  return out;
}

/** Knobs of one CF: configured, carried, disagreements and notes. */
export function analyzeCfKnobs(instance: InstanceModel, cf: ColumnFamilyModel): CfKnobs {
  const configured = cf.options
    ? configuredKnobs(cf.options, instance.options?.file, instance.options?.rocksdbVersion)
    : undefined;
  const carried = carriedKnobs(cf);
  const r = configured ? compareConfiguredToCarried(configured, carried) : { disagreements: [], notes: [] };
  return {
    instance: instance.relPath,
    cf: cf.name,
    displayName: cf.displayName,
    configured,
    carried,
    disagreements: [...r.disagreements, ...blobNotes(cf, configured).filter((f) => f.severity !== "info")],
    notes: [...r.notes, ...blobNotes(cf, configured).filter((f) => f.severity === "info")],
  };
}

/** Knobs of every CF of every readable instance. */
export function analyzeKnobs(model: { instances: InstanceModel[] }): CfKnobs[] {
  const out: CfKnobs[] = [];
  for (const inst of model.instances)
    for (const cf of inst.columnFamilies) out.push(analyzeCfKnobs(inst, cf));
  return out;
}

// -------------------------------------------------------------------------------------------- compare

const showBool = (b: boolean | undefined): string => (b === undefined ? "-" : String(b));
const showNum = (n: number | undefined): string => (n === undefined ? "-" : String(n));
const showStr = (s: string | undefined): string => s ?? "-";

/** Configured knobs as comparable display strings, keyed by knob. */
export function configuredKnobRows(c: ConfiguredKnobs | undefined): [string, string][] {
  if (!c) return [["options", "-"]];
  return [
    ["filter", describeConfiguredFilter(c.filter)],
    ["compression", showStr(c.compression)],
    ["compression-per-level", c.compressionPerLevel ? c.compressionPerLevel.join(":") : "-"],
    ["bottommost-compression", showStr(c.bottommostCompression)],
    ["block-size", showNum(c.blockSize)],
    ["format-version", showNum(c.formatVersion)],
    ["index-type", showStr(c.indexType)],
    [
      "partition-filters",
      `${showBool(c.partitionFilters)}${c.partitionFilters && !c.partitionFiltersEffective ? " (no effect)" : ""}`,
    ],
    ["whole-key-filtering", showBool(c.wholeKeyFiltering)],
    ["optimize-filters-for-hits", showBool(c.optimizeFiltersForHits)],
    ["checksum", showStr(c.checksum)],
    ["restart-interval", showNum(c.blockRestartInterval)],
    ["index-restart-interval", showNum(c.indexBlockRestartInterval)],
    ["data-block-index", showStr(c.dataBlockIndexType)],
    ["prefix-extractor", showStr(c.prefixExtractor)],
    ["blob-files", showBool(c.blob.enableBlobFiles)],
    ["min-blob-size", showNum(c.blob.minBlobSize)],
    ["blob-compression", showStr(c.blob.blobCompression)],
    ["blob-gc", showBool(c.blob.enableBlobGarbageCollection)],
  ];
}

/** Carried knobs as comparable strings: the set of values present (counts differ between arms). */
export function carriedKnobRows(l: CarriedLevel): [string, string][] {
  const keys = (ts: Tally[]): string =>
    ts.length === 0
      ? "-"
      : ts
          .map((t) => t.key)
          .sort()
          .join(", ");
  return [
    ["filter", keys(l.filter)],
    ["compression", keys(l.compression)],
    ["format-version", keys(l.formatVersion)],
    ["index-type", keys(l.indexType)],
    ["checksum", keys(l.checksum)],
    ["whole-key-filtering", keys(l.wholeKeyFiltering)],
  ];
}

/**
 * Compare two CFs knob by knob (for `check --against`): every configured knob, then the carried knobs
 * CF-wide and per level (levels where both sides have files). Values are display strings; carried values
 * compare the set of values present, not the file counts.
 */
export function compareKnobs(a: CfKnobs, b: CfKnobs): KnobComparison {
  const rows: KnobComparisonRow[] = [];
  const ca = new Map(configuredKnobRows(a.configured));
  const cb = new Map(configuredKnobRows(b.configured));
  for (const k of new Set([...ca.keys(), ...cb.keys()])) {
    const va = ca.get(k) ?? "-";
    const vb = cb.get(k) ?? "-";
    rows.push({ knob: k, side: "configured", a: va, b: vb, equal: va === vb });
  }
  const pushCarried = (la: CarriedLevel | undefined, lb: CarriedLevel | undefined, level?: number) => {
    const ra = new Map(la ? carriedKnobRows(la) : []);
    const rb = new Map(lb ? carriedKnobRows(lb) : []);
    for (const k of new Set([...ra.keys(), ...rb.keys()])) {
      const va = ra.get(k) ?? "-";
      const vb = rb.get(k) ?? "-";
      rows.push({ knob: k, side: "carried", level, a: va, b: vb, equal: va === vb });
    }
  };
  pushCarried(a.carried.all, b.carried.all);
  // per level only where both sides hold files: where the data sits is placement, not a knob
  const levels = a.carried.levels
    .filter((l) => l.files > 0 && b.carried.levels.some((m) => m.level === l.level && m.files > 0))
    .map((l) => l.level);
  for (const n of levels)
    pushCarried(
      a.carried.levels.find((l) => l.level === n),
      b.carried.levels.find((l) => l.level === n),
      n,
    );
  return {
    a: { instance: a.instance, cf: a.cf },
    b: { instance: b.instance, cf: b.cf },
    rows,
    differences: rows.filter((r) => !r.equal),
  };
}
