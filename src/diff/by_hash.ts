/**
 * `diff` of a column family pair by key sets instead of a merge, where a side has many sorted runs (an
 * L0 pile-up: thousands of L0 files, each its own run): both sides' keys are cut into the same
 * sub-ranges, each side's live contents of a sub-range are read by key sets (lsm/live_by_hash.ts), and
 * bucket by bucket each side's live keys are looked up in the other side's set. The counts are exact
 * (the buckets hold keys and values, not fingerprints); the differing keys listed are the first in
 * key order, as the merge lists them: each sub-range's are sorted, and the sub-ranges come in key
 * order. Each run's keys are checked to ascend as they are read, where the merge checks its output.
 * Where a later run holds a newer version of a key, this gives up (false) and the caller merges.
 */
import type { ColumnFamilyModel, InstanceModel } from "../datadir/model.js";
import { ValueType } from "../base/internal_key.js";
import type { BlockSink } from "../lsm/merge.js";
import type { WalLayers } from "../lsm/wal_layers.js";
import { keyOf, liveSubRangeCuts, LiveKeySets, manyRuns } from "../lsm/live_by_hash.js";
import { BUCKETS, KeysOutOfOrder, UseMerge, type Bucket } from "../lsm/newest_by_hash.js";
import { toHex } from "../util/bytes.js";
import { LsmscopeError } from "../util/errors.js";
import type { DifferenceKind, KeyDifference } from "./index.js";

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
  /** Where its WAL layer comes from (else its live WALs are replayed for it alone). */
  wal?: WalLayers;
}

/** What a pair's comparison found: counts, and differing keys (hex) to the limit, in key order. */
export interface PairCounts {
  same: number;
  changed: number;
  onlyInA: number;
  onlyInB: number;
  differences: KeyDifference[];
}

/** A differing record noted in a sub-range, its key still in the bucket. */
interface Noted {
  kind: DifferenceKind;
  b: Bucket;
  e: number;
}

/** Whether records a (of ba) and b (of bb), both live newest versions, hold equal values. */
function sameValue(sa: LiveKeySets, ba: Bucket, a: number, sb: LiveKeySets, bb: Bucket, b: number): boolean {
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

/**
 * Compare the pair's live contents by key sets (see the module's comment) into `out`, where a side
 * has `minRuns` sorted runs or more (lsm/live_by_hash.ts LIVE_BY_HASH_MIN_RUNS by default); false (out
 * untouched) where the merge is to compare them: fewer runs, keys that the samples cannot cut finely
 * enough, or a later run holding a newer version.
 */
export function diffByHash(
  a: DiffSide | undefined,
  b: DiffSide | undefined,
  limit: number,
  minRuns: number,
  out: PairCounts,
): boolean {
  const present = [a, b].filter((s): s is DiffSide => s !== undefined);
  if (!present.some((s) => manyRuns(s.cf, minRuns))) return false;
  const sides: (LiveKeySets | undefined)[] = [];
  try {
    // opened first: a missing or damaged table is told as the merge tells it (lsm/live.ts)
    for (const s of [a, b]) sides.push(s && new LiveKeySets(s.inst, s.cf, s.blocks, true, s.wal));
    const cuts = liveSubRangeCuts(present.map((s) => s.cf));
    if (cuts === undefined) return false;
    const counts: PairCounts = { same: 0, changed: 0, onlyInA: 0, onlyInB: 0, differences: [] };
    compareSides(sides[0], sides[1], cuts, limit, counts, [a, b]);
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
  sa: LiveKeySets | undefined,
  sb: LiveKeySets | undefined,
  cuts: readonly Buffer[],
  limit: number,
  out: PairCounts,
  of: (DiffSide | undefined)[],
): void {
  const fill = (s: LiveKeySets | undefined, bound: Uint8Array | undefined, side: DiffSide | undefined) => {
    try {
      s?.fill(bound);
    } catch (e) {
      if (e instanceof KeysOutOfOrder) throw notAscending(side!.inst.path, side!.cf.displayName);
      throw e;
    }
  };
  const noted: Noted[] = [];
  const note = (kind: DifferenceKind, b: Bucket, e: number) => {
    out[kind]++;
    if (out.differences.length < limit) noted.push({ kind, b, e });
  };
  for (let c = 0; c <= cuts.length; c++) {
    fill(sa, cuts[c], of[0]);
    fill(sb, cuts[c], of[1]);
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
      noted.sort((x, y) => x.b.compareKey(x.e, y.e, y.b));
      for (const n of noted) {
        if (out.differences.length >= limit) break;
        out.differences.push({ kind: n.kind, key: toHex(keyOf(n.b, n.e)) });
      }
      noted.length = 0;
    }
  }
}
