/**
 * Two column families knob by knob (`check --against`'s options-mismatch): the configured knobs and the
 * carried ones, as comparable display strings.
 */
import { describeConfiguredFilter } from "./configured.js";
import type {
  CarriedLevel,
  CfKnobs,
  ConfiguredKnobs,
  KnobComparison,
  KnobComparisonRow,
  Tally,
} from "./knob_types.js";

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
