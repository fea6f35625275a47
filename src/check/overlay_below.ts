/**
 * The placement overlay's lookups below a sampled entry (step 3 of overlay.ts's method): the files a
 * Get walks after the entry's own (FilesBelow: L0 newest first, then the one file per deeper level
 * whose range holds the key), and the point lookups of sampled entries there, file by file
 * (lookUpBelow). Block sampling's merge passes (overlay_merge.ts) take their candidate files from here
 * too.
 */
import { expectedFileSize, type LevelModel, type SstFileModel } from "../datadir/model.js";
import type { DetachedFilter } from "../format/filter_reader.js";
import type { LastDataBlock, SstTable } from "../format/table.js";
import { filterHashes, filterMayHold, type KeptFilters } from "../lsm/kept_filters.js";
import type { TableCache } from "../lsm/table_cache.js";
import { Version } from "../lsm/version.js";
import { toHex } from "../util/bytes.js";
import { keyAt, type BlockUnit, type Sampled } from "./overlay_blocks.js";
import type { LookupTally } from "./overlay_merge.js";
import { shuffle } from "./stats.js";

/**
 * Whether file `f`, consulted below an entry written at `seqno`, may hold an older version of its key:
 * an L0 file whose entries are all newer (its smallest sequence number above `seqno`) cannot.
 */
function mayHoldOlder(f: SstFileModel, seqno: number): boolean {
  return f.level !== 0 || !((f.smallestSeqno ?? 0) > seqno);
}

/** The files below an entry that a Get walks: L0 newest first, then one file per deeper level. */
export class FilesBelow {
  private readonly version: Version<SstFileModel>;

  constructor(levels: LevelModel[]) {
    this.version = Version.of(levels);
  }

  /**
   * Files that may hold an older version of user key `hex` written at `seqno` in `file` of `level`.
   * An L0 file whose smallest sequence number is above the entry's cannot, and is left out.
   */
  candidates(hex: string, level: number, seqno: number, file: SstFileModel): SstFileModel[] {
    const files: SstFileModel[] = [];
    files.length = this.candidatesInto(hex, level, seqno, file, files);
    return files;
  }

  /** candidates() written into `out` from its start; their count (what lies past it is stale). */
  candidatesInto(hex: string, level: number, seqno: number, file: SstFileModel, out: SstFileModel[]): number {
    // filtered in place: on an L0 pile-up the list holds thousands of files
    const all = this.version.filesForInto(hex, { level, file }, out);
    let n = 0;
    for (let i = 0; i < all; i++) {
      const f = out[i]!;
      if (mayHoldOlder(f, seqno)) out[n++] = f;
    }
    return n;
  }

  /**
   * Lookups one entry above the bottom costs, estimated from the MANIFEST alone: the mean over up to
   * 64 files above (spread over them) of the candidates of an entry at the file's smallest key and
   * largest sequence number.
   */
  lookupsPerEntry(upper: LevelModel[]): number {
    const files = upper.flatMap((l) => l.files.map((f) => ({ f, level: l.level })));
    if (files.length === 0) return 0;
    const step = Math.max(1, Math.floor(files.length / 64));
    let n = 0;
    let sum = 0;
    const scratch: SstFileModel[] = [];
    for (let i = 0; i < files.length; i += step) {
      const { f, level } = files[i]!;
      sum += this.candidatesInto(f.smallestKey, level, f.largestSeqno ?? Number.MAX_SAFE_INTEGER, f, scratch);
      n++;
    }
    return sum / n;
  }

  /**
   * Files that may hold an older version of keys in [first, last] (user keys) drawn from file `u.file`
   * of level `u.level` with sequence numbers up to `seqno`, in walk order: the other L0 files that
   * overlap the range (those whose smallest sequence number is above `seqno` cannot), then in each
   * deeper level the files that overlap it.
   */
  candidatesForRange(
    first: Buffer,
    last: Buffer,
    u: { level: number; file: SstFileModel },
    seqno: number,
  ): SstFileModel[] {
    const lo = toHex(first);
    const hi = last === first ? lo : toHex(last);
    return this.version.filesOverlapping(lo, hi, u).filter((f) => mayHoldOlder(f, seqno));
  }

  /** candidatesForRange for the keys drawn in block `u` (a block drawn for one entry: its key twice). */
  candidatesForUnit(u: BlockUnit): SstFileModel[] {
    const first = keyAt(u.keys, 0);
    const last = u.keys.n === 1 ? first : keyAt(u.keys, u.keys.n - 1);
    return this.candidatesForRange(first, last, u, u.keys.maxSeqno);
  }

  /**
   * Whether some entry of `f` (level `level`) may have an older version below: some file the lookups
   * consult for its keys overlaps its key range (another L0 file for an L0 file, unless it holds no
   * entry older than all of `f`'s; a file of a deeper level). Files for which this is false hold no
   * shadowing entry.
   */
  mayShadow(f: SstFileModel, level: number): boolean {
    // past a few hundred L0 files the pairwise test costs more than it saves (the pile-up's lookups
    // are bounded by the budget anyway): every L0 file may shadow
    if (level === 0 && this.version.l0.length > 256) return true;
    const seqno = f.largestSeqno ?? Number.MAX_SAFE_INTEGER;
    return this.version
      .filesOverlapping(f.smallestKey, f.largestKey, { level, file: f })
      .some((g) => mayHoldOlder(g, seqno));
  }

  /** Every file, in the order a Get walks them. */
  walkOrder(): SstFileModel[] {
    return [...this.version.l0, ...this.version.levels.flat()];
  }
}

/** What the lookups below found for one sampled entry. */
export interface Resolution {
  weight: number;
  /** The sampled entry's block's stored size (Sampled.storedBytes), when known. */
  storedBytes?: number;
  /** Bytes (internal key + value) of the nearest older version below, when there is one. */
  olderBytes?: number;
  /** No older version found and some file below could not be read. */
  unresolved: boolean;
}

/**
 * Look each sampled entry up in the files below it that may hold its key, file by file rather than
 * entry by entry: every file is opened once, for all the entries that need it, and files are visited
 * in the order a Get walks them (L0 newest first, then each deeper level), so each entry stops at its
 * nearest older version exactly as a walk per entry would. An L0 file whose smallest sequence number
 * is above the entry's cannot hold an older version and is not consulted. When the lookups would
 * exceed `budget`, a uniform subsample of the entries is checked (m.droppedForLookupBudget).
 */
export function lookUpBelow(
  below: FilesBelow,
  sample: Sampled[],
  { cache, filters }: { cache: TableCache; filters?: KeptFilters | undefined },
  random: () => number,
  budget: number,
  m: Pick<LookupTally, "lookups">,
  skip: (f: SstFileModel, e: unknown) => void,
): { resolved: Resolution[]; dropped: number } {
  // a uniform order (Fisher–Yates), so that when the budget ends the checks, the prefix checked is a
  // uniform subsample of the draw
  const order = shuffle(sample.slice(), random);
  // each checked entry's candidate files, one after another in `flat` (entry i's from starts[i])
  const entries: { s: Sampled }[] = [];
  const flat: SstFileModel[] = [];
  const starts: number[] = [0];
  const scratch: SstFileModel[] = [];
  let lookups = 0;
  for (const s of order) {
    const n = below.candidatesInto(toHex(s.key), s.level, s.seqno, s.file, scratch);
    if (lookups + n > budget) break;
    for (let j = 0; j < n; j++) flat[lookups + j] = scratch[j]!;
    lookups += n;
    starts.push(lookups);
    entries.push({ s });
  }
  const out: Resolution[] = entries.map((e) => ({
    weight: e.s.weight,
    storedBytes: e.s.storedBytes,
    unresolved: false,
  }));
  const done = new Uint8Array(entries.length);
  // each key's filter hash, once for all the tables it is looked up in (FilterBits.mayMatchHash)
  const hashes = filterHashes(entries.map((e) => e.s.key));
  const state: LookupState = { entries, hashes, done, out };
  const files = below.walkOrder();
  const { first, wanted } = entriesByFile(files, entries, flat, starts);
  for (let k = 0; k < files.length; k++) {
    const f = files[k]!;
    const wanting = wanted.subarray(first[k]!, first[k + 1]!);
    let pending = 0;
    for (let w = 0; w < wanting.length; w++) pending += 1 - done[wanting[w]!]!;
    if (pending === 0) continue;
    if (f.present && ruledOut(filters?.get(f.path), wanting, state)) {
      // what the table's get() would answer for each: its filter rejects the key
      m.lookups.tablesConsulted += pending;
      m.lookups.filterRejections += pending;
      continue;
    }
    let t;
    try {
      if (!f.present) throw new Error("missing");
      // the filter, index, properties and metaindex lie at the end of the file: one read (as wide as
      // the tables before needed), no fstat. /tmp/l0's 4,354 tables opened and filters read: 90 -> 69 ms
      t = cache.acquireForMetadata(f.path, expectedFileSize(f));
    } catch (e) {
      skip(f, e);
      for (let w = 0; w < wanting.length; w++)
        if (done[wanting[w]!] === 0) out[wanting[w]!]!.unresolved = true;
      continue;
    }
    try {
      const filter = wholeKeyFilter(t);
      // the reads so far reach the filter, the lowest of the blocks a lookup reads at the end
      cache.noteMetadataRead(t);
      lookUpInTable(t, f, filter, wanting, state, m, skip);
    } finally {
      cache.release(t);
    }
  }
  return { resolved: out, dropped: order.length - entries.length };
}

/**
 * Which entries need each file, files in walk order (`files`), each file's entries in key order, so
 * that keys falling in one data block read it once (LastDataBlock): the entries sorted once (a stable
 * sort: equal keys keep their draw order), each file's list taken from that order. File k's entries
 * are wanted[first[k] .. first[k + 1]). Flat arrays, indexed loops: ~100,000 steps on an L0 pile-up,
 * most before V8 optimises them, where an array per file grew by copies and a for-of made an
 * iterator result per step.
 */
function entriesByFile(
  files: readonly SstFileModel[],
  entries: readonly { s: Sampled }[],
  flat: readonly SstFileModel[],
  starts: readonly number[],
): { first: Int32Array; wanted: Int32Array } {
  const byKey = entries.map((_, i) => i).sort((a, b) => Buffer.compare(entries[a]!.s.key, entries[b]!.s.key));
  const at = new Map<SstFileModel, number>();
  for (let k = 0; k < files.length; k++) at.set(files[k]!, k);
  const pos = new Int32Array(flat.length);
  const first = new Int32Array(files.length + 1);
  for (let j = 0; j < flat.length; j++) {
    const k = at.get(flat[j]!)!;
    pos[j] = k;
    first[k + 1] = first[k + 1]! + 1;
  }
  for (let k = 0; k < files.length; k++) first[k + 1] = first[k + 1]! + first[k]!;
  const fill = first.slice(0, files.length);
  const wanted = new Int32Array(flat.length);
  for (let b = 0; b < byKey.length; b++) {
    const i = byKey[b]!;
    for (let j = starts[i]!; j < starts[i + 1]!; j++) wanted[fill[pos[j]!]!++] = i;
  }
  return { first, wanted };
}

/**
 * Whether a table's kept filter rejects every entry still `wanting` it: the table need not be opened
 * (on /tmp/l0, ~4,300 of its 4,354 tables; opening them again was ~40% of the overlay's time). When
 * some key passes, the table is opened and every lookup made there as without a kept filter.
 */
function ruledOut(filter: DetachedFilter | undefined, wanting: Int32Array, state: LookupState): boolean {
  const done = state.done;
  if (filter === undefined) return false;
  for (let w = 0; w < wanting.length; w++) {
    const i = wanting[w]!;
    if (done[i] === 0 && mayHoldEntry(filter, i, state)) return false;
  }
  return true;
}

/** Whether `filter` may hold entry i's key (by its hash where the filter takes one). */
function mayHoldEntry(filter: DetachedFilter, i: number, { entries, hashes }: LookupState): boolean {
  return filterMayHold(filter, entries[i]!.s.key, hashes, i);
}

/** The sampled entries checked, their filter hashes, and what the lookups found so far. */
interface LookupState {
  entries: readonly { s: Sampled }[];
  /** Each entry's 64-bit XXH3, low and high words at 2i, 2i + 1 (filterHashes). */
  hashes: Uint32Array;
  /** 1 once an entry's older version is found: later files are not asked. */
  done: Uint8Array;
  out: Resolution[];
}

/**
 * The table's whole-key filter, when its answer is get()'s (no range deletions, bytewise keys): read
 * now. undefined without one, or when it cannot be read (get() then meets the damage and it is
 * reported there, lookup by lookup, as before).
 */
function wholeKeyFilter(t: SstTable): DetachedFilter | undefined {
  try {
    return t.detachedFilter();
  } catch {
    return undefined;
  }
}

/**
 * The lookups of the entries `wanting` (not yet `done`) in one open table, in their order. Most are
 * filter rejections on an L0 pile-up (~94,000 of ~96,000 on /tmp/l0): those are asked of the table's
 * whole-key filter directly, which is what its get() would do first and answer (a table whose get()
 * the filter alone cannot answer, having range deletions or another comparator, has none), without a
 * result object per lookup.
 */
function lookUpInTable(
  t: SstTable,
  f: SstFileModel,
  filter: DetachedFilter | undefined,
  wanting: Int32Array,
  state: LookupState,
  m: Pick<LookupTally, "lookups">,
  skip: (f: SstFileModel, e: unknown) => void,
): void {
  // this table's lookups one after another: its blocks read transiently
  const lastBlock: LastDataBlock = { transient: true };
  const { entries, done, out } = state;
  for (let w = 0; w < wanting.length; w++) {
    const i = wanting[w]!;
    if (done[i] !== 0) continue;
    const s = entries[i]!.s;
    m.lookups.tablesConsulted++;
    if (filter !== undefined && !mayHoldEntry(filter, i, state)) {
      m.lookups.filterRejections++;
      continue;
    }
    let r;
    try {
      r = t.get(s.key, undefined, lastBlock);
    } catch (e) {
      skip(f, e);
      out[i]!.unresolved = true;
      continue;
    }
    if (r.filterRejected) m.lookups.filterRejections++;
    m.lookups.dataBlocksRead += r.stats.dataBlocksRead;
    if (r.found && r.seqno !== undefined && r.seqno < s.seqno) {
      out[i]!.olderBytes = s.key.length + 8 + (r.value?.length ?? 0);
      out[i]!.unresolved = false;
      done[i] = 1;
    }
  }
}
