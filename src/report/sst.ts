/**
 * What `lsmscope sst FILE` reports about one table, as a plain object (JSON) and as text. The command
 * module stays a thin layer over `describeTable`. With `verify`, damage is part of the report
 * (`verify.errors`), not an exception: the report is printed whole and the command exits 2.
 */
import { escapeText, formatBytes, toHex } from "../util/bytes.js";
import { CorruptionError } from "../util/errors.js";
import {
  openTable,
  problemOf,
  verifyTable,
  type BlockHandle,
  type VerifyProblem,
  type FilterInfo,
  type PropertyValue,
  type ScanSummary,
  type SstTable,
  type TableFormat,
} from "../format/index.js";
import { DEFAULT_WIDTH, fitLine, fpText, plural } from "../util/words.js";
import { PEBBLE_ATTRIBUTES } from "../format/footer.js";

/** Names of the bits set in a (Pebble,v7)+ footer's attributes. */
function pebbleAttributeNames(bits: number): string[] {
  return PEBBLE_ATTRIBUTES.filter((_, i) => (bits & (1 << i)) !== 0);
}

export interface TableReport {
  file: string;
  fileSize: number;
  format: TableFormat;
  /** The footer's version: RocksDB's format_version, or Pebble's table format version. */
  formatVersion: number;
  /** Pebble tables: Pebble's name of the format, e.g. "(Pebble,v1)". */
  pebbleFormat?: string;
  checksum: string;
  /**
   * The "rocksdb.compression" property; for a table without one (LevelDB), what its data blocks'
   * trailers say: one name, or "mixed: Snappy ×127, NoCompression ×371".
   */
  compression: string;
  /** Data blocks per compression named by their trailers (when read: a scan, verify, or no property). */
  blockCompression?: Record<string, number>;
  indexType: string;
  footer: {
    magic: string;
    footerOffset: number;
    metaindex: BlockHandle;
    index: BlockHandle;
    baseContextChecksum?: number;
    /** (Pebble,v6)+: the footer's own checksum (checked when the table opened). */
    footerChecksum?: number;
    /** (Pebble,v7)+: the footer's attribute names (what the table holds, by Pebble's writer). */
    attributes?: string[];
  };
  metaBlocks: { name: string; offset: number; size: number }[];
  properties: Record<string, PropertyValue>;
  filter: FilterInfo;
  scan?: {
    entries: number;
    rawKeyBytes: number;
    rawValueBytes: number;
    /** User keys, hex. */
    firstKey: string | null;
    lastKey: string | null;
    dataEntries: number;
    rangeDeletions: number;
    deletions: number;
    mergeOperands: number;
    blobIndexes: number;
    dataBlocks: number;
    /** Pebble tables with a range-key block: its entries by kind. */
    rangeKeys?: { sets: number; unsets: number; deletes: number };
    /** Pebble v3+ tables: SET values kept in value blocks. */
    valuesInValueBlocks?: number;
    valuesInBlobFiles?: number;
  };
  verify?: VerifyReport;
  blocks?: { offset: number; size: number; separator: string; partition?: number }[];
  /** Reads and bytes this report cost. */
  io: { reads: number; bytes: number };
}

/**
 * `checksums: false` when the table stores none (checksum type none): blocks were only decoded.
 * `bytesVerified` counts each block's stored bytes (block + trailer) once.
 */
export interface VerifyReport {
  ok: boolean;
  checksums: boolean;
  blocksVerified: number;
  bytesVerified: number;
  /** Keys were checked to ascend in internal-key order (bytewise comparators only). */
  keyOrderChecked: boolean;
  errors: VerifyProblem[];
}

export interface DescribeOptions {
  scan?: boolean;
  verify?: boolean;
  blocks?: boolean;
}

/** Open, describe and close one table. Throws CorruptionError on bad input. */
export function describeTable(path: string, opts: DescribeOptions = {}): TableReport {
  const t = openTable(path);
  try {
    return buildReport(t, opts);
  } finally {
    t.close();
  }
}

export function buildReport(t: SstTable, opts: DescribeOptions = {}): TableReport {
  const r: TableReport = {
    file: t.path,
    fileSize: t.fileSize,
    format: t.format,
    formatVersion: t.formatVersion,
    ...(t.pebbleFormat ? { pebbleFormat: t.pebbleFormat } : {}),
    checksum: t.checksumType,
    compression: t.compression,
    indexType: t.indexType,
    footer: {
      magic: t.footer.magic,
      footerOffset: t.footer.footerOffset,
      metaindex: t.footer.metaindexHandle,
      index: t.indexHandle,
      ...(t.formatVersion >= 6 && t.footer.magic !== "pebble"
        ? { baseContextChecksum: t.footer.baseContextChecksum }
        : {}),
      ...(t.footer.magic === "pebble" && t.footer.footerChecksum !== undefined
        ? { footerChecksum: t.footer.footerChecksum }
        : {}),
      ...(t.footer.attributes !== undefined ? { attributes: pebbleAttributeNames(t.footer.attributes) } : {}),
    },
    metaBlocks: t.metaindex.map((m) => ({ name: m.name, offset: m.handle.offset, size: m.handle.size })),
    properties: t.properties,
    filter: t.filterInFull,
    io: t.io,
  };
  if (opts.blocks) {
    r.blocks = [];
    let partition = -1;
    let lastPartition: number | undefined;
    const blocks = r.blocks;
    t.forEachIndexEntry((e) => {
      if (e.partition && e.partition.offset !== lastPartition) {
        partition++;
        lastPartition = e.partition.offset;
      }
      blocks.push({
        offset: e.handle.offset,
        size: e.handle.size,
        separator: toHex(e.separator),
        ...(e.partition ? { partition } : {}),
      });
    });
  }
  let summary: ScanSummary | undefined;
  if (opts.verify) {
    const v = verifyTable(t);
    summary = v.summary;
    r.verify = {
      ok: v.ok,
      checksums: v.checksums,
      blocksVerified: v.blocksVerified,
      bytesVerified: v.bytesVerified,
      keyOrderChecked: v.keyOrderChecked,
      errors: v.errors,
    };
  } else if (opts.scan) {
    summary = t.scan();
  }
  const property = t.props.compressionName;
  const blocks = summary?.blockCompression ?? (property === undefined ? t.blockCompression() : undefined);
  if (blocks) r.blockCompression = blocks;
  if (property === undefined && blocks) r.compression = describeBlockCompression(blocks);
  if (opts.scan && summary) {
    r.scan = {
      entries: summary.entries,
      rawKeyBytes: summary.rawKeyBytes,
      rawValueBytes: summary.rawValueBytes,
      firstKey: summary.firstKey ? toHex(summary.firstKey) : null,
      lastKey: summary.lastKey ? toHex(summary.lastKey) : null,
      dataEntries: summary.dataEntries,
      rangeDeletions: summary.rangeDeletions,
      deletions: summary.deletions,
      mergeOperands: summary.mergeOperands,
      blobIndexes: summary.blobIndexes,
      dataBlocks: summary.dataBlocks,
      ...(summary.rangeKeys ? { rangeKeys: summary.rangeKeys } : {}),
      ...(summary.valuesInValueBlocks ? { valuesInValueBlocks: summary.valuesInValueBlocks } : {}),
      ...(summary.valuesInBlobFiles ? { valuesInBlobFiles: summary.valuesInBlobFiles } : {}),
    };
  }
  r.io = { ...t.io };
  return r;
}

/**
 * One compression name for a table's data blocks: the only one, or "mixed: " with the count of each
 * (compressed kinds first, then the blocks stored raw).
 */
export function describeBlockCompression(counts: Record<string, number>): string {
  const entries = Object.entries(counts).filter(([, n]) => n > 0);
  if (entries.length === 0) return "no data blocks";
  if (entries.length === 1) return entries[0]![0];
  entries.sort(([a, x], [b, y]) => Number(a === "NoCompression") - Number(b === "NoCompression") || y - x);
  return "mixed: " + entries.map(([name, n]) => `${name} ×${n}`).join(", ");
}

/** What `sst --verify` reports for a file that cannot even be opened (footer, metaindex, properties). */
export function unopenableTableJson(path: string, err: CorruptionError): object {
  const kind = /^footer\b/.test(err.message) ? "footer" : "table";
  return {
    file: path,
    verify: {
      ok: false,
      checksums: false,
      blocksVerified: 0,
      bytesVerified: 0,
      keyOrderChecked: false,
      errors: [problemOf(err, kind, { offset: err.offset ?? 0, size: 0 })],
    },
  };
}

/** The JSON shape of issue 3 (plus the extra fields above). */
export function reportJson(r: TableReport): object {
  return {
    file: r.file,
    format: r.format,
    formatVersion: r.formatVersion,
    ...(r.pebbleFormat ? { pebbleFormat: r.pebbleFormat } : {}),
    checksum: r.checksum,
    compression: r.compression,
    ...(r.blockCompression ? { blockCompression: r.blockCompression } : {}),
    indexType: r.indexType,
    properties: r.properties,
    filter: r.filter,
    footer: r.footer,
    metaBlocks: r.metaBlocks,
    ...(r.scan ? { scan: r.scan } : {}),
    ...(r.verify ? { verify: r.verify } : {}),
    ...(r.blocks ? { blocks: r.blocks } : {}),
    io: r.io,
  };
}

function fmtFilter(f: FilterInfo): string {
  if (f.kind === "none" && !f.metaBlock) return "none";
  const parts = [f.kind + (f.degenerate ? ` (${f.degenerate})` : "")];
  if (f.partitioned)
    parts.push(`partitioned${f.partitions !== undefined ? ` (${f.partitions} partitions)` : ""}`);
  if (f.blockBased) parts.push("legacy block-based");
  if (f.bitsPerKey !== undefined) parts.push(`${f.bitsPerKey.toFixed(2)} bits/key`);
  if (f.numProbes !== undefined) parts.push(`${f.numProbes} probes`);
  if (f.estimatedFpRate !== undefined) parts.push(`est. FP ${fpText(f.estimatedFpRate)}`);
  if (!f.wholeKeyFiltering)
    parts.push(`prefixes only (${escapeText(f.prefixExtractor ?? "unknown extractor")})`);
  if (f.metaBlock) parts.push(`block ${escapeText(f.metaBlock)}, ${formatBytes(f.filterBytes)}`);
  return parts.join(", ");
}

function formatLabel(r: TableReport): string {
  if (r.format === "block-based") return `block-based v${r.formatVersion}`;
  if (r.format === "pebble") return `Pebble table ${r.pebbleFormat ?? ""}`;
  return r.format;
}

/** The table's report in `width` columns (default 80); long hex keys are cut across lines, never dropped. */
export function renderTableText(r: TableReport, width = DEFAULT_WIDTH): string {
  const out: string[] = [];
  out.push(`${escapeText(r.file)} (${formatBytes(r.fileSize)})`);
  out.push(
    `  format: ${formatLabel(r)}, checksum ${r.checksum}, compression ${escapeText(r.compression)}, index ${r.indexType}`,
  );
  const f = r.footer;
  out.push(
    `  footer @ ${f.footerOffset}: ${f.magic} magic, metaindex @ ${f.metaindex.offset} (${f.metaindex.size} B), index @ ${f.index.offset} (${f.index.size} B)` +
      (f.baseContextChecksum !== undefined
        ? `, base context checksum 0x${f.baseContextChecksum.toString(16)}`
        : ""),
  );
  if (f.footerChecksum !== undefined)
    out.push(
      `  footer checksum 0x${f.footerChecksum.toString(16)}` +
        (f.attributes ? `, attributes: ${f.attributes.join(", ") || "none"}` : ""),
    );
  out.push("  meta blocks:");
  for (const m of r.metaBlocks) out.push(`    ${escapeText(m.name)} @ ${m.offset} (${m.size} B)`);
  out.push(`  filter: ${fmtFilter(r.filter)}`);
  const names = Object.keys(r.properties).sort();
  out.push(`  properties (${names.length}):`);
  for (const n of names) out.push(`    ${escapeText(n)}: ${escapeText(String(r.properties[n]))}`);
  if (r.blocks) {
    out.push(`  data blocks (${r.blocks.length}):`);
    for (const b of r.blocks) {
      out.push(
        `    @ ${b.offset} ${b.size} B  separator ${b.separator}${b.partition !== undefined ? `  partition ${b.partition}` : ""}`,
      );
    }
  }
  if (r.scan) {
    const s = r.scan;
    out.push(
      `  scan: ${plural(s.entries, "entry", "entries")} (${s.dataEntries} in ${s.dataBlocks} data blocks, ${s.rangeDeletions} range deletions; ${s.deletions} deletions, ${s.mergeOperands} merges, ${s.blobIndexes} blob indexes)`,
    );
    if (s.rangeKeys) {
      const k = s.rangeKeys;
      out.push(`        range keys: ${k.sets} sets, ${k.unsets} unsets, ${k.deletes} deletes`);
    }
    if (s.valuesInValueBlocks)
      out.push(`        ${s.valuesInValueBlocks} values in value blocks (counted by their declared length)`);
    if (s.valuesInBlobFiles)
      out.push(`        ${s.valuesInBlobFiles} values in blob files (counted by their declared length)`);
    out.push(`        raw key bytes ${s.rawKeyBytes}, raw value bytes ${s.rawValueBytes}`);
    out.push(`        first key ${s.firstKey ?? "-"}`);
    out.push(`        last key  ${s.lastKey ?? "-"}`);
  }
  if (r.blockCompression) {
    const parts = Object.entries(r.blockCompression).map(([name, n]) => `${escapeText(name)} ${n}`);
    out.push(`  data blocks by compression: ${parts.join(", ")}`);
  }
  out.push(`  io: ${r.io.reads} reads, ${formatBytes(r.io.bytes)}`);
  // the verdict is the last line, below the problems it counts
  if (r.verify) out.push(...renderVerify(r.verify, width));
  return out.flatMap((l) => fitLine(l, width, 2, true)).join("\n") + "\n";
}

function renderVerify(v: VerifyReport, width: number): string[] {
  const what = `${v.blocksVerified} blocks, ${formatBytes(v.bytesVerified)} checked${v.keyOrderChecked ? ", key order checked" : ""}`;
  if (v.ok) return [`  verify: ok, ${what}`];
  const out = ["  verify problems:"];
  for (const e of v.errors) out.push(`    ${e.kind} block @ ${e.offset}: ${escapeText(e.message)}`);
  const verdict = `  verify: FAILED, ${v.errors.length} problem${v.errors.length === 1 ? "" : "s"}`;
  // the verdict is one last line: what was checked goes above it when both do not fit in the width
  if (verdict.length + what.length + 11 <= width) out.push(`${verdict} (${what}); exit 2`);
  else out.push(`  verify checked: ${what}`, `${verdict}; exit 2`);
  return out;
}
