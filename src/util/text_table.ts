/**
 * Text tables for every command's text output: columns padded to their widest cell, some right-aligned;
 * fitted to a width by column groups and cells wrapped under their column (fitTable), never cut.
 */
import { wrap } from "./words.js";

/** Left-aligned text table; `right` marks right-aligned columns. */
export function table(
  rows: string[][],
  right: ReadonlySet<number> = new Set(),
  indent = "  ",
  /** Column widths not to exceed: longer cells are cut with "…". */
  caps: readonly (number | undefined)[] = [],
): string[] {
  if (caps.length > 0)
    rows = rows.map((r) =>
      r.map((c, i) => {
        const cap = caps[i];
        return cap !== undefined && c.length > cap ? c.slice(0, Math.max(0, cap - 1)) + "…" : c;
      }),
    );
  const widths: number[] = [];
  for (const r of rows) r.forEach((c, i) => (widths[i] = Math.max(widths[i] ?? 0, c.length)));
  return rows.map(
    (r) =>
      indent +
      r
        .map((c, i) =>
          i === r.length - 1 && !right.has(i)
            ? c
            : right.has(i)
              ? c.padStart(widths[i]!)
              : c.padEnd(widths[i]!),
        )
        .join("  ")
        .trimEnd(),
  );
}

const widthsOf = (rows: readonly (readonly string[])[]): number[] => {
  const w: number[] = [];
  for (const r of rows) r.forEach((c, i) => (w[i] = Math.max(w[i] ?? 0, c.length)));
  return w;
};

/** Narrowest a wrapped text column gets (unless a word is longer), so words do not stack one per line. */
const MIN_WRAPPED_COLUMN = 8;

/**
 * A table within `width` columns whose text cells wrap at word boundaries under their own column:
 * the widest left-aligned columns (not the first) give up width, last column first. Nothing is cut.
 */
export function wrappedTable(
  rows: readonly (readonly string[])[],
  width: number,
  right: ReadonlySet<number> = new Set(),
  indent = "  ",
): string[] {
  const w = widthsOf(rows);
  let excess = indent.length + w.reduce((a, b) => a + b, 0) + 2 * (w.length - 1) - width;
  // text columns give up width down to their longest word: the last first, the first (names) last
  const longestWord = (i: number) =>
    Math.max(MIN_WRAPPED_COLUMN, ...rows.flatMap((r) => (r[i] ?? "").split(" ").map((x) => x.length)));
  for (const i of [...w.keys()].slice(1).reverse().concat(0)) {
    if (excess <= 0) break;
    if (right.has(i)) continue;
    const give = Math.max(0, Math.min(excess, w[i]! - longestWord(i)));
    w[i] = w[i]! - give;
    excess -= give;
  }
  // each cell in lines of its column's width; a word longer than that widens the column again
  const cells = rows.map((r) => r.map((c, i) => (c.length > w[i]! ? wrap(c, w[i]!) : [c])));
  const fit = widthsOf(cells.map((r) => r.map((c) => c.reduce((a, l) => (l.length > a.length ? l : a), ""))));
  const out: string[] = [];
  for (const r of cells) {
    const height = Math.max(...r.map((c) => c.length));
    for (let k = 0; k < height; k++)
      out.push(
        (
          indent +
          r
            .map((c, i) => {
              const s = c[k] ?? "";
              if (right.has(i)) return s.padStart(fit[i]!);
              return i === r.length - 1 ? s : s.padEnd(fit[i]!);
            })
            .join("  ")
        ).trimEnd(),
      );
  }
  return out.some((l) => l.length > width) && w.length > 1 ? rowBlocks(rows, width, indent) : out;
}

/** Too narrow for columns: each row as one wrapped line, "header value" after its first cell. */
function rowBlocks(rows: readonly (readonly string[])[], width: number, indent: string): string[] {
  const head = rows[0] ?? [];
  return rows.slice(1).flatMap((r) => {
    // empty cells say nothing; a row without a first cell continues the one above
    const parts = r
      .slice(1)
      .flatMap((c, j) => (c.trim() ? [head[j + 1] ? `${head[j + 1]} ${c}` : c] : []))
      .join(" · ");
    const first = r[0]?.trim() ? `${r[0]}: ` : "";
    return wrap(first + parts, width, first ? indent : indent + "    ", indent + "    ");
  });
}

/**
 * A table within `width` columns: as `table` when it fits; else cut into column groups printed one
 * under the other, each repeating the first column, and wrapped (wrappedTable) where a group still does not fit.
 */
export function fitTable(
  rows: readonly (readonly string[])[],
  width: number,
  right: ReadonlySet<number> = new Set(),
  indent = "  ",
): string[] {
  const whole = table(rows as string[][], right, indent);
  if (whole.every((l) => l.length <= width)) return whole;
  const w = widthsOf(rows);
  const span = (cols: number[]) =>
    indent.length + cols.reduce((a, i) => a + w[i]!, 0) + 2 * (cols.length - 1);
  const groups: number[][] = [];
  let cur = [0];
  for (let i = 1; i < w.length; i++) {
    if (cur.length > 1 && span([...cur, i]) > width) {
      groups.push(cur);
      cur = [0];
    }
    cur.push(i);
  }
  groups.push(cur);
  return groups.flatMap((g) =>
    wrappedTable(
      rows.map((r) => g.map((i) => r[i] ?? "")),
      width,
      new Set(g.flatMap((c, j) => (right.has(c) ? [j] : []))),
      indent,
    ),
  );
}
