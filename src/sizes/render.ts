/**
 * Renderings of a SizesReport: a text report for terminals, and an SVG picture of the histograms
 * (hand-written SVG: one panel per histogram, log2 buckets on x, counts on y as bars).
 */
import { join } from "node:path";
import { escapeText, formatBytes } from "../util/bytes.js";
import type {
  ColumnFamilySizes,
  HistogramBucket,
  Interval,
  Share,
  SizeSummary,
  SizesReport,
} from "./types.js";
import { fitLine as fit, noun } from "../util/words.js";
import { nonEmptySpan } from "./dist.js";
import { cfLabel } from "../datadir/names.js";
import type { StorageView } from "./contracts/view.js";
import type { SampledInterval, SampledStorageView } from "./contracts/sample.js";

function num(n: number, digits = 0): string {
  if (n === Number.POSITIVE_INFINITY) return "∞";
  if (!Number.isFinite(n)) return String(n);
  return n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: 0 });
}

function iv(i: Interval | undefined, digits = 0): string {
  return i ? ` [${num(i[0], digits)}, ${num(i[1], digits)}]` : "";
}

function pct(s: Share): string {
  const base = `${num(s.count)} (${(s.share * 100).toFixed(1)}%)`;
  return s.interval
    ? `${base} [${(s.interval[0] * 100).toFixed(1)}%, ${(s.interval[1] * 100).toFixed(1)}%]`
    : base;
}

/** A size summary on one line, or two when intervals stand beside the figures (80 columns). */
function sizeLine(label: string, s: SizeSummary): string {
  if (s.count === 0) return `  ${label}: none`;
  const i = s.intervals;
  const head = `  ${label}: n=${num(s.count)} mean ${num(s.mean, 1)}${iv(i?.mean, 1)} p50 ${num(s.p50)}${iv(i?.p50)}`;
  const tail =
    `p90 ${num(s.p90)}${iv(i?.p90)} p99 ${num(s.p99)}${iv(i?.p99)} max ${num(s.max)}` +
    (s.approximate ? " (≥64 KiB binned)" : "");
  return i ? `${head}\n    ${tail}` : `${head} ${tail}`;
}

/** A one-line bar chart of a histogram: "≤le count" cells. */
function histLine(h: HistogramBucket[]): string {
  const slice = nonEmptySpan(h);
  if (slice.length === 0) return "";
  const max = Math.max(...slice.map((b) => b.count));
  const blocks = " ▁▂▃▄▅▆▇█";
  const bars = slice
    .map((b) => blocks[b.count === 0 ? 0 : Math.max(1, Math.round((b.count / max) * 8))])
    .join("");
  return `    log2 ≤${num(slice[0]!.le)} … ≤${num(slice[slice.length - 1]!.le)}: ${bars}`;
}

function cfText(c: ColumnFamilySizes, mode: string, root: string): string[] {
  const out: string[] = [];
  out.push(escapeText(cfLabel({ relPath: c.instance, path: join(root, c.instance) }, c.displayName)));
  if (c.partial) out.push("  PARTIAL: the --timeout deadline stopped this scan part-way");
  if (mode === "full") {
    out.push(
      `  live keys ${num(c.liveKeys)}; obsolete entries ${num(c.obsoleteEntries ?? 0)}` +
        ` (shadowed ${num(c.shadowedVersions ?? 0)}, tombstones ${num(c.tombstones ?? 0)}` +
        (c.rangeDeleted ? `, range-deleted ${num(c.rangeDeleted)}` : "") +
        ")",
      `  entries read ${num(c.entriesRead)}` + (c.walEntries ? ` (${num(c.walEntries)} from the WAL)` : ""),
    );
  } else {
    out.push(
      `  live keys ≈ ${num(c.liveKeys)}${iv(c.liveKeysInterval)} (newest version)`,
      `  tombstones ${c.tombstoneShare ? pct(c.tombstoneShare) : "-"};` +
        ` blocks sampled ${num(c.sampledBlocks ?? 0)} of ${num(c.totalBlocks ?? 0)}`,
    );
  }
  out.push(sizeLine("key bytes", c.keySize));
  out.push(sizeLine("value bytes", c.valueSize));
  const h = histLine(c.valueSize.histogram);
  if (h) out.push(h);
  if (c.keyCategories) {
    out.push("  by geth key category (live keys; value bytes):");
    for (const [name, k] of Object.entries(c.keyCategories))
      out.push(
        `    ${escapeText(name).padEnd(26)} ${num(k.liveKeys).padStart(9)}  mean ${num(k.valueSize.mean, 1)} p50 ${num(k.valueSize.p50)} p99 ${num(k.valueSize.p99)} max ${num(k.valueSize.max)}`,
      );
  }
  if (c.blobIndexed.count > 0)
    out.push(
      `  blob-indexed values: ${num(c.blobIndexed.count)}, value bytes ${formatBytes(c.blobIndexed.valueBytes)}, ` +
        `stored ${formatBytes(c.blobIndexed.storedBytes)} in ${num(c.blobIndexed.files)} ${noun(c.blobIndexed.files, "blob file")} (${Object.entries(
          c.blobIndexed.compressions,
        )
          .map(([k, v]) => `${k} ${v}`)
          .join(", ")})` +
        (c.blobIndexed.unread
          ? `; ${num(c.blobIndexed.unread)} blob records unreadable, left out of value bytes`
          : ""),
    );
  if (c.dataBlocks > 0 || (c.totalBlocks ?? 0) > 0) {
    out.push(
      `  data blocks ${num(mode === "full" ? c.dataBlocks : (c.totalBlocks ?? 0))}, avg ${formatBytes(Math.round(c.averageBlockBytes))} stored / ${formatBytes(Math.round(c.averageBlockLogicalBytes))} uncompressed;`,
      `  physical ${formatBytes(c.physicalBytes)} / logical ${formatBytes(c.logicalBytes)} = ${c.compressionRatio.toFixed(3)}` +
        ` (per block p50 ${c.blockRatio.p50.toFixed(2)}, ${c.blockRatio.min.toFixed(2)}–${c.blockRatio.max.toFixed(2)})`,
    );
  }
  return out;
}

/** A contract id shortened for a terminal: "0x" and its first 8 bytes, then "…". */
export function shortId(idHex: string): string {
  return `0x${idHex.slice(0, 16)}…`;
}

/** Storage per contract: totals, the two distributions, the top contracts by slots and by bytes. */
function storageText(s: StorageView, top = 10): string[] {
  const out = [`storage per contract (${escapeText(s.location)})`];
  if (s.contracts === 0) return [...out, "  no live slot records"];
  out.push(
    `  ${num(s.slots)} live ${noun(s.slots, "slot")} of ${num(s.contracts)} ${noun(s.contracts, "contract")}, ${formatBytes(s.bytes)} of keys and values`,
  );
  for (const [label, d] of [
    ["slots per contract", s.slotsPerContract],
    ["bytes per contract", s.bytesPerContract],
  ] as const) {
    out.push(
      `  ${label}: mean ${num(d.mean, 1)} p50 ${num(d.p50)} p90 ${num(d.p90)} p99 ${num(d.p99)} max ${num(d.max)}` +
        (d.approximate ? " (≥64 Ki binned)" : ""),
    );
    const hl = histLine(d.histogram);
    if (hl) out.push(hl);
  }
  const w = Math.max(21, s.idKind.length);
  const row = (id: string, slots: string, bytes: string) =>
    `    ${id.padEnd(w)} ${slots.padStart(10)} ${bytes.padStart(10)}`;
  const rows = (list: StorageView["topBySlots"]) =>
    list.slice(0, top).map((t) => row(shortId(t.id), num(t.slots), formatBytes(t.bytes)));
  const share = (s.topBySlotsShare * 100).toFixed(1);
  out.push(
    `  top ${Math.min(top, s.topBySlots.length)} by slots (the top ${s.topBySlots.length} hold ${share}% of all slots):`,
    row(s.idKind, "slots", "bytes"),
    ...rows(s.topBySlots),
  );
  out.push(`  top ${Math.min(top, s.topByBytes.length)} by bytes:`, ...rows(s.topByBytes));
  return out;
}

/** Storage per contract estimated from drawn contracts: the count, percentiles, the largest seen. */
function sampledStorageText(s: SampledStorageView): string[] {
  const out = [`storage per contract (${escapeText(s.location)}), ${num(s.draws)} contracts drawn`];
  const [lo, hi] = s.contractsInterval;
  out.push(
    `  contracts ≈ ${num(s.contracts)} [${num(lo)}, ${num(hi)}]; ${num(s.contractsDrawn)} distinct drawn`,
  );
  const p = (v: number, [l, h]: SampledInterval, f: (x: number) => string) =>
    `${f(v)} [${f(l)}, ${h === null ? "above all drawn" : f(h)}]`;
  for (const [label, d, f] of [
    ["slots per contract", s.slotsPerContract, (x: number) => num(x)],
    ["bytes per contract", s.bytesPerContract, formatBytes],
  ] as const)
    out.push(
      `  ${label}:`,
      `    p50 ${p(d.p50, d.intervals.p50, f)} p90 ${p(d.p90, d.intervals.p90, f)}`,
      `    p99 ${p(d.p99, d.intervals.p99, f)} max seen ${f(d.maxSeen)}`,
    );
  if (s.cappedDraws > 0)
    out.push(
      `  ${num(s.cappedDraws)} ${noun(s.cappedDraws, "draw")} reached the count cap of ${num(s.slotCap)} slots: lower bounds`,
    );
  const w = Math.max(21, s.idKind.length);
  const row = (id: string, slots: string, bytes: string) =>
    `    ${id.padEnd(w)} ${slots.padStart(10)} ${bytes.padStart(10)}`;
  out.push(
    "  largest seen in the sample (not the store's largest: --full lists those):",
    row(s.idKind, "slots", "bytes"),
    ...s.largestSeen.map((t) => row(shortId(t.id), num(t.slots), formatBytes(t.bytes))),
  );
  return out;
}

/**
 * The report as text, lines cut to `width` columns (default 80); `notes: false` leaves out the notes on
 * what each mode measures (the TUI pane shows the figures only).
 */
export function renderSizesText(r: SizesReport, opts: { width?: number; notes?: boolean } = {}): string {
  const width = opts.width ?? 80;
  const showNotes = opts.notes ?? true;
  const out: string[] = [];
  out.push(
    `sizes of ${escapeText(r.root)} (${r.client})`,
    `${r.mode} mode` +
      (r.mode === "sample"
        ? `, ${r.sampleBlocks} blocks per column family, seed ${r.seed}, ${r.confidence * 100}% intervals`
        : "") +
      `, ${num(r.workers)} ${noun(r.workers, "worker")}, ${(r.elapsedMs / 1000).toFixed(2)} s` +
      (r.entriesPerSecond ? `, ${num(r.entriesPerSecond)} entries/s` : ""),
  );
  out.push("");
  for (const c of r.columnFamilies) {
    if (c.entriesRead === 0 && c.dataBlocks === 0 && (c.totalBlocks ?? 0) === 0 && !c.partial) continue;
    out.push(...cfText(c, r.mode, r.root), "");
  }
  const empty = r.columnFamilies.filter(
    (c) => c.entriesRead === 0 && c.dataBlocks === 0 && !c.totalBlocks && !c.partial,
  );
  if (empty.length) out.push(`empty: ${empty.map((c) => escapeText(c.displayName)).join(", ")}`, "");
  const e = r.eth;
  if (e) {
    if (e.accounts) {
      const a = e.accounts;
      out.push(
        `accounts (${escapeText(a.location)}): ${r.mode === "sample" ? "≈ " : ""}${num(a.total)}${iv(a.totalInterval)}`,
      );
      // in sample mode the counts are of the sampled records and the share estimates the whole
      const sampled = r.mode === "sample" ? " in the sample" : "";
      out.push(`  plain EOAs${sampled} ${pct(a.eoa)}`);
      out.push(`  EIP-7702 delegated EOAs${sampled} ${pct(a.delegatedEoa)}`);
      out.push(`  contracts${sampled} ${pct(a.contract)}`);
      out.push(
        (r.mode === "sample"
          ? `  distinct code hashes seen in the sample ${num(a.distinctCodeHashes)}; reuse ≈ ${a.reuseFactor.toFixed(2)}${a.reuseFactorInterval ? ` [${a.reuseFactorInterval[0].toFixed(2)}, ${a.reuseFactorInterval[1].toFixed(2)}]` : ""} contracts per stored bytecode`
          : `  distinct code hashes ${num(a.distinctCodeHashes)}; reuse ${a.reuseFactor.toFixed(2)} contracts per bytecode` +
            (a.contractsPerStoredBytecode > 0 &&
            a.contractsPerStoredBytecode.toFixed(2) !== a.reuseFactor.toFixed(2)
              ? ` (${a.contractsPerStoredBytecode.toFixed(2)} per stored bytecode)`
              : "")) +
          (a.codeNotFound ? `; ${num(a.codeNotFound)} with no code entry` : "") +
          (a.undecodable ? `; ${num(a.undecodable)} ${noun(a.undecodable, "record")} not accounts` : ""),
      );
      if (a.perContractCodeSize) out.push(sizeLine("code bytes per contract account", a.perContractCodeSize));
      out.push("");
    }
    if (e.code) {
      const c = e.code;
      out.push(
        `code (${escapeText(c.location)}): ${r.mode === "sample" ? "≈ " : ""}${num(c.liveKeys)}${iv(c.liveKeysInterval)} live ${noun(c.liveKeys, "key")}` +
          (r.mode === "full" ? `, keyed by ${c.keyedBy}` : ""),
      );
      const sampled = r.mode === "sample" ? " in the sample" : "";
      out.push(`  23-byte EIP-7702 delegations${sampled} ${pct(c.delegations)}`);
      out.push(
        `  contract bytecodes${sampled} ${num(c.distinctContractBytecodes)}; at the 24,576-byte maximum ${pct(c.atMax)}; above it ${num(c.overMax)}`,
      );
      out.push(sizeLine("code bytes", c.codeSize));
      const hl = histLine(c.codeSize.histogram);
      if (hl) out.push(hl);
      out.push(
        `  classes${sampled}: ${Object.entries(c.classes)
          .map(([k, v]) => `${k} ${num(v)}`)
          .join(", ")}`,
      );
      const t = c.coTenancy;
      if (t.blockShare)
        out.push(
          `  blocks holding a max-size bytecode: ${pct(t.blockShare)} of sampled blocks ≈ ${num(t.estimatedBlocks ?? 0)}${iv(t.estimatedBlocksInterval)} ${noun(t.estimatedBlocks ?? 0, "block")}`,
        );
      if (t.blocks > 0)
        out.push(
          `  co-tenancy: ${num(t.maxSizeContracts)} max-size ${noun(t.maxSizeContracts, "bytecode")} in ${num(t.blocks)} data ${noun(t.blocks, "block")}; other records per block mean ${num(t.otherRecords.mean, 1)} (${num(t.otherRecords.min)}–${num(t.otherRecords.max)}), other bytes mean ${formatBytes(Math.round(t.otherBytes.mean))} (${formatBytes(t.otherBytes.min)}–${formatBytes(t.otherBytes.max)})`,
        );
      else out.push("  co-tenancy: no data block holds a maximum-size contract");
      out.push("");
    }
    if (e.storage)
      out.push(...("sampled" in e.storage ? sampledStorageText(e.storage) : storageText(e.storage)), "");
    if (showNotes) for (const n of e.notes) out.push(`note: ${n}`);
  }
  if (showNotes) for (const n of r.notes) out.push(`note: ${n}`);
  return out.flatMap((l) => l.split("\n").flatMap((x) => fit(x, width))).join("\n") + "\n";
}

/** The report as the `--json` shape: the report itself (plain data). */
export function sizesJson(r: SizesReport): string {
  return JSON.stringify(r, null, 2) + "\n";
}

function xmlEscape(s: string): string {
  return s.replace(
    /[<>&"']/g,
    (c) => ({ "<": "&lt;", ">": "&gt;", "&": "&amp;", '"': "&quot;", "'": "&apos;" })[c]!,
  );
}

function label(le: number): string {
  if (le >= 1024 * 1024) return `${le / (1024 * 1024)}M`;
  if (le >= 1024) return `${le / 1024}K`;
  return String(le);
}

/** One histogram panel at (x, y), width w, height h. */
function panel(title: string, hist: HistogramBucket[], x: number, y: number, w: number, h: number): string {
  const parts: string[] = [];
  parts.push(`<g transform="translate(${x},${y})">`);
  parts.push(`<rect x="0" y="0" width="${w}" height="${h}" fill="#fafafa" stroke="#ccc"/>`);
  parts.push(
    `<text x="8" y="16" font-size="12" font-family="sans-serif" fill="#222">${xmlEscape(title)}</text>`,
  );
  const bins = nonEmptySpan(hist);
  if (bins.length === 0) {
    parts.push(
      `<text x="8" y="40" font-size="11" font-family="sans-serif" fill="#888">no records</text></g>`,
    );
    return parts.join("");
  }
  const max = Math.max(...bins.map((b) => b.count));
  const left = 8;
  const top = 26;
  const bottom = h - 22;
  const plotW = w - 16;
  const bw = plotW / bins.length;
  bins.forEach((b, i) => {
    const bh = ((bottom - top) * b.count) / max;
    const bx = left + i * bw;
    parts.push(
      `<rect x="${bx.toFixed(1)}" y="${(bottom - bh).toFixed(1)}" width="${Math.max(1, bw - 2).toFixed(1)}" height="${bh.toFixed(1)}" fill="#4477aa"><title>≤ ${b.le} B: ${b.count}</title></rect>`,
    );
    if (bins.length <= 24 || i % 2 === 0)
      parts.push(
        `<text x="${(bx + bw / 2).toFixed(1)}" y="${h - 8}" font-size="9" font-family="sans-serif" text-anchor="middle" fill="#555">${label(b.le)}</text>`,
      );
  });
  parts.push(
    `<text x="${w - 8}" y="16" font-size="10" font-family="sans-serif" text-anchor="end" fill="#555">max count ${max}</text>`,
  );
  parts.push("</g>");
  return parts.join("");
}

/** SVG with key- and value-size histograms per column family (and code sizes when known). */
export function renderSizesSvg(r: SizesReport): string {
  const panels: { title: string; hist: HistogramBucket[] }[] = [];
  for (const c of r.columnFamilies) {
    if (c.keySize.count === 0) continue;
    const name = `${c.instance === "." ? "" : c.instance + " "}${c.displayName}`;
    panels.push({ title: `${name}: key bytes (log2 buckets, ${r.mode})`, hist: c.keySize.histogram });
    panels.push({ title: `${name}: value bytes (log2 buckets, ${r.mode})`, hist: c.valueSize.histogram });
  }
  if (r.eth?.code)
    panels.push({
      title: `contract code bytes (${r.eth.code.location})`,
      hist: r.eth.code.codeSize.histogram,
    });
  if (r.eth?.accounts?.perContractCodeSize)
    panels.push({
      title: "code bytes per contract account",
      hist: r.eth.accounts.perContractCodeSize.histogram,
    });
  const w = 420;
  const h = 170;
  const cols = 2;
  const rows = Math.max(1, Math.ceil(panels.length / cols));
  const W = cols * (w + 10) + 10;
  const H = rows * (h + 10) + 40;
  const body = panels
    .map((p, i) =>
      panel(p.title, p.hist, 10 + (i % cols) * (w + 10), 30 + Math.floor(i / cols) * (h + 10), w, h),
    )
    .join("\n");
  return (
    `<?xml version="1.0" encoding="UTF-8"?>\n` +
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}">\n` +
    `<text x="10" y="20" font-size="14" font-family="sans-serif" fill="#000">${xmlEscape(`lsmscope sizes — ${r.root} (${r.client}, ${r.mode} mode)`)}</text>\n` +
    body +
    "\n</svg>\n"
  );
}
