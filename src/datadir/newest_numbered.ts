/**
 * Store files numbered after a stem, "OPTIONS-000007", "MANIFEST-000123": which of a directory's names
 * they are, newest (highest number) first. Only a whole "<stem>-<digits>" name counts
 * ("OPTIONS-000007.dbtmp", a file RocksDB is still writing, does not); leading zeros do not matter
 * ("OPTIONS-7" and "OPTIONS-000007" are the same number), and names with the same number keep their
 * order in `names`.
 */

/** The names "<stem>-<n>" among `names`, highest n first. */
export function numberedNewestFirst(names: readonly string[], stem: string): string[] {
  const prefix = `${stem}-`;
  return names
    .filter((n) => n.startsWith(prefix) && /^\d+$/.test(n.slice(prefix.length)))
    .map((n) => ({ n, num: Number(n.slice(prefix.length)) }))
    .sort((a, b) => b.num - a.num)
    .map((e) => e.n);
}

/** The name "<stem>-<n>" with the highest n among `names` (the first such in `names` on a tie). */
export function newestNumbered(names: readonly string[], stem: string): string | undefined {
  return numberedNewestFirst(names, stem)[0];
}
