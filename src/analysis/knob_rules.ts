/**
 * OPTIONS against files: one rule per knob family (KNOB_RULES), each reading the configured knobs
 * (configured.ts) beside the carried ones (carried.ts) and reporting where they disagree, with a stable
 * id and the numbers behind it.
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
 * - block size: estimated (carried.ts); only a clear miss is flagged.
 */
import type { ColumnFamilyModel } from "../datadir/model.js";
import { plural } from "../util/words.js";
import { formatTallies } from "./carried.js";
import { describeConfiguredFilter } from "./configured.js";
import type {
  CarriedKnobs,
  ConfiguredFilter,
  ConfiguredKnobs,
  KnobFinding,
  KnobFindingBase,
  KnobFindingFacts,
  KnobSeverity,
  SimpleKnobName,
  Tally,
} from "./knob_types.js";

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

/** A finding, "warn" unless said otherwise. */
function finding(
  f: Omit<KnobFindingBase, "severity"> & { severity?: KnobSeverity } & KnobFindingFacts,
): KnobFinding {
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
        indexType: c.indexType,
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
    const levels = scope.filter((l) => l.filterKind.some((t) => t.key === "none")).map((l) => l.level);
    dis.push(
      finding({
        id: "filter-missing",
        knob: "filter",
        severity: "error",
        levels,
        excludedLevel: ofh ? bottom : undefined,
        configured: filterCfg,
        carried: formatTallies(scope.length ? mergeTallies(scopeTallies) : []),
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
          accepted: ok,
          offending: wrong,
          configured: filterCfg,
          carried: formatTallies(l.filterKind),
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
            policy: filterCfg,
            filterKind: kind,
            bitsPerKey: l.filterBitsPerKeyLarge,
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
      .map((l) => l.level);
    notes.push(
      finding({
        id: "filter-none",
        knob: "filter",
        severity: "info",
        levels,
        filesRead: all.filesRead,
        configured: "none",
        carried: formatTallies(all.filterKind),
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
        filesRead: all.filesRead,
        offending: all.filter.filter((t) => t.key !== "none"),
        configured: "none",
        carried: formatTallies(all.filter),
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
        configured: "optimize_filters_for_hits=true",
        carried: formatTallies(bl.filterKind),
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
        offending: wrong,
        configured: want,
        carried: formatTallies(l.compression),
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
  const simple: [SimpleKnobName, string, string | undefined, Tally[]][] = [
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
        option: opt,
        offending: wrong,
        configured: want,
        carried: formatTallies(tallies),
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
          estimate: est,
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
export function blobNotes(cf: ColumnFamilyModel, c: ConfiguredKnobs | undefined): KnobFinding[] {
  const out: KnobFinding[] = [];
  const n = cf.blobFiles.length;
  const bytes = cf.totals.blobFileBytes;
  if (c && c.blob.enableBlobFiles === false && n > 0) {
    out.push(
      finding({
        id: "blob-disabled-files-present",
        knob: "blob",
        severity: "info",
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
