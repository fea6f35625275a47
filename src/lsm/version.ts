/**
 * One view of a column family's live files, as a point lookup walks them (LevelDB db/version_set.cc
 * Version::Get, RocksDB db/version_set.cc FilePicker):
 *
 *  - L0 files may overlap: every one whose [smallest, largest] user-key range holds the key is searched,
 *    newest first (the order of src/base/level_order.ts, which the datadir model keeps its levels in).
 *  - Each deeper level is sorted and disjoint: at most one file may hold the key, found as the engines
 *    find it (FindFile: binary search for the first file whose largest key is ≥ the key, which then
 *    holds it if its smallest key is ≤ the key).
 *  - The key's newest version is the first file, in that order, whose table holds the key (any type:
 *    a tombstone answers "not found").
 *
 * Keys in the MANIFEST are held as hex of the user key; hex order is byte order, so ranges compare as
 * strings. Tables are opened through a TableSource (src/lsm/table_cache.ts), so callers share the one
 * cache of open tables.
 */
import type { GetResult } from "../format/table.js";
import type { LastDataBlock } from "../format/table_get.js";
import { toHex } from "../util/bytes.js";
import { lowerBound } from "../util/lower_bound.js";
import { filterHashes, filterMayHold } from "./kept_filters.js";
import type { TableSource } from "./table_cache.js";
import { sortLevelFiles, type LiveFile } from "../base/level_order.js";

export { bySmallestKey, l0NewestFirst, sortLevelFiles, type LiveFile } from "../base/level_order.js";

const holds = (f: LiveFile, hex: string) => f.smallestKey <= hex && hex <= f.largestKey;

/** The newest version of a key: the table's answer, and the file and level it came from. */
export interface NewestVersion<F extends LiveFile> {
  result: GetResult;
  file: F;
}

export class Version<F extends LiveFile = LiveFile> {
  /** L0, newest first. */
  readonly l0: readonly F[];
  /** Levels ≥ 1 by level number (index 0 empty), each sorted by smallest key. */
  readonly levels: readonly (readonly F[])[];

  constructor(files: Iterable<F>) {
    const byLevel: F[][] = [[]];
    for (const f of files) {
      while (byLevel.length <= f.level) byLevel.push([]);
      byLevel[f.level]!.push(f);
    }
    for (let lv = 0; lv < byLevel.length; lv++) sortLevelFiles(lv, byLevel[lv]!);
    this.l0 = byLevel[0]!;
    this.levels = byLevel.map((files, lv) => (lv === 0 ? [] : files));
  }

  /** A view of the files of `levels` (the datadir model's LevelModel[]). */
  static of<F extends LiveFile>(levels: readonly { files: readonly F[] }[]): Version<F> {
    return new Version(levels.flatMap((l) => l.files));
  }

  /** The deepest level that holds files, or -1. */
  get bottomLevel(): number {
    for (let lv = this.levels.length - 1; lv > 0; lv--) if (this.levels[lv]!.length > 0) return lv;
    return this.l0.length > 0 ? 0 : -1;
  }

  /**
   * The one file of level `level` ≥ 1 whose key range holds `hex`, if any: LevelDB's FindFile (RocksDB's
   * FindFileInRange), the first file whose largest key is ≥ `hex`, then `hex` ≥ its smallest key. On a
   * healthy store a level's files are disjoint and any search finds the same file; on a damaged MANIFEST
   * whose level overlaps, this is the file the engines read.
   */
  fileFor(level: number, hex: string): F | undefined {
    const files = this.levels[level];
    if (!files) return undefined;
    const f = files[lowerBound(files.length, (i) => files[i]!.largestKey < hex)];
    return f && f.smallestKey <= hex ? f : undefined;
  }

  /**
   * Files that may hold the user key `hex`, in lookup order. With `below`: only those under an entry
   * of file `below.file` at level `below.level` — the other L0 files when it is in L0, then the deeper
   * levels.
   */
  filesFor(hex: string, below?: { level: number; file: F }): F[] {
    const out: F[] = [];
    this.filesForInto(hex, below, out);
    return out;
  }

  /**
   * filesFor written into `out` from its start (what lies past the count returned is stale): for a
   * caller that asks for thousands of files per key, many keys in a row, with one array.
   */
  filesForInto(hex: string, below: { level: number; file: F } | undefined, out: F[]): number {
    let n = 0;
    if (!below || below.level === 0) {
      const l0 = this.l0;
      for (let i = 0; i < l0.length; i++) {
        const f = l0[i]!;
        if (f !== below?.file && holds(f, hex)) out[n++] = f;
      }
    }
    for (let lv = Math.max(1, (below?.level ?? 0) + 1); lv < this.levels.length; lv++) {
      const f = this.fileFor(lv, hex);
      if (f) out[n++] = f;
    }
    return n;
  }

  /**
   * Files whose key ranges overlap the user keys [loHex, hiHex], in lookup order: filesFor for a range
   * (`below` as there). Each deeper level is sorted and disjoint: its files from the first whose largest
   * key reaches loHex on.
   */
  filesOverlapping(loHex: string, hiHex: string, below?: { level: number; file: F }): F[] {
    const out: F[] = [];
    if (!below || below.level === 0)
      for (const f of this.l0)
        if (f !== below?.file && f.smallestKey <= hiHex && loHex <= f.largestKey) out.push(f);
    for (let lv = Math.max(1, (below?.level ?? 0) + 1); lv < this.levels.length; lv++) {
      const files = this.levels[lv]!;
      // FindFile, as fileFor: from the first file whose largest key reaches loHex
      const first = lowerBound(files.length, (i) => files[i]!.largestKey < loHex);
      for (let i = first; i < files.length && files[i]!.smallestKey <= hiHex; i++) out.push(files[i]!);
    }
    return out;
  }

  /**
   * The newest version of `key` across the files: the first file in lookup order whose table holds it
   * (a tombstone included: its type says so). Files the model marks missing are skipped. With `above`:
   * only among the files a Get consults before file `above` (the L0 files ahead of it in L0 order, every
   * L0 file when it is deeper, then the one file per level between): whether an entry of that file is
   * shadowed.
   */
  get(key: Buffer, tables: TableSource, above?: F): NewestVersion<F> | undefined {
    return this.getMany([key], tables, above)[0];
  }

  /**
   * get() for many keys at once (RocksDB's Version::MultiGet), all of them above file `above` when
   * given: the files are walked one by one in lookup order, each for every key not yet answered that
   * its range holds, so each key's answer is the first file in its own lookup order whose table holds
   * it. A kept filter (TableSource.keptFilter) is asked by each key's 64-bit hash, computed once for
   * all the files; a table is opened once for all the keys its filter lets through. On an L0 pile-up
   * of 5,260 tables a sampled block's ~90 keys meet ~2,600 files above them each: key by key, every
   * file's filter was fetched from memory and the key hashed again, ~1 µs a file (`sizes --sample 100`:
   * 21 s of CPU); file by file, a filter is fetched once for all the keys.
   */
  getMany(keys: readonly Buffer[], tables: TableSource, above?: F): (NewestVersion<F> | undefined)[] {
    const n = keys.length;
    const out: (NewestVersion<F> | undefined)[] = new Array<NewestVersion<F> | undefined>(n).fill(undefined);
    if (n === 0) return out;
    const hexes = keys.map((k) => toHex(k));
    // each key's filter hash, low and high words at 2i, 2i + 1 (FilterBits.mayMatchHash): made when the
    // first kept filter is met, so a lookup through a source that keeps none hashes nothing
    let hashes: Uint32Array | undefined;
    const all = new Int32Array(n);
    let lowest = hexes[0]!;
    let highest = lowest;
    for (let i = 0; i < n; i++) {
      all[i] = i;
      const hex = hexes[i]!;
      if (hex < lowest) lowest = hex;
      if (hex > highest) highest = hex;
    }
    const lookUp = (file: F, which: Int32Array): void => {
      if (file.present === false) return;
      // a file whose range holds every key (most of a pile-up's, each spanning nearly the whole key
      // space) needs no comparison per key
      const holdsAll = holds(file, lowest) && holds(file, highest);
      const filter = tables.keptFilter?.(file.path);
      if (filter !== undefined) hashes ??= filterHashes(keys);
      let t: ReturnType<TableSource["acquire"]> | undefined;
      // the keys asked together are a block's (sample mode) or a sorted batch: those a filter lets
      // through in one table often fall in one of its data blocks, read once for them
      // this file's lookups one after another: its blocks read transiently
      const lastBlock: LastDataBlock = { transient: true };
      try {
        for (let w = 0; w < which.length; w++) {
          const i = which[w]!;
          if (out[i] !== undefined) continue;
          const hex = hexes[i]!;
          if (!holdsAll && !holds(file, hex)) continue;
          if (filter !== undefined && !filterMayHold(filter, keys[i]!, hashes!, i)) continue;
          if (t === undefined) {
            t = tables.acquire(file.path);
            tables.prepare?.(t);
          }
          const result = t.get(keys[i]!, undefined, lastBlock);
          if (result.found) out[i] = { result, file };
        }
      } finally {
        if (t !== undefined) tables.release(t);
      }
    };
    for (const f of this.l0) {
      if (f === above) return out;
      lookUp(f, all);
    }
    // each deeper level (above `above`): every key's one file there (fileFor), the keys grouped by file
    const end = above ? above.level : this.levels.length;
    for (let lv = 1; lv < end; lv++) {
      const byFile = new Map<F, number[]>();
      for (let i = 0; i < n; i++) {
        if (out[i] !== undefined) continue;
        const f = this.fileFor(lv, hexes[i]!);
        if (!f) continue;
        const which = byFile.get(f);
        if (which) which.push(i);
        else byFile.set(f, [i]);
      }
      for (const [f, which] of byFile) lookUp(f, Int32Array.from(which));
    }
    return out;
  }
}
