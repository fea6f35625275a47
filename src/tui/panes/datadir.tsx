/**
 * The datadir as a whole: which chain it holds (identity), one row per column family with the total
 * (the `inspect --summary` rows, the columns that fit), and geth's freezer tables. Same figures and
 * names as `inspect --summary` and inspect's freezer section, narrowed to the pane's width.
 */
import { Text } from "ink";
import { useMemo } from "react";
import { escapeText, formatBytes } from "../../util/bytes.js";
import { int, pct, table } from "../../report/render.js";
import { buildSummary, type SummaryRow } from "../../summary/index.js";
import type { DatadirIdentity } from "../../identity/index.js";
import type { FreezerModel } from "../../freezer/index.js";
import type { DatadirModel } from "../../datadir/model.js";
import { ScrollText } from "../scroll.js";
import type { PaneProps, TuiPane } from "./types.js";
import { registerPane } from "./registry.js";

/** A 0x-hash whole when it fits, else its first 8 bytes and "…". */
function hash(h: string, room: number): string {
  return h.length <= room ? h : `${h.slice(0, 18)}…`;
}

function identityPart(id: DatadirIdentity | undefined, width: number): string[] {
  if (!id) return ["identity: not read"];
  const out: string[] = [`client: ${escapeText(id.client)}`];
  if (id.chainHead) {
    out.push(`chain head: #${int(id.chainHead.number)}`);
    out.push(`  hash       ${hash(id.chainHead.hash, width - 13)}`);
    if (id.stateRoot) out.push(`  state root ${hash(id.stateRoot, width - 13)}`);
  } else out.push(`chain head: - (${escapeText(id.note ?? "not read")})`);
  out.push(`written by: ${escapeText(id.writtenBy ?? "-")}`);
  return out;
}

const count = (n: number | undefined) => (n === undefined ? "-" : int(n));

/** Summary rows: name, entries, total, above — the name cut to what the pane leaves it. */
function summaryPart(model: DatadirModel, width: number): string[] {
  const s = buildSummary(model);
  const cells = (r: SummaryRow, name: string) => [
    name,
    // as inspect --summary prints it: a freezer table's readable items in the entries column
    count(r.kind === "freezer" ? r.freezerItems : r.entries),
    formatBytes(r.totalBytes),
    formatBytes(r.bytesAboveBottom),
  ];
  const rows: string[][] = [["", "entries", "total", "above"]];
  let instance: string | undefined;
  for (const r of s.rows) {
    if (r.instance !== instance) {
      instance = r.instance;
      rows.push([escapeText(instance || "."), "", "", ""]);
    }
    rows.push(cells(r, `  ${escapeText(r.cf)}`));
  }
  rows.push(cells(s.total, "Total"));
  // numbers keep their width; the name column gives way (at least 12 cells)
  const numW = [1, 2, 3].map((i) => Math.max(...rows.map((r) => r[i]!.length)));
  const nameCap = Math.max(12, width - 2 - numW.reduce((a, b) => a + b + 2, 0));
  return [
    "summary (inspect --summary)",
    ...table(rows, new Set([1, 2, 3]), "  ", [nameCap]),
    "  entries: table entries (freezer: readable items)",
    "  above: table bytes above the bottom level",
  ];
}

function freezerPart(freezers: readonly FreezerModel[], storeBytes: number): string[] {
  const out: string[] = [];
  const all = storeBytes + freezers.reduce((a, f) => a + f.bytes, 0);
  for (const f of freezers) {
    out.push(" ");
    out.push(`freezer ${escapeText(f.relPath)} (${f.kind})`);
    out.push(`  ${formatBytes(f.bytes)}, ${pct(all > 0 ? f.bytes / all : 0)} of store and freezer bytes`);
    const rows = [["table", "items", "readable", "data", "items are"]];
    for (const t of f.tables)
      rows.push([
        escapeText(t.name),
        int(t.items),
        int(t.liveItems),
        formatBytes(t.bytes),
        t.compressed ? "snappy" : "raw",
      ]);
    out.push(...table(rows, new Set([1, 2, 3])));
    for (const t of f.tables) if (t.error) out.push(`  ! ${escapeText(t.name)}: ${escapeText(t.error)}`);
  }
  return out;
}

export function datadirLines(p: Pick<PaneProps, "result" | "report" | "width">): string[] {
  const model = p.result.model;
  const t = p.report.totals;
  return [
    ...identityPart(model.identity, p.width),
    // a blank line as a space: an empty Text takes no row
    " ",
    ...summaryPart(model, p.width),
    ...freezerPart(model.freezers ?? [], t.sstBytes + t.blobFileBytes + t.walBytes),
  ];
}

export function DatadirPane(p: PaneProps) {
  const lines = useMemo(() => datadirLines(p), [p.result, p.report, p.width]);
  if (p.result.model.instances.length === 0) return <Text>no store</Text>;
  return <ScrollText lines={lines} width={p.width} height={p.height} focused={p.focused} />;
}

export const datadirPane: TuiPane = {
  id: "datadir",
  title: "Datadir",
  key: "i",
  order: 80,
  help: "↑↓ scroll",
  Component: DatadirPane,
};

registerPane(datadirPane);
