/**
 * The knobs a table written by the compaction will carry, derived from the options applied, and the
 * per-file check of what a table carries against them. Used twice: before the run (what the files carry
 * today against what they will carry: an option change) and after it (every new file against the intent).
 *
 * How RocksDB 7.8.3 turns options into what a bottom-level file carries:
 * - filter: `optimize_filters_for_hits=true` builds no filter on the bottommost level; `bloomfilter:N`
 *   builds FastLocalBloom from format_version 5 on (legacy Bloom before); `bloomfilter:N:true` the old
 *   block-based filter; `ribbonfilter:N:L` Ribbon at levels >= L, Bloom below.
 * - FastLocalBloom sizing (util/filter_policy.cc CalculateSpace, optimize_filters_for_memory=false):
 *   bytes = roundup64(ceil(keys * millibits_per_key / 8000)) + 5 metadata bytes; a file built with the
 *   intended bits/key has exactly that filter size, so the check is exact for it. Ribbon and legacy Bloom
 *   are judged with the band of analysis/knobs.ts bitsPlausible().
 * - compression: analysis/knobs.ts expectedCompression() for the bottommost level.
 * - partitioned filters need a two-level index.
 * - block size: no property records it. Estimated per file with at least 4 data blocks from
 *   raw key+value bytes over data blocks (an upper bound: ignores prefix compression), or the data size
 *   of uncompressed files; reported, and judged only for a factor-2 disagreement.
 */
import type { SstFileModel } from "../datadir/model.js";
import { blockSizeBasisOf, filterKeysOf, wholeKeyFilteringOf } from "../datadir/table_details.js";
import type { CfOptionsModel } from "../datadir/options_file.js";
import {
  bitsPlausible,
  configuredKnobs,
  expectedCompression,
  type ConfiguredFilter,
} from "../analysis/knobs.js";
import { plural } from "../util/words.js";

export interface IntendedKnobs {
  /** Level the files are written to. */
  level: number;
  filter: {
    /** "none" | "fastbloom" | "bloom" | "ribbon" (the kind the filter block's marker shows). */
    kind: string;
    /** Kinds a file at this level may carry under the options (a hybrid Ribbon policy builds Bloom on flush). */
    acceptKinds: string[];
    bitsPerKey?: number;
    blockBased: boolean;
    partitioned: boolean;
    /** As configured, e.g. "bloomfilter:10:false". */
    policy: string;
    /** Why the kind is what it is, when not obvious. */
    why?: string;
  };
  compression?: string;
  formatVersion?: number;
  indexType?: string;
  checksum?: string;
  wholeKeyFiltering?: boolean;
  blockSize?: number;
}

/**
 * Knobs of a file written to `level` under `options`; `isBottom`: the deepest level with data (where
 * optimize_filters_for_hits and bottommost_compression apply).
 */
export function intendedKnobs(options: CfOptionsModel, level: number, isBottom = true): IntendedKnobs {
  const c = configuredKnobs(options);
  const f: ConfiguredFilter = c.filter;
  const fv = c.formatVersion;
  let kind: string;
  let why: string | undefined;
  let accept: string[] | undefined;
  if (f.kind === "none") kind = "none";
  else if (c.optimizeFiltersForHits && isBottom) {
    kind = "none";
    why = "optimize_filters_for_hits=true: no filter on the bottommost level";
  } else if (f.kind === "bloom")
    kind = f.blockBased ? "bloom" : fv !== undefined && fv >= 5 ? "fastbloom" : "bloom";
  else if (f.kind === "ribbon") {
    const bbl = f.bloomBeforeLevel ?? 0;
    kind = level < bbl ? "fastbloom" : "ribbon";
    if (level < bbl) why = `ribbonfilter with bloom_before_level=${bbl}: Bloom at L${level}`;
    // flushes build at "level -1" (Bloom unless bloom_before_level is -1); files keep their filter when
    // moved down, so a Bloom-built file may sit at a Ribbon level
    if (bbl >= 0 && (level === 0 || bbl > 0)) accept = ["ribbon", "fastbloom"];
  } else kind = f.kind;
  return {
    level,
    filter: {
      kind,
      acceptKinds: accept ?? [kind],
      bitsPerKey: kind === "none" ? undefined : f.bitsPerKey,
      blockBased: Boolean(f.blockBased),
      partitioned: kind !== "none" && c.partitionFiltersEffective,
      policy: f.policy,
      why,
    },
    compression: expectedCompression(
      c,
      level,
      isBottom,
      c.levelCompactionDynamicLevelBytes ? level : undefined,
    ),
    formatVersion: fv,
    indexType: c.indexType,
    checksum: c.checksum,
    wholeKeyFiltering: c.wholeKeyFiltering,
    blockSize: c.blockSize,
  };
}

/** FastLocalBloom filter block size (without trailer) for `keys` keys at `bitsPerKey`. */
export function fastBloomBytes(keys: number, bitsPerKey: number): number {
  const millibits = Math.round(bitsPerKey * 1000);
  const raw = Math.ceil((keys * millibits) / 8000);
  return Math.ceil(raw / 64) * 64 + 5;
}

/** Knob names used in plans, refusals and --accept-option-change. */
export const KNOBS = [
  "filter",
  "filter-bits",
  "filter-partitioned",
  "whole-key-filtering",
  "compression",
  "format-version",
  "index-type",
  "checksum",
  "block-size",
] as const;
export type Knob = (typeof KNOBS)[number];

export interface FileKnobCheck {
  knob: Knob;
  carried: string;
  intended: string;
  ok: boolean;
  /** For filter-bits: how it was judged ("exact size", "band"); for block-size: "estimate". */
  how?: string;
}

/** Mean data block size estimate of one file, or undefined when it has fewer than 4 data blocks. */
export function blockSizeEstimate(d: NonNullable<SstFileModel["details"]>): number | undefined {
  if ((d.numDataBlocks ?? 0) < 4) return undefined;
  const b = blockSizeBasisOf(d);
  return b && b.bytes / b.blocks;
}

/** Check one table's knobs against the intent. `details` from inspectDatadir(..., {tableDetails: "cheap"}). */
export function checkFileKnobs(
  d: NonNullable<SstFileModel["details"]>,
  want: IntendedKnobs,
): FileKnobCheck[] {
  const out: FileKnobCheck[] = [];
  const fk = d.filter?.kind ?? "none";
  out.push({
    knob: "filter",
    carried: fk,
    intended: want.filter.acceptKinds.join(" or "),
    ok: want.filter.acceptKinds.includes(fk),
  });
  if (fk !== "none" && want.filter.acceptKinds.includes(fk) && want.filter.bitsPerKey !== undefined) {
    const keys = filterKeysOf(d);
    const measured = d.filter?.bitsPerKey;
    if (fk === "fastbloom" && keys > 0 && d.filterSize !== undefined && !d.filter?.partitioned) {
      const expect = fastBloomBytes(keys, want.filter.bitsPerKey);
      out.push({
        knob: "filter-bits",
        carried: `${measured?.toFixed(2) ?? "?"} bits/key (${d.filterSize} B for ${plural(keys, "key")})`,
        intended: `${want.filter.bitsPerKey} bits/key (${expect} B)`,
        ok: d.filterSize === expect,
        how: "exact size",
      });
    } else if (measured !== undefined) {
      const cf: ConfiguredFilter = {
        policy: want.filter.policy,
        kind: fk === "ribbon" ? "ribbon" : "bloom",
        bitsPerKey: want.filter.bitsPerKey,
      };
      out.push({
        knob: "filter-bits",
        carried: `${measured.toFixed(2)} bits/key`,
        intended: `${want.filter.bitsPerKey} bits/key`,
        ok: keys < 1000 || bitsPlausible(cf, fk, measured),
        how: keys < 1000 ? "too few keys to judge" : "band",
      });
    }
  }
  if (fk !== "none" || want.filter.kind !== "none") {
    const p = Boolean(d.filter?.partitioned);
    if (fk !== "none" && want.filter.kind !== "none")
      out.push({
        knob: "filter-partitioned",
        carried: String(p),
        intended: String(want.filter.partitioned),
        ok: p === want.filter.partitioned,
      });
    const wk = wholeKeyFilteringOf(d);
    if (wk !== undefined && want.wholeKeyFiltering !== undefined && fk !== "none") {
      out.push({
        knob: "whole-key-filtering",
        carried: String(wk),
        intended: String(want.wholeKeyFiltering),
        ok: wk === want.wholeKeyFiltering,
      });
    }
  }
  if (want.compression !== undefined && d.compression !== undefined)
    out.push({
      knob: "compression",
      carried: d.compression,
      intended: want.compression,
      ok: d.compression === want.compression,
    });
  if (want.formatVersion !== undefined && d.formatVersion !== undefined)
    out.push({
      knob: "format-version",
      carried: String(d.formatVersion),
      intended: String(want.formatVersion),
      ok: d.formatVersion === want.formatVersion,
    });
  if (want.indexType !== undefined && d.indexType !== undefined)
    out.push({
      knob: "index-type",
      carried: d.indexType,
      intended: want.indexType,
      ok: d.indexType === want.indexType,
    });
  if (want.checksum !== undefined && d.checksum !== undefined)
    out.push({
      knob: "checksum",
      carried: d.checksum,
      intended: want.checksum,
      ok: d.checksum === want.checksum,
    });
  const bs = blockSizeEstimate(d);
  if (bs !== undefined && want.blockSize !== undefined) {
    out.push({
      knob: "block-size",
      carried: `~${Math.round(bs)} B per data block`,
      intended: `${want.blockSize} B`,
      ok: bs <= 2 * want.blockSize && bs >= 0.5 * want.blockSize,
      how: "estimate",
    });
  }
  return out;
}

/** Per knob over many files: the distinct carried values (with file counts) and whether all are ok. */
export interface KnobRow {
  knob: Knob;
  intended: string;
  /** "LZ4 ×12, Snappy ×1". */
  carried: string;
  files: number;
  /** Files whose value differs from the intent. */
  differing: number;
  how?: string;
}

export function summariseChecks(perFile: FileKnobCheck[][], want: IntendedKnobs): KnobRow[] {
  const rows = new Map<
    Knob,
    { values: Map<string, number>; files: number; differing: number; intended: string; how?: string }
  >();
  for (const checks of perFile) {
    for (const c of checks) {
      let r = rows.get(c.knob);
      if (!r) {
        r = { values: new Map(), files: 0, differing: 0, intended: c.intended, how: c.how };
        rows.set(c.knob, r);
      }
      // per-file sizes differ: show bits/key only
      const shown = c.knob === "filter-bits" ? c.carried.replace(/ \(.*\)$/, "") : c.carried;
      r.values.set(shown, (r.values.get(shown) ?? 0) + 1);
      r.files++;
      if (!c.ok) r.differing++;
      if (c.knob === "filter-bits" || c.knob === "block-size")
        r.intended = c.intended.replace(/ \(.*\)$/, "");
    }
  }
  const out: KnobRow[] = [];
  for (const k of KNOBS) {
    const r = rows.get(k);
    if (!r) {
      const intended = intendedShown(k, want);
      if (intended !== undefined) out.push({ knob: k, intended, carried: "-", files: 0, differing: 0 });
      continue;
    }
    const vals = [...r.values.entries()].sort((a, b) => b[1] - a[1]);
    const carried =
      vals.length > 4 ? `${vals.length} distinct values` : vals.map(([v, n]) => `${v} ×${n}`).join(", ");
    out.push({ knob: k, intended: r.intended, carried, files: r.files, differing: r.differing, how: r.how });
  }
  return out;
}

function intendedShown(k: Knob, w: IntendedKnobs): string | undefined {
  switch (k) {
    case "filter":
      return w.filter.acceptKinds.join(" or ");
    case "filter-bits":
      return w.filter.bitsPerKey !== undefined ? `${w.filter.bitsPerKey} bits/key` : undefined;
    case "filter-partitioned":
      return w.filter.kind !== "none" ? String(w.filter.partitioned) : undefined;
    case "whole-key-filtering":
      return w.wholeKeyFiltering !== undefined ? String(w.wholeKeyFiltering) : undefined;
    case "compression":
      return w.compression;
    case "format-version":
      return w.formatVersion !== undefined ? String(w.formatVersion) : undefined;
    case "index-type":
      return w.indexType;
    case "checksum":
      return w.checksum;
    case "block-size":
      return w.blockSize !== undefined ? `${w.blockSize} B` : undefined;
  }
}
