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

/**
 * A share in [0,1] as a percentage, the one form every command prints: "0%", "<0.1%", "4.2%", "37%",
 * "99.6%", ">99.9%", "100%". Nothing but 0 reads "0%", nothing but all reads "100%".
 */
export function pct(x: number): string {
  if (x === 0) return "0%";
  if (x < 0.001) return "<0.1%";
  if (x < 1 && x > 0.999) return ">99.9%";
  return `${(x * 100).toFixed(x < 0.1 || (x < 1 && x >= 0.995) ? 1 : 0)}%`;
}

/** `part` of `whole` as pct says it ("0%" when the whole is 0). */
export const pctOf = (part: number, whole: number): string => (whole > 0 ? pct(part / whole) : "0%");

/**
 * A filter's false-positive rate as a percentage to 3 decimals: 0.0094 → "0.940%" (`sst`'s filter line,
 * inspect's expected rate beside the estimated one).
 */
export const fpText = (p: number): string => `${(p * 100).toFixed(3)}%`;

/** The noun alone, singular for exactly one: `${n} small ${noun(n, "file")}`. */
export function noun(n: number, one: string, many = `${one}s`): string {
  return n === 1 ? one : many;
}

/** "1 file", "3 files", "1,234 column families" (pass the plural when it is not the singular + "s"). */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${int(n)} ${noun(n, one, many)}`;
}

/**
 * The first `max` of `items` joined with ", ", then "… and N more": lists a datadir decides the length
 * of (column families, stores) stay one readable line in an error however many it holds.
 */
export function someOf(items: readonly string[], max = 6): string {
  if (items.length <= max) return items.join(", ");
  return `${items.slice(0, max).join(", ")} … and ${int(items.length - max)} more`;
}

/** The width text is fitted to when no terminal says otherwise: the project's 80-column promise. */
export const DEFAULT_WIDTH = 80;

/** Words of `text` in lines of at most `width` columns (a longer word gets its own line). */
export function wrap(text: string, width: number, first = "", rest = first): string[] {
  const out: string[] = [];
  let line = "";
  // a unit stays on the line of its number ("112 KiB", "21 ms"), a count on its name's ("LZ4 ×2")
  const words = text.split(" ").reduce<string[]>((ws, w) => {
    const prev = ws.length ? ws[ws.length - 1]! : undefined;
    if (prev !== undefined && ((/\d$/.test(prev) && /^(B|KiB|MiB|GiB|TiB|ms|s)\b/.test(w)) || /^×\d/.test(w)))
      ws[ws.length - 1] = `${prev} ${w}`;
    else ws.push(w);
    return ws;
  }, []);
  for (const word of words) {
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
 * `breakWords`: a word longer than a line (hex keys) is cut across lines too; otherwise it stands alone.
 */
export function fitLine(line: string, width: number, hang = 2, breakWords = false): string[] {
  if (line.length <= width) return [line];
  const lead = line.startsWith("note: ") ? "note: " : /^ */.exec(line)![0];
  const rest = " ".repeat(lead === "note: " ? 2 : lead.length + hang);
  const lines = wrap(line.slice(lead.length), width, lead, rest);
  if (!breakWords) return lines;
  const room = Math.max(8, width - rest.length);
  return lines.flatMap((l, i) => {
    if (l.length <= width) return [l];
    const indent = i === 0 ? lead : rest;
    const text = l.slice(indent.length);
    const head = text.slice(0, Math.max(8, width - indent.length));
    const tail = text.slice(head.length);
    const pieces = [indent + head];
    for (let k = 0; k < tail.length; k += room) pieces.push(rest + tail.slice(k, k + room));
    return pieces;
  });
}

/**
 * As fitLine, with `tail` kept whole on the last line (on a line of its own, hanging, when it does not fit
 * beside the rest): a verdict read from the last line ("picture incomplete") stays on it.
 */
export function fitLineKeepingTail(line: string, tail: string, width: number, hang = 2): string[] {
  const lines = fitLine(line, width, hang);
  const last = lines[lines.length - 1]!;
  if (last.length + tail.length <= width) lines[lines.length - 1] = last + tail;
  else lines.push(" ".repeat(/^ */.exec(line)![0].length + hang) + tail.replace(/^ · /, "· ").trimStart());
  return lines;
}
