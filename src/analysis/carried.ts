/**
 * The carried side of the knobs: what a column family's tables actually carry (filter kind and bits/key,
 * compression, format version, index type, checksum, estimated block size), tallied per level and for the
 * whole column family from the per-file details the SST reader filled in (`SstFileModel.details`).
 *
 * Block size: no property records the configured block size; it is estimated per file from the data
 * size over the data blocks: exactly (uncompressed files), or as an upper bound from raw key+value bytes
 * (compressed files; raw sizes ignore prefix compression, so they overestimate).
 */
import type { ColumnFamilyModel, SstFileModel, TableDetails } from "../datadir/model.js";
import { bottomLevelOf } from "../datadir/placement.js";
import { blockSizeBasisOf, filterKeysOf, wholeKeyFilteringOf } from "../datadir/table_details.js";
import type { CarriedKnobs, CarriedLevel, Tally } from "./knob_types.js";
import { int } from "../util/words.js";

/** Shown form of a file's filter: "none", "fastbloom ~10", "ribbon ~7 partitioned". */
export function fileFilterKey(f: TableDetails["filter"]): string {
  if (!f || f.kind === "none") return "none";
  let s = f.kind;
  if (f.bitsPerKey !== undefined && Number.isFinite(f.bitsPerKey)) s += ` ~${Math.round(f.bitsPerKey)}`;
  if (f.partitioned) s += " partitioned";
  return s;
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

/** Tallies as shown in a finding's carried value: "LZ4: 3 files, Snappy: 1 file" ("-" for none). */
export const formatTallies = (ts: Tally[], unit = "files"): string =>
  ts.length === 0
    ? "-"
    : ts.map((t) => `${t.key}: ${t.files} ${t.files === 1 ? unit.replace(/s$/, "") : unit}`).join(", ");

/** Files with fewer filter keys than this do not count for the bits/key check (cache-line rounding). */
export const MIN_KEYS_FOR_BITS = 1000;

/**
 * "bits/key" is the entry-weighted stored bits/key over every filtered table (`filterBitsPerKey`: the
 * knob table, the level rows, the HTML report). The figure the filter-bits check and options-mismatch
 * judge (`filterBitsPerKeyLarge`) is said under this name wherever it is printed.
 */
export const LARGE_FILTER_BITS_NAME = `bits/key over tables of ≥ ${int(MIN_KEYS_FOR_BITS)} filter keys`;

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
    const wk = wholeKeyFilteringOf(det);
    if (wk !== undefined) wholeKey.add(String(wk), size);
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
      const keys = filterKeysOf(det);
      if (keys >= MIN_KEYS_FOR_BITS) {
        largeWeighted += det.filter.bitsPerKey * keys;
        largeWeight += keys;
      }
    }
    const bs = blockSizeBasisOf(det);
    if (bs?.basis === "uncompressed") {
      bsUncBytes += bs.bytes;
      bsUncBlocks += bs.blocks;
      bsUncFiles++;
    } else if (bs) {
      bsRawBytes += bs.bytes;
      bsRawBlocks += bs.blocks;
      bsRawFiles++;
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

// the library has exported it from here (src/index.ts: analysis/knobs.ts); it lives with the placement
export { bottomLevelOf };

/** Knobs carried by a CF's files, per level and in all. */
export function carriedKnobs(cf: ColumnFamilyModel): CarriedKnobs {
  const levels = cf.levels.map((l) => carriedLevel(l.level, l.files));
  const all = carriedLevel(
    -1,
    cf.levels.flatMap((l) => l.files),
  );
  return { levels, all, bottomLevel: bottomLevelOf(cf.levels) };
}
