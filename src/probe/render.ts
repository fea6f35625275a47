/** The probe report as a table for a terminal (numbers only as measured; "-" where a path has none). */
import { escapeText, formatBytes } from "../util/bytes.js";
import type { EnginePolicy, ProbeReport, ProbeTarget } from "./types.js";
import { fitLine, int, plural, wrap } from "../util/words.js";

const f = (n: number | null | undefined, digits = 3): string =>
  n === null || n === undefined ? "-" : Number.isInteger(n) ? String(n) : n.toFixed(digits);
/**
 * A point's per-lookup means as the reports print them (the text table and the HTML report): files,
 * filter checks, filter rejections, index blocks, data blocks (to 4 decimals: a filter's false positives
 * make a few in ten thousand lookups read one).
 */
export function perLookupCells(
  p: Pick<
    ProbeReport["points"][number],
    | "filesPerLookup"
    | "filterChecksPerLookup"
    | "filterRejectionsPerLookup"
    | "indexBlocksPerLookup"
    | "dataBlocksPerLookup"
  >,
): string[] {
  return [
    f(p.filesPerLookup),
    f(p.filterChecksPerLookup),
    f(p.filterRejectionsPerLookup),
    f(p.indexBlocksPerLookup),
    f(p.dataBlocksPerLookup, 4),
  ];
}

const b = (n: number | null | undefined): string =>
  n === null || n === undefined ? "-" : formatBytes(Math.round(n));

/** Text whose every line is fitted to `width` at word boundaries (a hanging indent of two). */
const fitText = (s: string, width: number): string =>
  s
    .split("\n")
    .flatMap((l) => fitLine(l, width))
    .join("\n");

/** What the CLI prints before measuring: the options in force. */
export function renderProbeStart(
  target: ProbeTarget,
  enginePolicies?: EnginePolicy[],
  width = Number.POSITIVE_INFINITY,
): string {
  const o = target.options;
  let s = `probe ${escapeText(target.instanceDir)} · ${escapeText(target.cfDisplayName)}\n`;
  s += `options in force (${escapeText(o.source)}): filter_policy=${escapeText(o.filterPolicy)} whole_key_filtering=${o.wholeKeyFiltering} optimize_filters_for_hits=${o.optimizeFiltersForHits}`;
  if (o.cacheIndexAndFilterBlocks !== undefined)
    s += ` cache_index_and_filter_blocks=${o.cacheIndexAndFilterBlocks}`;
  if (o.prefixExtractor && o.prefixExtractor !== "nullptr")
    s += ` prefix_extractor=${escapeText(o.prefixExtractor)}`;
  s += "\n";
  if (!enginePolicies) return fitText(s, width);
  s += "engine filter policy per column family (from OPTIONS):\n";
  // the model's display name where the caller matched one (engine_path.ts), else the raw name
  const items = enginePolicies.map(
    (p) => `${escapeText(p.displayName ?? p.cf)}=${escapeText(p.filterPolicy)}`,
  );
  return fitText(s, width) + listLines(items, width).join("\n") + "\n";
}

/**
 * Items after a two-space indent, comma-separated, as many to a line as `width` takes, each kept whole
 * where it fits a line (a Besu column family's name holds a space: "cf06 ACCOUNT_INFO_STATE=...").
 */
function listLines(items: readonly string[], width: number): string[] {
  const out: string[] = [];
  let line = "";
  for (const item of items) {
    const next = line ? `${line}, ${item}` : `  ${item}`;
    if (line && next.length > width) {
      out.push(`${line},`);
      line = `  ${item}`;
    } else line = next;
  }
  if (line) out.push(line);
  return out.flatMap((l) => fitLine(l, width));
}

/** Tables per lookup: the layout's figure beside the measured one, and a pile-up's severity. */
function readAmplificationText(r: ProbeReport): string {
  const ra = r.readAmplification;
  const L = ra.layout;
  const m = ra.measured;
  const lines = [
    `tables per lookup: at most ${int(L.maxFilesPerLookup)} by the layout (inspect's maxFilesPerLookup); ` +
      (m
        ? `measured at most ${int(m.maxFilesPerLookup)}, mean ${f(m.filesPerLookup, 1)} over ${plural(m.lookups, "lookup")}`
        : "not measured (the reader path counts them: --path reader or both)"),
  ];
  const p = ra.l0Pileup;
  if (p)
    lines.push(
      `l0-pileup (${p.severity}): L0 holds ${plural(L.l0Files, "table")} (writes slow at ${int(L.l0SlowdownTrigger)}, ` +
        `stop at ${int(L.l0StopTrigger)}); judged on the ${p.from} tables per lookup`,
    );
  return lines.map((l) => wrap(l, 80, "", "  ").join("\n") + "\n").join("");
}

/**
 * The report; a table wider than `width` columns is cut into column groups printed one under the other,
 * each repeating `count` and `path` so a row can be followed.
 */
export function renderProbeReport(r: ProbeReport, width = Number.POSITIVE_INFINITY): string {
  const head = [
    "count",
    "path",
    "cold",
    "found",
    "files/lk",
    "filt chk/lk",
    "filt rej/lk",
    "index/lk",
    "data/lk",
    "bytes/lk",
    "distinct blk",
    "distinct B",
    "block-layer B",
    "answered at",
  ];
  const rows = r.points.map((p) => [
    String(p.count),
    p.path,
    p.cold ? (p.coldMethod ?? "yes") : "no",
    `${p.found}/${p.lookups}`,
    ...perLookupCells(p),
    b(p.bytesPerLookup),
    f(p.distinctDataBlocks),
    b(p.distinctDataBlockBytes),
    b(p.blockLayerBytes),
    Object.entries(p.answeredAtLevel)
      .sort()
      .map(([l, n]) => `${l}:${n}`)
      .join(" "),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const cell = (c: string, i: number) => (i <= 2 || i === 13 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!));
  const groups: number[][] = [];
  const key = [0, 1];
  let cur: number[] = [...key];
  const span = (cols: number[]) => cols.reduce((a, i) => a + widths[i]!, 0) + 2 * (cols.length - 1);
  for (let i = 2; i < head.length; i++) {
    if (cur.length > key.length && span([...cur, i]) > width) {
      groups.push(cur);
      cur = [...key];
    }
    cur.push(i);
  }
  groups.push(cur);
  const line = (cells: string[], cols: number[]) =>
    cols
      .map((i) => cell(cells[i]!, i))
      .join("  ")
      .trimEnd();
  let s = `keys: ${escapeText(r.keys.source)}, ${r.keys.generated} drawn${r.keys.note ? ` (${escapeText(r.keys.note)})` : ""}\n`;
  s += groups.map((g) => [line(head, g), ...rows.map((row) => line(row, g))].join("\n")).join("\n\n") + "\n";
  s += readAmplificationText(r);
  for (const c of r.comparisons ?? []) {
    s += `count ${c.count}: data blocks reader ${c.readerDataBlocks} vs engine ${c.engineDataBlocks} (${(c.relativeDifference * 100).toFixed(2)}% apart), ${c.mismatchedLookups} of ${plural(c.lookups, "lookup")} differ\n`;
  }
  for (const p of r.points) {
    if (!p.engine) continue;
    const pf = p.engine.perf;
    const tk = p.engine.tickers;
    const pick = (o: Record<string, number>, names: string[]) =>
      names.map((n) => `${n} ${o[n] ?? 0}`).join(", ");
    s += `engine counters, count ${p.count}: ${pick(pf, [
      "block_read_count",
      "block_read_byte",
      "index_block_read_count",
      "filter_block_read_count",
      "bloom_sst_hit_count",
      "bloom_sst_miss_count",
      "blob_read_count",
    ])}, ${pick(tk, ["rocksdb.block.cache.data.miss", "rocksdb.bloom.filter.useful", "rocksdb.bloom.filter.full.positive"])}\n`;
  }
  const engine = r.points.find((p) => p.engine);
  if (engine?.engine)
    s += `engine data blocks from ${engine.engine.dataBlockSource}; index/filter columns are reads on the engine path, blocks used on the reader path\n`;
  for (const n of r.notes) s += `note: ${escapeText(n)}\n`;
  for (const n of engine?.engine?.notes ?? []) s += `engine: ${escapeText(n)}\n`;
  return fitText(s, width);
}
