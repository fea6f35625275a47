/**
 * Text tables for every command's text output: columns padded to their widest cell, some right-aligned,
 * cells cut to a cap with "…".
 */

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
