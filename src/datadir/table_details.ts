/**
 * Per-table details for the datadir model through the SST reader (src/format/, its own module): a cheap
 * footer + metaindex + properties read per file, plus the filter's few metadata bytes. Loaded lazily so
 * the model (MANIFEST, OPTIONS, WAL, blob files) works without that module.
 */
import type { Finding, TableDetails } from "./model.js";
import type { SstTable } from "../format/table.js";
import type { TableProperties } from "../format/properties.js";
import { sharedString } from "../util/shared_text.js";
import { TABLE_TAIL_BYTES, TailEstimate } from "../util/tail_estimate.js";
import type { ReadTail } from "../util/tail_batches.js";

export { TABLE_TAIL_BYTES, TailEstimate };

/** The cheap reader of tables' details, and how much of each table's end it reads at once. */
export interface TableDetailsReader {
  /**
   * A table's details, and its size on disk when it opened. `expectedSize`: the size its MANIFEST entry
   * gives (not for a virtual table), which the open then confirms instead of an fstat.
   */
  read(path: string, expectedSize?: number, preread?: ReadTail): { details: TableDetails; size?: number };
  /** Learned from the tables read so far; a read-ahead of the next tables reads as much of each. */
  readonly tail: TailEstimate;
}

/** What the details need of an opened table (the SST reader's SstTable has it). */
export interface DetailsSource {
  formatVersion: number;
  checksumType: string;
  compression: string;
  indexType: string;
  /** The table's typed properties, the fields the details copy. */
  props: Pick<
    TableProperties,
    | "numEntries"
    | "numDataBlocks"
    | "dataSize"
    | "indexSize"
    | "filterSize"
    | "rawKeySize"
    | "rawValueSize"
    | "filterPolicyName"
    | "columnFamilyName"
    | "all"
  >;
  filter: { kind: string; partitioned: boolean; bitsPerKey?: number; estimatedFpRate?: number };
}

/**
 * Called with each table the details reader opened (the SST reader's SstTable), after its details and
 * before it closes: for a caller that keeps something of every table (check keeps their filters for its
 * lookups). True when the caller keeps the table itself (check keeps it parsed for its lookups:
 * lsm/kept_tables.ts): the reader does not close it then. Must not throw.
 */
export type TableReadHook = (table: SstTable) => boolean | void;

interface FormatModule {
  openTable(
    path: string,
    opts: { prefetchTail: number; expectedSize?: number; preread?: ReadTail },
  ): SstTable;
}

export async function loadTableDetailsReader(
  findings: Finding[],
  root: string,
  onTable?: TableReadHook,
): Promise<TableDetailsReader | undefined> {
  let mod: FormatModule;
  try {
    // a literal specifier: the CLI bundle (scripts/bundle-cli.mjs) then holds the reader once, where a
    // computed one loaded tsc's copy of src/format/ beside the bundle's (its ~40 modules twice)
    mod = (await import("../format/index.js")) as FormatModule;
    if (typeof mod.openTable !== "function") throw new Error("no openTable export");
  } catch (e) {
    findings.push({
      severity: "info",
      code: "table-details-unavailable",
      file: root,
      message: `the SST reader is not available: per-table details skipped (${(e as Error).message})`,
    });
    return undefined;
  }
  const tail = new TailEstimate();
  const read = (path: string, expectedSize?: number, preread?: ReadTail) => {
    let t: ReturnType<FormatModule["openTable"]> | undefined;
    let kept = false;
    try {
      t = mod.openTable(path, { prefetchTail: tail.bytes, expectedSize, preread });
      const details = tableDetailsOf(t);
      kept = onTable?.(t) === true;
      return { details, size: t.fileSize };
    } catch (e) {
      return { details: { error: (e as Error).message }, size: t?.fileSize };
    } finally {
      if (t) {
        tail.note(t.tailReach);
        if (!kept) t.close();
      }
    }
  };
  return { read, tail };
}

/**
 * Worker results arrive as structured clones: their properties a hash table again (~1.6 KiB per table
 * for RocksDB's ~38 properties against ~0.4 KiB as a plain object sharing its layout with every table's)
 * and their text one copy per table. Compacted as the SST reader's own record is (PropertiesBuilder);
 * same keys in the same order, so the JSON is unchanged.
 */
export function compactDetails(d: TableDetails): TableDetails {
  if (d.properties)
    d.properties = Object.fromEntries(
      Object.entries(d.properties).map(([k, v]) => [k, typeof v === "string" ? sharedString(v) : v]),
    );
  for (const k of ["checksum", "compression", "indexType", "filterPolicy", "columnFamilyName"] as const) {
    const v = d[k];
    if (v !== undefined) d[k] = sharedString(v);
  }
  return d;
}

/** The details of an opened table: its properties and the filter's metadata (a filter error is noted). */
export function tableDetailsOf(t: DetailsSource): TableDetails {
  const p = t.props;
  // the filter first, so that each record is one object literal (V8 keeps a literal's fields in the
  // object; a field added afterwards takes a separate array: ~30 bytes more per table, kept per table)
  let filter: TableDetails["filter"];
  let error: string | undefined;
  try {
    const f = t.filter;
    const kind = sharedString(f.kind);
    filter =
      f.estimatedFpRate === undefined
        ? { kind, partitioned: f.partitioned, bitsPerKey: f.bitsPerKey }
        : { kind, partitioned: f.partitioned, bitsPerKey: f.bitsPerKey, estimatedFpRate: f.estimatedFpRate };
  } catch (e) {
    error = `filter: ${(e as Error).message}`;
  }
  const d: TableDetails = {
    formatVersion: t.formatVersion,
    checksum: sharedString(t.checksumType),
    compression: sharedString(t.compression),
    indexType: sharedString(t.indexType),
    numEntries: p.numEntries,
    numDataBlocks: p.numDataBlocks,
    dataSize: p.dataSize,
    indexSize: p.indexSize,
    filterSize: p.filterSize,
    rawKeySize: p.rawKeySize,
    rawValueSize: p.rawValueSize,
    filterPolicy: sharedString(p.filterPolicyName),
    columnFamilyName: sharedString(p.columnFamilyName),
    // the SST reader's record is already compact (format/properties.ts PropertiesBuilder)
    properties: p.all,
    filter,
  };
  if (error !== undefined) d.error = error;
  return d;
}

/*
 * Readers of a table's knobs from its details, for the analyses that tally or check them (analysis/
 * carried.ts, compact/intended.ts). The SST reader has its own twins over its TableProperties
 * (format/filter_reader.ts filterEntries, format/properties.ts wholeKeyFiltering): the datadir model
 * loads that module lazily, so these read the details' copy of the same properties by the same rules.
 */

/**
 * Keys the table's filter holds: "rocksdb.num.filter_entries" when above 0, else its entry count (0 when
 * it has none). As the SST reader's filterEntries: only a numeric property counts (a malformed or
 * past-2^53 value, rendered as text, falls back to the entry count).
 */
export function filterKeysOf(d: TableDetails): number {
  const fe = d.properties?.["rocksdb.num.filter_entries"];
  return typeof fe === "number" && fe > 0 ? fe : (d.numEntries ?? 0);
}

/**
 * Whole-key filtering as the table records it ("rocksdb.block.based.table.whole.key.filtering": "0" is
 * false, any other value true), or undefined when it records none.
 */
export function wholeKeyFilteringOf(d: TableDetails): boolean | undefined {
  const v = d.properties?.["rocksdb.block.based.table.whole.key.filtering"];
  return v === undefined ? undefined : String(v) !== "0";
}

/** The bytes and data blocks a table's mean data block size is estimated from (blockSizeBasisOf). */
export interface BlockSizeBasis {
  bytes: number;
  blocks: number;
  basis: "uncompressed" | "raw-upper-bound";
}

/**
 * What one table's mean data block size is estimated from (no property records the configured block
 * size): the data size of an uncompressed table (exact, block trailers included), else its raw key +
 * value bytes (an upper bound: they ignore prefix compression), over its data blocks. Undefined for a
 * table without data blocks or without those sizes. Callers keep their own threshold and aggregation.
 */
export function blockSizeBasisOf(d: TableDetails): BlockSizeBasis | undefined {
  const blocks = d.numDataBlocks ?? 0;
  if (!(blocks > 0)) return undefined;
  if (d.compression === "NoCompression" && d.dataSize !== undefined)
    return { bytes: d.dataSize, blocks, basis: "uncompressed" };
  if (d.rawKeySize !== undefined && d.rawValueSize !== undefined)
    return { bytes: d.rawKeySize + d.rawValueSize, blocks, basis: "raw-upper-bound" };
  return undefined;
}
