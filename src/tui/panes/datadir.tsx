/**
 * The datadir as a whole: which chain it holds (identity), one row per column family with the total
 * (the `inspect --summary` rows, the columns that fit), and geth's freezer tables. Same figures and
 * names as `inspect --summary` and inspect's freezer section, narrowed to the pane's width.
 */
import { Text } from "ink";
import { useMemo } from "react";
import { escapeText } from "../../util/bytes.js";
import { fitLine } from "../../util/words.js";
import { table } from "../../util/text_table.js";
import { buildSummary, summaryInstanceLabel, type SummaryRow } from "../../summary/index.js";
import { bytes8, entriesCell, SUMMARY_NOTES } from "../../summary/render.js";
import { identityLines } from "../../identity/render.js";
import { freezerLines } from "../../freezer/render.js";
import type { DatadirModel } from "../../datadir/model.js";
import { ScrollText } from "../scroll.js";
import type { PaneProps, TuiPane } from "./types.js";
import { registerPane } from "./registry.js";

/** Summary rows: name, entries, total, above — cells as inspect --summary prints them, the name cut to what the pane leaves it. */
function summaryPart(model: DatadirModel, width: number): string[] {
  const s = buildSummary(model);
  const cells = (r: SummaryRow, name: string) => [
    name,
    entriesCell(r),
    bytes8(r.totalBytes),
    bytes8(r.bytesAboveBottom),
  ];
  const rows: string[][] = [["", "entries", "total", "above"]];
  let instance: string | undefined;
  for (const r of s.rows) {
    if (r.instance !== instance) {
      instance = r.instance;
      rows.push([escapeText(summaryInstanceLabel(s, r)), "", "", ""]);
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
    ...SUMMARY_NOTES.flatMap((l) => fitLine(`  ${l}`, width)),
  ];
}

export function datadirLines(p: Pick<PaneProps, "result" | "report" | "width">): string[] {
  const model = p.result.model;
  const t = p.report.totals;
  const id = model.identity;
  const lines = [
    // the client heads the identity here (inspect names it in each store's header)
    ...(id ? [`client: ${escapeText(id.client)}`, ...identityLines(id, p.width)] : ["identity: not read"]),
    "",
    ...summaryPart(model, p.width),
    ...freezerLines(model.freezers ?? [], t.sstBytes + t.blobFileBytes + t.walBytes, p.width),
  ];
  // a blank line as a space: an empty Text takes no row
  return lines.map((l) => (l === "" ? " " : l));
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
