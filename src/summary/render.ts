/**
 * The summary as text (a table within 80 columns, grouped by instance) and as RFC 4180 CSV (raw integers, one row
 * per instance/column family, the WAL rows and a Total row). Names from files go through escapeText.
 */
import { stringify } from "csv-stringify/sync";
import { escapeText } from "../util/bytes.js";
import { summaryInstanceLabel, type Summary, type SummaryRow } from "./index.js";
import { identityLines } from "../identity/render.js";

export const CSV_COLUMNS = [
  "instance",
  "cf",
  "entries",
  "freezerItems",
  "sstBytes",
  "blobFileBytes",
  "walBytes",
  "freezerBytes",
  "totalBytes",
  "files",
  "bytesAboveBottom",
] as const;

export function renderSummaryCsv(s: Summary): string {
  const row = (r: SummaryRow) => [
    r.instance,
    r.cf,
    r.entries ?? "",
    r.freezerItems ?? "",
    r.sstBytes,
    r.blobFileBytes,
    r.walBytes,
    r.freezerBytes,
    r.totalBytes,
    r.files,
    r.bytesAboveBottom,
  ];
  return stringify([[...CSV_COLUMNS], ...s.rows.map(row), row(s.total)], { record_delimiter: "\r\n" });
}

/** Bytes in at most 8 characters: "1023 B", "999 KiB", "12.3 MiB", "1.23 GiB" (the summary's byte cells). */
export function bytes8(n: number): string {
  if (n === 0) return "0";
  const units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
  let v = n;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  if (u === 0) return `${v} B`;
  // 1023.7 KiB would print as "1024 KiB" (9 characters): show it in the next unit
  if (v >= 999.5 && u < units.length - 1) return `${(v / 1024).toFixed(2)} ${units[u + 1]}`;
  return `${v.toFixed(v >= 99.95 ? 0 : v >= 9.995 ? 1 : 2)} ${units[u]}`;
}

/** Counts in at most 7 characters: "999,999", "12.3M", "1.23G" (the summary's count cells). */
export function count7(n: number): string {
  if (n < 1e6) return n.toLocaleString("en-US");
  if (n < 1e9) return `${(n / 1e6).toFixed(n < 1e7 ? 2 : n < 1e8 ? 1 : 0)}M`;
  return `${(n / 1e9).toFixed(n < 1e10 ? 2 : n < 1e11 ? 1 : 0)}G`;
}

/** A row's entries cell: a freezer row's readable items stand in it (SUMMARY_NOTES says so); "-" when unknown. */
export function entriesCell(r: SummaryRow): string {
  return r.kind === "freezer"
    ? count7(r.freezerItems ?? 0)
    : r.entries === undefined
      ? "-"
      : count7(r.entries);
}

/** What the entries and above columns count, below the table. */
export const SUMMARY_NOTES: readonly string[] = [
  "entries: table entries (every version and tombstone, not distinct keys);",
  "  for a freezer table: its items still readable",
  "above: table bytes above the bottom level",
];

const NAME_WIDTH = 26;
const clip = (s: string, w: number) => (s.length <= w ? s : s.slice(0, w - 1) + "…");

export function renderSummaryText(s: Summary): string {
  // no WAL or freezer column: those bytes sit in rows of their own, where they are the row's total
  const header = ["", "entries", "SST", "blob", "total", "files", "above"];
  const widths = [NAME_WIDTH, 7, 8, 8, 8, 5, 8];
  const line = (cells: string[]) =>
    "  " +
    cells
      .map((c, i) => (i === 0 ? c.padEnd(widths[0]!) : c.padStart(widths[i]!)))
      .join(" ")
      .trimEnd();
  const cells = (r: SummaryRow, name: string) => [
    clip(name, NAME_WIDTH),
    entriesCell(r),
    bytes8(r.sstBytes),
    bytes8(r.blobFileBytes),
    bytes8(r.totalBytes),
    count7(r.files),
    bytes8(r.bytesAboveBottom),
  ];
  const out: string[] = s.identity ? identityLines(s.identity) : [];
  let instance: string | undefined;
  for (const r of s.rows) {
    if (r.instance !== instance) {
      instance = r.instance;
      // named as every command names it (datadir/names.ts); the CSV keeps the path under the datadir
      out.push(escapeText(summaryInstanceLabel(s, r)));
      out.push(line(header));
    }
    out.push(line(cells(r, escapeText(r.cf))));
  }
  out.push(line(cells(s.total, "Total")));
  out.push(...SUMMARY_NOTES);
  return out.join("\n") + "\n";
}
