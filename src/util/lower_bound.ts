/**
 * The code base's binary search: the first index of [0, n) at which a monotone predicate stops holding
 * (C++'s std::lower_bound; LevelDB's FindFile in db/version_set.cc, RocksDB's FindFileInRange).
 * Callers say what "before the target" means for their entries — a level's files by largest key, a
 * block's separators, sorted entries by key — and read the answer the same way: n when every entry
 * sorts before the target. One shape for every search keeps their semantics from drifting apart (the
 * level searches once differed: one by smallest key, one by largest). The one loop of its own is a data
 * block's restart search (BlockCursor.seek in src/format/block.ts): the last restart before the target,
 * RocksDB's BinarySeek, which moves the cursor as it compares.
 *
 * Allocation-free: the helper makes no array or result object; a caller's predicate closure is its one
 * cost, ~15 ns a search in isolation (an 830-entry packed index, ~70 ns inline) and nothing measurable in
 * the probe's reader path, which searches per lookup per level and per table (each lookup takes µs). A
 * search that ever needs the loop inline keeps exactly this loop and says so, pointing here.
 */

/**
 * The first i in [0, n) for which `before(i)` is false, or n when it holds for all. `before` must be
 * monotone: true for a prefix of [0, n), false from there on; it is called O(log n) times, never with
 * an index outside [0, n).
 */
export function lowerBound(n: number, before: (i: number) => boolean): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (before(mid)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
