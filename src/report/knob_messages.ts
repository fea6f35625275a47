/**
 * The one-line text of a knob finding (src/analysis/knob_rules.ts), written from its facts: the inspect
 * report's flags and `check`'s options-drift finding both say it this way. One case per finding id; a new
 * rule's id does not compile until it has its text here.
 */
import { formatTallies, LARGE_FILTER_BITS_NAME } from "../analysis/carried.js";
import type { KnobFinding, Tally } from "../analysis/knob_types.js";
import { plural } from "../util/words.js";

const levelName = (l: number): string => (l < 0 ? "all" : `L${l}`);
const levelList = (ls: readonly number[]): string => ls.map(levelName).join(", ");
/** "2 files LZ4, 1 file Snappy". */
const filesPerValue = (ts: readonly Tally[]): string =>
  ts.map((t) => `${plural(t.files, "file")} ${t.key}`).join(", ");

/** "OPTIONS: bloomfilter:10 · files: 273 of 277 have no filter (L0, L1)", and so on per finding id. */
export function knobFindingMessage(f: KnobFinding): string {
  switch (f.id) {
    case "partition-filters-ineffective":
      return `partition_filters=true has no effect without a two-level index (index_type=${f.indexType ?? "default binary-search"})`;
    case "details-missing":
      return `no per-file details read: what the ${plural(f.totalFiles, "file")} carry is unknown`;
    case "filter-missing":
      return `OPTIONS: ${f.configured} · files: ${f.files} of ${f.totalFiles} have no filter (${levelList(f.levels)})${
        f.excludedLevel !== undefined ? ` (L${f.excludedLevel} excluded: optimize_filters_for_hits)` : ""
      }`;
    case "filter-kind":
      return `OPTIONS: ${f.configured} (builds ${f.accepted.join("/")}) · L${f.level}: ${formatTallies(f.offending)}`;
    case "filter-bits":
      return `OPTIONS: ${f.policy} · L${f.level}: ${f.filterKind} filters store ${f.bitsPerKey.toFixed(1)} ${LARGE_FILTER_BITS_NAME}`;
    case "filter-partitioned": {
      const partitioned = f.configured === "partitioned";
      return `OPTIONS: ${partitioned ? "partitioned" : "full"} filters · files: ${f.files} of ${f.totalFiles} filtered files ${
        partitioned ? "have full filters" : "have partitioned filters"
      }`;
    }
    case "filter-none":
      return `no filter configured and ${f.files} of ${plural(f.filesRead, "file")} carry none (${levelList(f.levels)}): every point lookup that reaches a file reads its index and a data block`;
    case "filter-unconfigured":
      return `OPTIONS: no filter policy · files: ${f.files} of ${f.filesRead} carry filters (${formatTallies(
        f.offending,
      )}); a reader opened with these options never consults them`;
    case "optimize-filters-for-hits":
      return `optimize_filters_for_hits leaves the last level unfiltered (L${f.level}: ${f.files} of ${plural(f.totalFiles, "file")}, ${f.bytes} bytes without a filter)`;
    case "compression":
      return `OPTIONS: ${f.configured} · L${f.level}: ${filesPerValue(f.offending)}`;
    case "format-version":
    case "index-type":
    case "checksum":
    case "whole-key-filtering":
      return `OPTIONS: ${f.option}=${f.configured} · files: ${filesPerValue(f.offending)}`;
    case "block-size": {
      const est = f.estimate;
      return `OPTIONS: block_size=${f.configured} · files: mean data block ${Math.round(est.meanBytes)} bytes (${
        est.basis === "uncompressed" ? "measured" : "upper bound"
      }, ${plural(est.dataBlocks, "block")})`;
    }
    case "blob-disabled-files-present":
      return `OPTIONS: enable_blob_files=false · ${plural(f.files, "blob file")} (${f.bytes} bytes) still referenced`;
  }
}
