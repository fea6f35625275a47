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
} from "../format/index.js";
import { plural } from "../util/words.js";

export interface TableReport {
  file: string;
  fileSize: number;
  format: "block-based" | "leveldb";
  formatVersion: number;
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
  };
  /** `checksums: false` when the table stores none (checksum type none): blocks were only decoded. */
  verify?: { ok: true; checksums: boolean; blocksVerified: number; bytesVerified: number };
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
    summary = t.scan();
    if (opts.verify) {
      const v = t.verifyAllBlocks();
      r.verify = {
        ok: true,
        checksums: t.checksumType !== "none",
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
    };
  }
  r.io = { ...t.io };
  return r;
}

/** The JSON shape of issue 3 (plus the extra fields above). */
export function reportJson(r: TableReport): object {
  return {
    file: r.file,
    format: r.format,
    formatVersion: r.formatVersion,
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

export function renderTableText(r: TableReport): string {
  const out: string[] = [];
  out.push(`${escapeText(r.file)} (${formatBytes(r.fileSize)})`);
  out.push(
    `  format: ${r.format}${r.format === "block-based" ? ` v${r.formatVersion}` : ""}, checksum ${r.checksum}, compression ${escapeText(r.compression)}, index ${r.indexType}`,
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
      `  scan: ${plural(s.entries, "entry", "entries")} (${s.dataEntries} in ${s.dataBlocks} data blocks, ${s.rangeDeletions} range deletions; ${s.deletions} deletions, ${s.mergeOperands} merges, ${s.blobIndexes} blob indexes)`,
    );
    out.push(`        raw key bytes ${s.rawKeyBytes}, raw value bytes ${s.rawValueBytes}`);
    out.push(`        first key ${s.firstKey ?? "-"}`);
    out.push(`        last key  ${s.lastKey ?? "-"}`);
  }
  if (r.verify)
    out.push(
      `  verify: ok, ${plural(r.verify.blocksVerified, "block")}, ${formatBytes(r.verify.bytesVerified)} checked`,
    );
  out.push(`  io: ${r.io.reads} reads, ${formatBytes(r.io.bytes)}`);
  return out.join("\n") + "\n";
}
