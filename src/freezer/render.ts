/** geth freezers as text for the inspect report: per freezer its tables and its share of the datadir. */
import { escapeText, formatBytes } from "../util/bytes.js";
import { fitLine, int, pct } from "../util/words.js";
import { fitTable, table } from "../util/text_table.js";
import type { FreezerModel } from "./index.js";

/**
 * `storeBytes`: SST, blob and WAL bytes of every store in the datadir (the rest of the share).
 * `width` (the TUI's pane): lines wrap and the table is cut into column groups (fitTable) to fit it;
 * without it the lines are as inspect prints them.
 */
export function freezerLines(
  freezers: readonly FreezerModel[],
  storeBytes: number,
  width?: number,
): string[] {
  const out: string[] = [];
  const fit = (l: string) => (width === undefined ? [l] : fitLine(l, width));
  const all = storeBytes + freezers.reduce((a, f) => a + f.bytes, 0);
  for (const f of freezers) {
    out.push("");
    out.push(
      ...fit(
        `freezer ${escapeText(f.relPath)} (${f.kind}): ${formatBytes(f.bytes)}, ` +
          `${pct(all > 0 ? f.bytes / all : 0)} of the datadir's store and freezer bytes`,
      ),
    );
    const rows = [["table", "items", "tail", "readable", "data", "files", "items are"]];
    for (const t of f.tables)
      rows.push([
        escapeText(t.name),
        int(t.items),
        int(t.tail),
        int(t.liveItems),
        formatBytes(t.bytes),
        int(t.dataFiles),
        t.compressed ? "snappy" : "raw",
      ]);
    const right = new Set([1, 2, 3, 4, 5]);
    out.push(...(width === undefined ? table(rows, right) : fitTable(rows, width, right)));
    for (const t of f.tables)
      if (t.error) out.push(...fit(`  ! ${escapeText(t.name)}: ${escapeText(t.error)}`));
  }
  return out;
}
