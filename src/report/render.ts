/**
 * Text rendering of the inspect report (build.ts): per instance its files, WAL state and findings; per
 * column family the options in force beside what the files carry, the level layout and the flags.
 * Every string that came from a file goes through escapeText; byte strings are already hex in the model.
 */
import { escapeText, formatBytes } from "../util/bytes.js";
import {
  describeConfiguredFilter,
  type CarriedLevel,
  type ConfiguredKnobs,
  type Tally,
} from "../analysis/knobs.js";
import {
  shownFindings,
  type CfReport,
  type FlagSeverity,
  type InspectReport,
  type InstanceReport,
} from "./build.js";
import { relative, sep } from "node:path";
import type { CfLayout } from "../analysis/layout.js";
import { placementBottomName, placementDefinition } from "../datadir/placement.js";
import { bloomEquivalentFpRate } from "../format/filter_bits.js";
import { identityLines } from "../identity/render.js";
import { freezerLines } from "../freezer/render.js";
import { DEFAULT_WIDTH, fitLine, fitLineKeepingTail, fpText, int, pct, plural } from "../util/words.js";
import { fitTable, wrappedTable } from "../util/text_table.js";
import { instanceLabel } from "../datadir/names.js";
import { pebbleCfLines } from "./pebble_render.js";

const e = escapeText;

export interface RenderOptions {
  /** Include column families that hold nothing (default: one summary line). */
  showEmpty?: boolean;
  /** Columns every line fits in (default 80): prose wraps with a hanging indent, tables narrow. */
  width?: number;
}

const MARK: Record<FlagSeverity, string> = { error: "!!", warn: "! ", info: "· " };

export { int, pct, plural } from "../util/words.js";
export { table } from "../util/text_table.js";

/** Tallies as "LZ4 ×270, Snappy ×7". */
export function tallies(ts: readonly Tally[]): string {
  return ts.length === 0 ? "-" : ts.map((t) => `${e(t.key)} ×${t.files}`).join(", ");
}

function compressionConfigured(c: ConfiguredKnobs): string {
  let s = c.compressionPerLevel ? `per level ${c.compressionPerLevel.join(":")}` : (c.compression ?? "-");
  if (c.bottommostCompression) s += `, bottommost ${c.bottommostCompression}`;
  return s;
}

function blockSizeCarried(all: CarriedLevel): string {
  const b = all.blockSize;
  if (!b) return "-";
  return b.basis === "uncompressed"
    ? `mean ${formatBytes(Math.round(b.meanBytes))} per block (uncompressed files, ${plural(b.dataBlocks, "block")})`
    : // raw key+value bytes over the blocks: the mean uncompressed block is at most this (keys are prefix-coded)
      `mean ~${formatBytes(Math.round(b.meanBytes))} per block (raw key+value bytes / ${plural(b.dataBlocks, "block")})`;
}

function filterPerLevel(c: CfReport): string {
  const lv = c.knobs.carried.levels.filter((l) => l.files > 0);
  if (lv.length === 0) return "-";
  return lv.map((l) => `L${l.level}: ${l.filesRead ? tallies(l.filter) : "not read"}`).join(" · ");
}

function knobRows(c: CfReport): string[][] {
  const k = c.knobs;
  const cfg = k.configured;
  const all = k.carried.all;
  const rows: string[][] = [["knob", "OPTIONS", "files carry"]];
  const no = "-";
  const blob = cfg?.blob;
  const opt = (v: string | number | boolean | undefined): string => (v === undefined ? no : e(String(v)));
  rows.push(["filter", cfg ? e(describeConfiguredFilter(cfg.filter)) : no, filterPerLevel(c)]);
  if (all.filterBitsPerKey !== undefined) {
    const ribbon = cfg?.filter.kind === "ribbon" && all.filterKind.some((t) => t.key === "ribbon");
    rows.push([
      "filter bits/key",
      cfg?.filter.bitsPerKey !== undefined
        ? `${cfg.filter.bitsPerKey}${ribbon ? " (Bloom-equivalent)" : ""}`
        : no,
      `${all.filterBitsPerKey.toFixed(1)} stored (entry-weighted)`,
    ]);
    const want = cfg?.filter.bitsPerKey;
    if (want !== undefined && all.filterFpRate !== undefined && cfg?.filter.kind !== "none")
      rows.push([
        "filter FP rate",
        `~${fpText(bloomEquivalentFpRate(want))} (Bloom, ${want} bits/key)`,
        `~${fpText(all.filterFpRate)} (estimated from the filters)`,
      ]);
    if (ribbon) rows.push(["", "", "Ribbon: that FP rate at ~30% fewer bits (not drift)"]);
  }
  rows.push(["compression", cfg ? e(compressionConfigured(cfg)) : no, tallies(all.compression)]);
  rows.push(["format version", opt(cfg?.formatVersion), tallies(all.formatVersion)]);
  rows.push(["index type", opt(cfg?.indexType), tallies(all.indexType)]);
  rows.push(["checksum", opt(cfg?.checksum), tallies(all.checksum)]);
  rows.push(["block size", opt(cfg?.blockSize), blockSizeCarried(all)]);
  if (cfg?.partitionFilters !== undefined || all.filterPartitioned > 0)
    rows.push([
      "partition filters",
      cfg?.partitionFilters === undefined
        ? no
        : `${cfg.partitionFilters}${cfg.partitionFilters && !cfg.partitionFiltersEffective ? " (no effect)" : ""}`,
      all.filesRead ? `${all.filterPartitioned} of ${all.filesRead} partitioned` : no,
    ]);
  rows.push(["whole-key filtering", opt(cfg?.wholeKeyFiltering), tallies(all.wholeKeyFiltering)]);
  rows.push(["opt. filters for hits", opt(cfg?.optimizeFiltersForHits), ""]);
  if (cfg?.blockRestartInterval !== undefined || cfg?.dataBlockIndexType !== undefined)
    rows.push([
      "restart int. / data idx",
      `${opt(cfg?.blockRestartInterval)} / ${opt(cfg?.dataBlockIndexType)}`,
      "",
    ]);
  if (cfg?.prefixExtractor !== undefined && cfg.prefixExtractor !== "nullptr")
    rows.push(["prefix extractor", e(cfg.prefixExtractor), ""]);
  const lb = c.layout.blob;
  // Pebble's value separation: its OPTIONS name no blob compression; its blob files have no records
  const pebbleBlobs = c.cf.pebbleBlobFiles;
  if (blob?.enableBlobFiles || lb.files > 0 || pebbleBlobs?.length)
    rows.push([
      "blob files",
      blob?.enableBlobFiles
        ? `on, min ${blob.minBlobSize ?? 0} B` +
          (cfg?.tableFactory === "pebble"
            ? ""
            : `, ${e(blob.blobCompression ?? "NoCompression")}${blob.enableBlobGarbageCollection ? ", GC" : ""}`)
        : blob
          ? "off"
          : no,
      lb.files > 0
        ? `${plural(lb.files, "file")} ${formatBytes(lb.fileBytes)}, ${plural(lb.blobs, "record")} ${formatBytes(lb.recordBytes)}, garbage ${formatBytes(lb.garbageRecordBytes)} (${pct(lb.garbageShare)})` +
          (lb.missing ? `, ${lb.missing} missing` : "")
        : pebbleBlobs?.length
          ? `${plural(pebbleBlobs.length, "file")} ${formatBytes(lb.fileBytes)}, values ${formatBytes(pebbleBlobs.reduce((n, b) => n + b.valueBytes, 0))}`
          : "none",
    ]);
  return rows;
}

function blockEstimate(l: CarriedLevel | undefined): string {
  const b = l?.blockSize;
  if (!b) return "-";
  return `${b.basis === "uncompressed" ? "" : "~"}${formatBytes(Math.round(b.meanBytes))}`;
}

function levelRows(c: CfReport): string[][] {
  const all = c.knobs.carried.all;
  // knobs that vary inside the CF get a column per level; uniform ones are in the knob table above
  const varying: [string, (l: CarriedLevel) => Tally[]][] = (
    [
      ["format", (l) => l.formatVersion],
      ["index", (l) => l.indexType],
      ["checksum", (l) => l.checksum],
    ] as [string, (l: CarriedLevel) => Tally[]][]
  ).filter(([, get]) => get(all).length > 1);
  const rows: string[][] = [
    [
      "level",
      "files",
      "bytes",
      "share",
      "file sizes",
      "entries",
      "filters",
      "bits/key",
      "compression",
      "block≈",
      ...varying.map(([n]) => n),
    ],
  ];
  const carried = new Map(c.knobs.carried.levels.map((l) => [l.level, l]));
  for (const l of c.layout.levels) {
    if (l.files === 0) continue;
    const k = carried.get(l.level);
    const sizes =
      l.minFileBytes === l.maxFileBytes
        ? formatBytes(l.minFileBytes ?? 0)
        : `${formatBytes(l.minFileBytes ?? 0)}..${formatBytes(l.maxFileBytes ?? 0)}`;
    const filters =
      l.unknownFilterFiles === l.files
        ? "not read"
        : `${l.filteredFiles} with, ${l.unfilteredFiles} without` +
          (l.unknownFilterFiles ? `, ${l.unknownFilterFiles} unread` : "");
    rows.push([
      `L${l.level}`,
      int(l.files),
      formatBytes(l.bytes),
      pct(l.shareOfBytes),
      sizes,
      l.entries !== undefined ? int(l.entries) : "-",
      filters,
      k?.filterBitsPerKey !== undefined ? k.filterBitsPerKey.toFixed(1) : "-",
      k ? tallies(k.compression) : "-",
      blockEstimate(k),
      ...varying.map(([, get]) => (k ? tallies(get(k)) : "-")),
    ]);
  }
  return rows;
}

/** Per-file filter presence where a level mixes files with and without a filter (up to 8 named). */
function mixedFilterLines(c: CfReport): string[] {
  const out: string[] = [];
  for (const l of c.cf.levels) {
    const without = l.files.filter((f) => f.details?.filter?.kind === "none");
    const withF = l.files.filter((f) => f.details?.filter && f.details.filter.kind !== "none");
    if (without.length === 0 || withF.length === 0) continue;
    const few = without.length <= withF.length;
    const named = (few ? without : withF).slice(0, 8).map((f) => f.fileName);
    const more = (few ? without : withF).length - named.length;
    out.push(
      `  L${l.level} files ${few ? "without" : "with"} a filter: ${named.join(", ")}${more > 0 ? ` (+${more})` : ""}`,
    );
  }
  return out;
}

/** "above L3: 12 files, 3.1 MiB (4.2% of the bytes), 1,234 entries · L0: 2 files (trigger 4) · …". */
export function placementText(L: CfLayout): string {
  const p = L.placement;
  if (!p) return "no SSTs";
  return (
    `above ${placementBottomName(p)}: ${plural(p.filesAboveBottom, "file")}, ${formatBytes(p.bytesAboveBottom)} (${pct(p.byteShareAboveBottom)})` +
    (L.entriesAboveBottom !== undefined && p.filesAboveBottom > 0
      ? `, ${plural(L.entriesAboveBottom, "entry", "entries")}`
      : "") +
    ` · L0: ${plural(L.l0Files, "file")}${L.l0Trigger !== undefined ? ` (trigger ${L.l0Trigger})` : ""}` +
    ` · up to ${plural(L.maxFilesPerLookup, "table")} per lookup`
  );
}

function deepRows(c: CfReport): string[][] {
  const rows: string[][] = [
    ["level", "tables", "data blocks", "stored bytes/block (min..mean..max)", "index≠props", "errors"],
  ];
  for (const d of c.deepLevels ?? []) {
    const mean = d.dataBlocks ? d.dataBlockBytes / d.dataBlocks : 0;
    rows.push([
      `L${d.level}`,
      int(d.tables),
      int(d.dataBlocks),
      d.dataBlocks
        ? `${formatBytes(d.minBlockBytes ?? 0)}..${formatBytes(Math.round(mean))}..${formatBytes(d.maxBlockBytes ?? 0)}`
        : "-",
      String(d.disagreeing),
      String(d.errors),
    ]);
  }
  return rows;
}

/** A flag or finding: its text hangs under the code, after the severity mark. */
const markLine = (line: string, width: number): string[] => fitLine(line, width, 3);

/**
 * One column family's section within `width` columns (the terminal, or the TUI's pane): the knob table's
 * cells wrap under their column, the level table splits into column groups, prose wraps.
 */
export function renderCf(c: CfReport, opts: { width?: number } = {}): string[] {
  const width = opts.width ?? DEFAULT_WIDTH;
  const out: string[] = [];
  const L = c.layout;
  const n = c.cf.totals.entries;
  const entries = L.files > 0 ? ` · ${n === null ? "unknown entries" : plural(n, "entry", "entries")}` : "";
  out.push(
    `── ${e(c.cf.displayName)}  (cf ${c.cf.id}${c.cf.name !== c.cf.displayName ? `, name ${e(c.cf.name)}` : ""}) · ${plural(L.files, "SST")} · ${formatBytes(L.bytes)}${entries}` +
      (c.cf.totals.blobFiles
        ? ` · ${plural(c.cf.totals.blobFiles, "blob file")} ${formatBytes(L.blob.fileBytes)}`
        : "") +
      ` · total ${formatBytes(L.bytes + L.blob.fileBytes)}`,
  );
  if (!c.cf.options) out.push("  (no OPTIONS entry for this column family)");
  out.push(...wrappedTable(knobRows(c), width));
  if (L.files > 0) {
    out.push("");
    out.push(...fitTable(levelRows(c), width, new Set([1, 2, 3, 5, 7, 9])));
    out.push(...mixedFilterLines(c));
    out.push(`  ${placementText(L)}`);
    out.push(`    (${placementDefinition(L.placement!)})`);
  }
  out.push(...pebbleCfLines(c.cf));
  if (L.unflushedWrites > 0) out.push(`  unflushed writes in live WALs: ${int(L.unflushedWrites)}`);
  if (c.keyCategories && c.keyCategories.length)
    out.push(
      `  geth key categories (files' smallest/largest keys): ${c.keyCategories.map((t) => `${t.key} ×${t.files}`).join(", ")}`,
    );
  if (c.deepLevels && c.deepLevels.length) {
    out.push("");
    out.push(...fitTable(deepRows(c), width, new Set([1, 2, 4, 5])));
  }
  for (const f of c.flags) out.push(...markLine(`  ${MARK[f.severity]} ${f.id}: ${e(f.message)}`, width));
  return out.flatMap((l) => fitLine(l, width));
}

function walLines(i: InstanceReport["instance"]): string[] {
  return i.wal.map((w) => {
    const seq = w.firstSeq !== undefined ? `, seq ${w.firstSeq}..${w.lastSeq}` : "";
    return (
      `  WAL ${e(w.file)}: ${formatBytes(w.size)}, ${plural(w.records, "record")}${seq}, ${w.livenessUnknown ? "liveness unknown" : w.live ? "live" : "not needed for recovery"}: ${e(w.summary)}` +
      (w.tail ? ` (tail: ${e(w.tail.kind)}, ${w.tail.bytes} bytes at ${w.tail.offset})` : "")
    );
  });
}

function instanceHeader(r: InstanceReport, root: string): string[] {
  const i = r.instance;
  const out: string[] = [];
  const d = i.clientDetail;
  const who = [
    i.client,
    d?.database ? `database ${e(d.database)}` : "",
    d?.network ? `network ${e(d.network)}` : "",
    d?.besuFormat ? `${e(d.besuFormat)}${d.besuVersion !== undefined ? ` v${d.besuVersion}` : ""}` : "",
    d?.role ? e(d.role) : "",
  ]
    .filter(Boolean)
    .join(", ");
  out.push(`══ ${e(instanceLabel(i))}  [${i.engine}; ${who}]`);
  if (!i.readable) {
    const why = i.manifest
      ? `: ${e(i.manifest.file)} does not decode, so levels and files are unknown (see findings)`
      : "";
    out.push(`  not readable${why}`);
    out.push(...walLines(i));
    return out;
  }
  const parts: string[] = [];
  if (i.manifest) parts.push(`${e(i.manifest.file)} (last sequence ${int(i.manifest.lastSequence)})`);
  // a Pebble store's OPTIONS file is named below, with Pebble's version of its format
  if (i.options && i.engine !== "pebble")
    parts.push(
      `${e(i.options.file)}${i.options.rocksdbVersion ? ` written by RocksDB ${e(i.options.rocksdbVersion)}` : ""}`,
    );
  else if (i.engine === "rocksdb") parts.push("no OPTIONS file");
  const pb = i.pebble;
  if (pb) {
    if (pb.formatMajorVersion !== undefined)
      parts.push(
        `format major version ${pb.formatMajorVersion}${pb.formatMajorVersionName ? ` (${pb.formatMajorVersionName})` : ""}`,
      );
    parts.push(
      pb.options
        ? `${e(pb.options.file)}${pb.options.pebbleVersion ? ` (Pebble OPTIONS ${e(pb.options.pebbleVersion)})` : ""}`
        : "no OPTIONS file",
    );
  }
  parts.push(`${plural(i.columnFamilies.length, "column family", "column families")}`);
  out.push("  " + parts.join(" · "));
  const t = i.totals;
  out.push(
    `  totals: ${plural(t.sstFiles, "SST")} ${formatBytes(t.sstBytes)} · ${plural(t.blobFiles, "blob file")} ${formatBytes(t.blobFileBytes)} · WAL ${formatBytes(t.walBytes)} · all ${formatBytes(t.sstBytes + t.blobFileBytes + t.walBytes)}`,
  );
  if (i.wal.length === 0) out.push("  WAL: none");
  out.push(...walLines(i));
  if (i.unreferencedTables.length)
    out.push(
      `  unreferenced SSTs on disk: ${i.unreferencedTables.length} (${i.unreferencedTables.slice(0, 5).map(e).join(", ")}${i.unreferencedTables.length > 5 ? ", …" : ""})`,
    );
  if (i.unreferencedBlobFiles.length)
    out.push(`  unreferenced blob files on disk: ${i.unreferencedBlobFiles.length}`);
  void root;
  return out;
}

export function renderInspectReport(r: InspectReport, opts: RenderOptions = {}): string {
  // files under the root by their relative path (as findings name them): the lines wrap the same anywhere
  const underRoot = (x: string) => e(x.startsWith(r.root + sep) ? relative(r.root, x) : x);
  const width = opts.width ?? DEFAULT_WIDTH;
  const out: string[] = [];
  // exactly what was read and checked, so "verified" never claims blocks that were not read
  let counted = 0;
  for (const i of r.instances)
    for (const c of i.cfs) for (const d of c.deepLevels ?? []) counted += d.entriesCounted;
  const modeText = r.verify
    ? "verify: MANIFEST, every record of every WAL and live blob file, every block of every live table, all checksummed and decoded"
    : r.mode === "deep"
      ? `deep: MANIFEST, WAL records (checksummed); per table the footer, the metaindex, properties and whole index (checksums verified) and the filter's metadata bytes (not checksummed); data blocks, filter bits and blob records not read (--verify reads and checks them)${counted > 0 ? `, but for the data blocks of ${plural(counted, "table")} without an entry count (LevelDB's), read and checksummed to count their entries` : ""}`
      : "cheap: MANIFEST, WAL records (checksummed); per table the footer, the metaindex and properties (checksums verified) and the filter's metadata bytes (not checksummed); index, data blocks and blob records not read";
  out.push(`lsmscope inspect ${e(r.root)}`);
  out.push(
    `client: ${r.client.kind}${r.client.evidence.length ? ` (${r.client.evidence.map(underRoot).join("; ")})` : ""}`,
  );
  if (r.identity) out.push(...identityLines(r.identity));
  // the time on a line of its own: the wrapping of the mode text does not move with its digits
  out.push(...fitLine(`mode: ${modeText}`, width), `  · ${r.elapsedMs} ms for the model`);
  const v = r.verify;
  if (v)
    out.push(
      `verified: every block of ${plural(v.tables.files, "table")} (${int(v.tables.blocks)} blocks, ${int(v.tables.entries)} entries, ${formatBytes(v.tables.bytes)}), ` +
        `every record of ${plural(v.blobFiles.files, "blob file")} (${int(v.blobFiles.records)}) and of ${plural(v.wal.files, "WAL")} (${int(v.wal.records)}), checksums and decoding: ` +
        `${v.failed === 0 ? "all OK" : `${v.failed} failed (see findings)`} · ${plural(v.threads, "thread")}, ${v.elapsedMs} ms`,
    );
  for (const inst of r.instances) {
    out.push("");
    out.push(...instanceHeader(inst, r.root));
    const empty: string[] = [];
    for (const c of inst.instance.readable ? inst.cfs : []) {
      const isEmpty = c.layout.files === 0 && c.layout.blob.files === 0 && c.layout.unflushedWrites === 0;
      if (isEmpty && !opts.showEmpty) {
        empty.push(e(c.cf.displayName));
        continue;
      }
      out.push("");
      out.push(...renderCf(c, { width }));
    }
    if (empty.length) {
      out.push("");
      out.push(`  empty column families: ${empty.join(", ")}`);
    }
    const findings = shownFindings(inst.findings);
    if (findings.length) {
      out.push("");
      out.push("  findings:");
      for (const f of findings.slice(0, 50)) {
        const file = relative(r.root, f.file) || ".";
        out.push(
          ...markLine(
            `  ${MARK[f.severity]} ${f.code}: ${e(file)}${f.offset !== undefined ? `@${f.offset}` : ""}: ${e(f.message)}`,
            width,
          ),
        );
      }
      if (findings.length > 50) out.push(`     … ${findings.length - 50} more (see --json)`);
    }
  }
  const rootFindings = r.findings.filter((f) => !r.instances.some((i) => i.findings.includes(f)));
  if (rootFindings.length) {
    out.push("");
    for (const f of rootFindings) {
      // located like an instance's findings, unless the finding is about the datadir itself
      const file = relative(r.root, f.file);
      const at = file ? `${e(file)}${f.offset !== undefined ? `@${f.offset}` : ""}: ` : "";
      out.push(...markLine(`${MARK[f.severity]} ${f.code}: ${at}${e(f.message)}`, width));
    }
  }
  const t = r.totals;
  if (r.freezers?.length) out.push(...freezerLines(r.freezers, t.sstBytes + t.blobFileBytes + t.walBytes));
  out.push("");
  // "picture incomplete" stays on the last line, where a reader (and a script) looks for the verdict
  out.push(
    ...fitLineKeepingTail(
      `total: ${plural(t.instances, "instance")}, ${plural(t.cfs, "column family", "column families")}, ${plural(t.sstFiles, "SST")} ${formatBytes(t.sstBytes)}, ` +
        `${plural(t.blobFiles, "blob file")} ${formatBytes(t.blobFileBytes)}, WAL ${formatBytes(t.walBytes)} · flags and findings: ${r.flagCounts.error} error, ${r.flagCounts.warn} warn, ${r.flagCounts.info} info`,
      r.complete ? "" : " · picture incomplete (see findings)",
      width,
    ),
  );
  return out.flatMap((l) => fitLine(l, width)).join("\n") + "\n";
}
