/**
 * One copy of text that the models of thousands of tables repeat (a comparator's name, compression
 * options, the creating db and session ids, "nullptr", a checksum function's name): V8 keeps a string
 * per decode, so a store's model held the same text once per table. Bounded, so a store whose tables
 * all differ costs no more than before.
 */
const SHARED_TEXT_MAX = 4096;
const SHARED_TEXT_LONGEST = 256;
const sharedText = new Map<string, string>();

/** The one copy of `s` that earlier callers hold, or `s` (then kept if there is room). */
export function sharedString(s: string): string;
export function sharedString(s: string | undefined): string | undefined;
export function sharedString(s: string | undefined): string | undefined {
  if (s === undefined || s.length > SHARED_TEXT_LONGEST) return s;
  const known = sharedText.get(s);
  if (known !== undefined) return known;
  if (sharedText.size < SHARED_TEXT_MAX) sharedText.set(s, s);
  return s;
}
