/**
 * What `lsmscope sst FILE` reports about one table, as a plain object (JSON) and as text. The command
 * module stays a thin layer over `describeTable`.
 */
import { escapeText, formatBytes, toHex } from "../util/bytes.js";
import {
  openTable,
  type BlockHandle,
  type FilterInfo,
  type PropertyValue,
  type ScanSummary,
  type SstTable,
  type TableFormat,
  type EntryView,
} from "../format/index.js";
import { CorruptionError } from "../util/errors.js";

export interface TableReport {
  file: string;
  fileSize: number;
  format: TableFormat;
  /** The footer's version: RocksDB's format_version, or Pebble's table format version. */
  formatVersion: number;
  /** Pebble tables: Pebble's name of the format, e.g. "(Pebble,v1)". */
  pebbleFormat?: string;
  checksum: string;
  compression: string;
  indexType: string;
  footer: {
    magic: string;
    footerOffset: number;
    metaindex: BlockHandle;
    index: BlockHandle;
    baseContextChecksum?: number;
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
  };
  /** `checksums: false` when the table stores none (checksum type none): blocks were only decoded. */
  verify?: {
    ok: true;
    checksums: boolean;
    /** Whether the data entries were checked to be in internal-key order (bytewise comparators only). */
    keyOrder: string;
    blocksVerified: number;
    bytesVerified: number;
  };
  blocks?: { offset: number; size: number; separator: string; partition?: number }[];
  /** Reads and bytes this report cost. */
  io: { reads: number; bytes: number };
}

export interface DescribeOptions {
  scan?: boolean;
  verify?: boolean;
  blocks?: boolean;
}

/** Open, describe and close one table. Throws CorruptionError on bad input. */
export function describeTable(path: string, opts: DescribeOptions = {}): TableReport {
  const t = openTable(path, { verifyChecksums: Boolean(opts.verify) });
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
      ...(t.formatVersion >= 6 ? { baseContextChecksum: t.footer.baseContextChecksum } : {}),
    },
    metaBlocks: t.metaindex.map((m) => ({ name: m.name, offset: m.handle.offset, size: m.handle.size })),
    properties: t.properties,
    filter: t.filter,
    io: t.io,
  };
  if (opts.blocks) {
    r.blocks = [];
    let partition = -1;
    let lastPartition: number | undefined;
    for (const e of t.iterateIndex()) {
      if (e.partition && e.partition.offset !== lastPartition) {
        partition++;
        lastPartition = e.partition.offset;
      }
      r.blocks.push({
        offset: e.handle.offset,
        size: e.handle.size,
        separator: toHex(e.separator),
        ...(e.partition ? { partition } : {}),
      });
    }
  }
  let summary: ScanSummary | undefined;
  if (opts.scan || opts.verify) {
    const before = { ...t.io };
    const order = opts.verify ? keyOrderChecker(t) : undefined;
    summary = t.scan(order);
    if (opts.verify) {
      const v = t.verifyAllBlocks();
      r.verify = {
        ok: true,
        checksums: t.checksumType !== "none",
        keyOrder: order ? "checked" : `not checked (comparator ${t.comparator})`,
        blocksVerified: v.blocks + summary.dataBlocks,
        bytesVerified: v.bytes + (t.io.bytes - before.bytes),
      };
    }
  }
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
    };
  }
  r.io = { ...t.io };
  return r;
}

const BYTEWISE = new Set(["leveldb.BytewiseComparator", "rocksdb.BytewiseComparator"]);

/**
 * A scan visitor that throws on the first data entry out of internal-key order: user keys ascending,
 * and for one user key, sequence numbers descending. Only for bytewise comparators (undefined otherwise).
 */
function keyOrderChecker(t: SstTable): ((e: EntryView) => void) | undefined {
  if (!BYTEWISE.has(t.comparator)) return undefined;
  let prev: Buffer | undefined;
  let prevSeqno = 0;
  let n = 0;
  return (e) => {
    if (!e.blockHandle) return; // range deletions are checked as the block they are
    const uk = e.key.subarray(0, e.userKeyLength);
    if (prev) {
      const c = Buffer.compare(prev, uk);
      if (c > 0 || (c === 0 && e.seqno > prevSeqno)) {
        throw new CorruptionError(
          `keys out of order: entry ${n} (${toHex(uk)} #${e.seqno}) sorts before the entry above it (${toHex(prev)} #${prevSeqno})`,
          t.path,
          e.blockHandle.offset,
        );
      }
    }
    prev = Buffer.from(uk);
    prevSeqno = e.seqno;
    n++;
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
  if (f.estimatedFpRate !== undefined) parts.push(`est. FP ${(f.estimatedFpRate * 100).toFixed(3)}%`);
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

export function renderTableText(r: TableReport): string {
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
      `  scan: ${s.entries} entries (${s.dataEntries} in ${s.dataBlocks} data blocks, ${s.rangeDeletions} range deletions; ${s.deletions} deletions, ${s.mergeOperands} merges, ${s.blobIndexes} blob indexes)`,
    );
    if (s.rangeKeys) {
      const k = s.rangeKeys;
      out.push(`        range keys: ${k.sets} sets, ${k.unsets} unsets, ${k.deletes} deletes`);
    }
    if (s.valuesInValueBlocks)
      out.push(`        ${s.valuesInValueBlocks} values in value blocks (counted by their declared length)`);
    out.push(`        raw key bytes ${s.rawKeyBytes}, raw value bytes ${s.rawValueBytes}`);
    out.push(`        first key ${s.firstKey ?? "-"}`);
    out.push(`        last key  ${s.lastKey ?? "-"}`);
  }
  if (r.verify)
    out.push(
      `  verify: ok, ${r.verify.blocksVerified} blocks, ${formatBytes(r.verify.bytesVerified)} checked, key order ${r.verify.keyOrder}`,
    );
  out.push(`  io: ${r.io.reads} reads, ${formatBytes(r.io.bytes)}`);
  return out.join("\n") + "\n";
}
