/**
 * `diff` of a column family pair by key sets instead of a merge, where a side has many sorted runs (an
 * L0 pile-up: thousands of L0 files, each its own run). A merge walks each side in key order, every
 * entry from another run's block (cache misses at every one, ~2 us an entry over 4,884 runs); here, as
 * `sizes --full` does over such stores (lsm/newest_by_hash.ts), both sides' keys are cut into the same
 * sub-ranges (lsm/key_cuts.ts), each side's runs are read one after the other into buckets by key hash,
 * newest run first, and bucket by bucket each side's newest version of a key is found by a key set and
 * looked up in the other side's set. The counts are exact (the buckets hold keys and values, not
 * fingerprints); the differing keys listed are the first in key order, as the merge lists them: each
 * sub-range's are sorted, and the sub-ranges come in key order.
 *
 * Live values as the merge gives them (lsm/live.ts LiveValues: blob indexes resolved, merge operands
 * refused). Each run's keys are checked to ascend as they are read. Where a later run holds a newer
 * version of a key, this gives up (false) and the caller merges.
 */
import type { ColumnFamilyModel, InstanceModel } from "../datadir/model.js";
import { ValueType } from "../base/internal_key.js";
import { openTable } from "../format/table.js";
import { cutsOf, splitSamples } from "../lsm/key_cuts.js";
import { cmpBytes, Fate, levelRuns, type BlockSink, type RangeTombstone, type Run } from "../lsm/merge.js";
import { LiveValues, openLiveSources, type LiveSources } from "../lsm/live.js";
import {
  BUCKETS,
  fateOf,
  KeyBuckets,
  KeySet,
  KeysOutOfOrder,
  UseMerge,
  type Bucket,
} from "../lsm/newest_by_hash.js";
import { toHex } from "../util/bytes.js";
import { LsmscopeError } from "../util/errors.js";

/**
 * Sorted runs (levelRuns: each L0 file, each deeper level) on a side from which the pair is compared
 * by key sets. The merge's cost per entry grows with the runs (log2 of them comparisons, each entry
 * from another run's block); the key sets' does not, but they hold a sub-range of both sides at once
 * where the merge's memory stays flat. db_bench L0 pile-ups against themselves (session 37): 4,884
 * tables 38.7 s merged, 9.8 s by key sets; 10,206 tables 100 s and 24.6 s; 601 tables 1.39-1.54 s
 * merged at 158 MiB, 1.21-1.44 s by key sets at 190 MiB (in process, three runs each), so from
 * sizes' threshold on (sizes/plan.ts NEWEST_BY_HASH_MIN_RUNS) and not below.
 */
export const DIFF_BY_HASH_MIN_RUNS = 1024;

/**
 * Stored table bytes of the larger side a sub-range holds, about (file bytes: the MANIFEST's sizes).
 * Both sides' keys, values and records of a sub-range are held at once, as `sizes` holds one side's
 * (sizes/plan.ts SUB_RANGE_BYTES).
 */
const SUB_RANGE_BYTES = 8 * 1024 * 1024;

/** A side's keys out of order, as both ways of comparing find it (the merge: its output stops ascending). */
export function notAscending(store: string | undefined, cf: string): LsmscopeError {
  return new LsmscopeError(
    `column family ${cf}: live keys do not ascend (a table holds keys out of order; inspect --verify names it)`,
    { file: store },
  );
}

/** One side of the pair: its column family and where its progress goes. */
export interface DiffSide {
  inst: InstanceModel;
  cf: ColumnFamilyModel;
  blocks: BlockSink;
}

/** What a pair's comparison found: counts, and differing keys (hex) to the limit, in key order. */
export interface PairCounts {
  same: number;
  changed: number;
  onlyInA: number;
  onlyInB: number;
  differences: { kind: "changed" | "onlyInA" | "onlyInB"; key: string }[];
}

/** A side's sources, read by key sets: runs newest first (the WAL layer first), values, range tombstones. */
class HashedSide {
  readonly entries: KeyBuckets;
  readonly values: LiveValues;
  readonly rangeDels: readonly RangeTombstone[];
  readonly set = new KeySet();
  /** Per record of the bucket being compared: 1 its key's live newest version, 2 matched; 0 neither. */
  live = new Uint8Array(1024);

  constructor(
    private readonly sources: LiveSources,
    private readonly side: DiffSide,
  ) {
    const runs: Run[] = [...sources.runs];
    // openLiveSources puts the WAL layer last; its writes are the newest
    const wal = sources.walEntries > 0 ? runs.pop() : undefined;
    if (wal) runs.unshift(wal);
    this.entries = new KeyBuckets(runs, wal, true, true);
    this.values = new LiveValues(side.inst.path, side.cf.displayName);
    this.rangeDels = sources.rangeDels;
  }

  /** Empty the buckets and put the runs' entries below `bound` in them (undefined: all that are left). */
  fill(bound: Uint8Array | undefined): void {
    try {
      this.entries.fill(bound);
    } catch (e) {
      if (e instanceof KeysOutOfOrder) throw notAscending(this.side.inst.path, this.side.cf.displayName);
      throw e;
    }
  }

  /**
   * Find each record's key's newest version in bucket b (its key set in `set`), and mark those that
   * are live in `live`.
   */
  newest(b: Bucket): void {
    const n = b.count;
    if (this.live.length < n) this.live = new Uint8Array(Math.max(n, 2 * this.live.length));
    const live = this.live;
    live.fill(0, 0, n);
    this.set.reset(n);
    for (let e = 0; e < n; e++) {
      const fate = fateOf(b, e, this.set.firstOf(b, e), this.rangeDels);
      if (fate !== Fate.Shadowed && this.isLive(b, e, fate)) live[e] = 1;
    }
  }

  /** Whether the newest version in record e is a live value (LiveValues' rules; it refuses merge operands). */
  private isLive(b: Bucket, e: number, fate: Fate): boolean {
    if (b.type(e) === ValueType.Value) return fate !== Fate.RangeDeleted;
    return this.value(b, e, fate === Fate.RangeDeleted) !== undefined;
  }

  /** The live value of record e (a newest version), or undefined. */
  value(b: Bucket, e: number, rangeDeleted = false): Uint8Array | undefined {
    const at = b.valueAt(e);
    const stored = b.values!.bytes.subarray(at, at + b.valueLength(e));
    const k = b.keyAt(e);
    return this.values.valueOf(b.type(e), rangeDeleted, stored, b.keys.subarray(k, k + b.keyLength(e)));
  }

  close(): void {
    this.sources.close();
    this.values.close();
  }
}

/** A differing record noted in a sub-range, its key still in the bucket. */
interface Noted {
  kind: "changed" | "onlyInA" | "onlyInB";
  b: Bucket;
  e: number;
}

/** Whether records a (of ba) and b (of bb), both live newest versions, hold equal values. */
function sameValue(sa: HashedSide, ba: Bucket, a: number, sb: HashedSide, bb: Bucket, b: number): boolean {
  if (ba.type(a) === ValueType.Value && bb.type(b) === ValueType.Value) {
    const la = ba.valueLength(a);
    if (bb.valueLength(b) !== la) return false;
    const va = ba.values!.bytes;
    const vb = bb.values!.bytes;
    const oa = ba.valueAt(a);
    const ob = bb.valueAt(b);
    for (let i = 0; i < la; i++) if (va[oa + i] !== vb[ob + i]) return false;
    return true;
  }
  const va = sa.value(ba, a)!;
  const vb = sb.value(bb, b)!;
  return Buffer.compare(va, vb) === 0;
}

/** The user key of record e of b (a view into the bucket). */
const keyOf = (b: Bucket, e: number) => b.keys.subarray(b.keyAt(e), b.keyAt(e) + b.keyLength(e));

/**
 * The sub-ranges' bounds (user keys, ascending) for the sides' tables, or undefined where the samples
 * cannot cut them finely enough (keys alike in their index separators): a sub-range's entries are held
 * at once, and the merge's memory does not grow with them.
 */
function subRangeCuts(sides: DiffSide[]): Buffer[] | undefined {
  const bytes = Math.max(...sides.map((s) => s.cf.totals.bytes));
  const parts = Math.ceil(bytes / SUB_RANGE_BYTES);
  if (parts <= 1) return [];
  const samples = sides.flatMap((s) =>
    splitSamples(levelRuns(s.cf.levels), (path, size) => openTable(path, { expectedSize: size })),
  );
  const cuts = cutsOf(samples, parts, 0);
  return 2 * (cuts.length + 1) >= parts ? cuts.map((h) => Buffer.from(h, "hex")) : undefined;
}

/**
 * Compare the pair's live contents by key sets (see the module's comment) into `out`, where a side
 * has `minRuns` sorted runs or more; false (out untouched) where the merge is to compare them: fewer
 * runs, keys that the samples cannot cut finely enough, or a later run holding a newer version.
 */
export function diffByHash(
  a: DiffSide | undefined,
  b: DiffSide | undefined,
  limit: number,
  minRuns: number,
  out: PairCounts,
): boolean {
  const present = [a, b].filter((s): s is DiffSide => s !== undefined);
  if (!present.some((s) => levelRuns(s.cf.levels).length >= minRuns)) return false;
  const sides: (HashedSide | undefined)[] = [];
  try {
    // opened first: a missing or damaged table is told as the merge tells it (openLiveSources)
    for (const s of [a, b]) sides.push(s && new HashedSide(openLiveSources(s.inst, s.cf, s.blocks), s));
    const cuts = subRangeCuts(present);
    if (cuts === undefined) return false;
    const counts: PairCounts = { same: 0, changed: 0, onlyInA: 0, onlyInB: 0, differences: [] };
    compareSides(sides[0], sides[1], cuts, limit, counts);
    Object.assign(out, counts);
    return true;
  } catch (e) {
    if (e instanceof UseMerge) return false;
    throw e;
  } finally {
    for (const s of sides) s?.close();
  }
}

function compareSides(
  sa: HashedSide | undefined,
  sb: HashedSide | undefined,
  cuts: readonly Buffer[],
  limit: number,
  out: PairCounts,
): void {
  const noted: Noted[] = [];
  const note = (kind: Noted["kind"], b: Bucket, e: number) => {
    out[kind]++;
    if (out.differences.length < limit) noted.push({ kind, b, e });
  };
  for (let c = 0; c <= cuts.length; c++) {
    sa?.fill(cuts[c]);
    sb?.fill(cuts[c]);
    for (let i = 0; i < BUCKETS; i++) {
      const ba = sa?.entries.buckets[i];
      const bb = sb?.entries.buckets[i];
      if (sa && ba) sa.newest(ba);
      if (sb && bb) {
        sb.newest(bb);
        const liveB = sb.live;
        for (let e = 0; e < bb.count; e++) {
          if (liveB[e] !== 1) continue;
          const j = sa && ba ? sa.set.find(ba, bb, e) : -1;
          if (j >= 0 && sa!.live[j] !== 0) {
            sa!.live[j] = 2;
            if (sameValue(sa!, ba!, j, sb, bb, e)) out.same++;
            else note("changed", bb, e);
          } else note("onlyInB", bb, e);
        }
      }
      if (sa && ba) for (let e = 0; e < ba.count; e++) if (sa.live[e] === 1) note("onlyInA", ba, e);
    }
    // this sub-range's differing keys before the next fill empties the buckets: the first in key order
    if (noted.length > 0) {
      const keys = noted.map((n) => keyOf(n.b, n.e));
      const order = noted.map((_, i) => i);
      order.sort((x, y) => cmpBytes(keys[x]!, keys[x]!.length, keys[y]!, keys[y]!.length));
      for (const i of order) {
        if (out.differences.length >= limit) break;
        out.differences.push({ kind: noted[i]!.kind, key: toHex(keys[i]!) });
      }
      noted.length = 0;
    }
  }
}
