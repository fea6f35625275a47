/** geth freezers as text for the inspect report: per freezer its tables and its share of the datadir. */
import { escapeText, formatBytes } from "../util/bytes.js";
import { int, pct } from "../util/words.js";
import { table } from "../util/text_table.js";
import type { FreezerModel } from "./index.js";

/** `storeBytes`: SST, blob and WAL bytes of every store in the datadir (the rest of the share). */
export function freezerLines(freezers: readonly FreezerModel[], storeBytes: number): string[] {
  const out: string[] = [];
  const all = storeBytes + freezers.reduce((a, f) => a + f.bytes, 0);
  for (const f of freezers) {
    out.push("");
    out.push(
      `freezer ${escapeText(f.relPath)} (${f.kind}): ${formatBytes(f.bytes)}, ` +
        `${pct(all > 0 ? f.bytes / all : 0)} of the datadir's store and freezer bytes`,
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
    out.push(...table(rows, new Set([1, 2, 3, 4, 5])));
    for (const t of f.tables) if (t.error) out.push(`  ! ${escapeText(t.name)}: ${escapeText(t.error)}`);
  }
  return out;
}
