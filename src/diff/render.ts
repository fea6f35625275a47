/**
 * `diff` as text: one row per column family that holds something on either side (counts of live keys),
 * then the first differing keys in hex, clipped to 80 columns (--json has them whole).
 */
import { resolve } from "node:path";
import { escapeText } from "../util/bytes.js";
import { cfLabel } from "../datadir/names.js";
import { incompleteLine } from "../datadir/outcome.js";
import { DEFAULT_WIDTH, fitLine, int } from "../util/words.js";
import { wrappedTable } from "../util/text_table.js";
import type { DiffResult } from "./index.js";

const KEY_WIDTH = 66;

/** The diff in `width` columns (default 80): long column family names wrap in their column. */
export function renderDiffText(r: DiffResult, width = DEFAULT_WIDTH): string {
  const out: string[] = [];
  out.push(`A: ${escapeText(r.a)}`);
  out.push(`B: ${escapeText(r.b)}`);
  const shown = r.columnFamilies.filter((c) => c.same + c.changed + c.onlyInA + c.onlyInB > 0);
  const multi = new Set(r.columnFamilies.map((c) => c.instance)).size > 1;
  // named as every command names them (datadir/names.ts): the datadir itself by its directory's name
  const name = (c: DiffResult["columnFamilies"][number]) =>
    escapeText(
      multi
        ? cfLabel({ relPath: c.instance, path: resolve(c.inA ? r.a : r.b, c.instance) }, c.displayName)
        : c.displayName,
    ) + (!c.inA ? " (B only)" : !c.inB ? " (A only)" : "");
  const rows = [["column family", "same", "changed", "onlyInA", "onlyInB"]];
  for (const c of shown) rows.push([name(c), int(c.same), int(c.changed), int(c.onlyInA), int(c.onlyInB)]);
  const t = r.totals;
  rows.push(["Total", int(t.same), int(t.changed), int(t.onlyInA), int(t.onlyInB)]);
  out.push("", ...wrappedTable(rows, width, new Set([1, 2, 3, 4])));
  let clipped = false;
  for (const c of shown) {
    if (c.differences.length === 0) continue;
    const more = c.changed + c.onlyInA + c.onlyInB - c.differences.length;
    out.push(
      "",
      `${name(c)}: first ${c.differences.length} differing keys${more > 0 ? ` (${int(more)} more)` : ""}`,
    );
    for (const d of c.differences) {
      const key = d.key.length > KEY_WIDTH ? d.key.slice(0, KEY_WIDTH - 1) + "…" : d.key;
      clipped ||= key !== d.key;
      out.push(`  ${d.kind.padEnd(8)} ${key}`);
    }
  }
  if (clipped) out.push("", "(long keys clipped; --json prints them whole)");
  out.push("", r.identical ? "identical: every live key and value is the same" : "the stores differ");
  const lines = out.flatMap((l) => fitLine(l, width));
  // the verdict stays one last line, as probe and sizes print it (scripts read it whole)
  if (r.incomplete.length > 0) lines.push(incompleteLine(r.incomplete));
  return lines.join("\n") + "\n";
}
