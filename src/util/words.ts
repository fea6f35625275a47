/**
 * Words around numbers, shared by every command and the TUI: digit grouping, a count with its noun in
 * the singular for exactly one ("1 file", "3 files", "1 column family"), and prose wrapped to a width.
 */

/** An integer with thousands separators ("12,434"); other numbers as they are. */
export function int(n: number): string {
  if (!Number.isInteger(n)) return String(n);
  const s = String(Math.abs(n));
  let out = "";
  for (let i = 0; i < s.length; i++) {
    if (i > 0 && (s.length - i) % 3 === 0) out += ",";
    out += s[i];
  }
  return n < 0 ? "-" + out : out;
}

/** A share as a percentage: "0%", "<0.1%", "4.2%", "37%". */
export const pct = (x: number): string =>
  x === 0 ? "0%" : x < 0.001 ? "<0.1%" : `${(x * 100).toFixed(x < 0.1 ? 1 : 0)}%`;

/** The noun alone, singular for exactly one: `${n} small ${noun(n, "file")}`. */
export function noun(n: number, one: string, many = `${one}s`): string {
  return n === 1 ? one : many;
}

/** "1 file", "3 files", "1,234 column families" (pass the plural when it is not the singular + "s"). */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${int(n)} ${noun(n, one, many)}`;
}

/** Words of `text` in lines of at most `width` columns (a longer word gets its own line). */
export function wrap(text: string, width: number, first = "", rest = first): string[] {
  const out: string[] = [];
  let line = "";
  for (const word of text.split(" ")) {
    const lead = out.length === 0 ? first : rest;
    if (line && lead.length + line.length + 1 + word.length > width) {
      out.push(lead + line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  out.push((out.length === 0 ? first : rest) + line);
  return out;
}

/**
 * One line in lines of at most `width` columns, cut at word boundaries: continuation lines hang under
 * the line's own indent plus `hang` spaces ("note: " lines hang two). A line that fits is returned as is.
 */
export function fitLine(line: string, width: number, hang = 2): string[] {
  if (line.length <= width) return [line];
  const lead = line.startsWith("note: ") ? "note: " : /^ */.exec(line)![0];
  const rest = " ".repeat(lead === "note: " ? 2 : lead.length + hang);
  return wrap(line.slice(lead.length), width, lead, rest);
}
