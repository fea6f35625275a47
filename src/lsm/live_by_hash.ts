/**
 * The live contents of a column family (live.ts) read by key sets instead of a merge, for stores of
 * many sorted runs (an L0 pile-up: each L0 file is a run). A merge walks the runs in key order, each
 * entry from another run's block (cache misses at every one over thousands of runs); here the key
 * range is cut into sub-ranges (key_cuts.ts), in each the runs are read newest first into buckets by
 * key hash, keys and values copied (newest_by_hash.ts KeyBuckets), and bucket by bucket a key set
 * tells each key's newest version. Live as live.ts tells it: LiveValues resolves blob indexes and
 * refuses merge operands; a newer range tombstone hides a key. Not in key order: `diff` compares two
 * stores' sets bucket by bucket, the compaction digest sorts each sub-range's live keys.
 *
 * Where a later run holds a newer version of a key, KeyBuckets' fill throws UseMerge: the caller
 * merges instead.
 */
import type { ColumnFamilyModel, InstanceModel } from "../datadir/model.js";
import { ValueType } from "../base/internal_key.js";
import { openTable } from "../format/table.js";
import { cutsOf, splitSamples } from "./key_cuts.js";
import { Fate, levelRuns, type BlockSink, type RangeTombstone, type Run } from "./merge.js";
import { LiveValues, openLiveSources, type LiveSources } from "./live.js";
import type { WalLayers } from "./wal_layers.js";
import { fateOf, KeyBuckets, KeySet, type Bucket } from "./newest_by_hash.js";
import { grownKeeping } from "../util/grow.js";

/**
 * Sorted runs (levelRuns: each L0 file, each deeper level) of a column family from which its live
 * contents are read by key sets. The merge's cost per entry grows with the runs (log2 of them
 * comparisons, each entry from another run's block); the key sets' does not, but they hold a
 * sub-range at once where the merge's memory stays flat. `diff` of db_bench L0 pile-ups against
 * themselves (session 37): 4,884 tables 38.7 s merged, 9.8 s by key sets; 10,206 tables 100-130 s
 * and 24.6 s; 601 tables 1.39-1.54 s merged at 158 MiB, 1.21-1.44 s by key sets at 190 MiB (in
 * process, three runs each): from sizes' threshold on (sizes/plan.ts NEWEST_BY_HASH_MIN_RUNS), not below.
 */
export const LIVE_BY_HASH_MIN_RUNS = 1024;

/** Whether a column family has the runs to be read by key sets (LIVE_BY_HASH_MIN_RUNS, or `minRuns`). */
export function manyRuns(cf: ColumnFamilyModel, minRuns = LIVE_BY_HASH_MIN_RUNS): boolean {
  return levelRuns(cf.levels).length >= minRuns;
}

/**
 * Stored table bytes of the largest column family read at once a sub-range holds, about (file bytes:
 * the MANIFEST's sizes). Its keys, values and records are held at once, as `sizes` holds one
 * sub-range's keys and records (sizes/plan.ts SUB_RANGE_BYTES).
 */
const SUB_RANGE_BYTES = 8 * 1024 * 1024;

/**
 * Bytes of blob values a sub-range keeps once newest() has read them (to tell that the key is live),
 * for value() to give again without reading the blob file twice; past it, value() reads them again.
 */
const RESOLVED_BLOB_BYTES = 32 * 1024 * 1024;

/**
 * Sub-range bounds (user keys, ascending) common to the column families (the two sides of a `diff`, or
 * one), or undefined where the samples cannot cut them finely enough (keys alike in their index
 * separators): a sub-range's entries are held at once, and the merge's memory does not grow with them.
 */
export function liveSubRangeCuts(cfs: readonly ColumnFamilyModel[]): Buffer[] | undefined {
  const bytes = Math.max(...cfs.map((cf) => cf.totals.bytes));
  const parts = Math.ceil(bytes / SUB_RANGE_BYTES);
  if (parts <= 1) return [];
  const samples = cfs.flatMap((cf) =>
    splitSamples(levelRuns(cf.levels), (path, size) => openTable(path, { expectedSize: size })),
  );
  const cuts = cutsOf(samples, parts, 0);
  return 2 * (cuts.length + 1) >= parts ? cuts.map((h) => Buffer.from(h, "hex")) : undefined;
}

/**
 * A column family's live contents by sub-range: fill() reads a sub-range's entries into buckets,
 * newest() marks in `live` the records of a bucket that are their key's live newest version.
 */
export class LiveKeySets {
  readonly entries: KeyBuckets;
  readonly values: LiveValues;
  /** The newest records' keys of the bucket newest() was last given. */
  readonly set = new KeySet();
  /** Per record of that bucket: 1 its key's live newest version, else 0 (a caller may mark on). */
  live = new Uint8Array(1024);
  /** Entries read so far (every version, tombstones included), and those of the WAL layer. */
  entriesRead = 0;
  readonly walEntries: number;
  private readonly sources: LiveSources;
  private readonly rangeDels: readonly RangeTombstone[];
  /** Blob values newest() read in this sub-range, by bucket and record (RESOLVED_BLOB_BYTES at most). */
  private readonly resolved = new Map<Bucket, Map<number, Uint8Array>>();
  private resolvedBytes = 0;

  /** `checkOrder`: each run's keys checked to ascend as read (else KeysOutOfOrder from fill). */
  constructor(
    inst: InstanceModel,
    cf: ColumnFamilyModel,
    blocks: BlockSink | undefined,
    checkOrder: boolean,
    /** Where the column family's WAL layer comes from (else it is replayed for it alone). */
    walLayers?: WalLayers,
  ) {
    this.sources = openLiveSources(inst, cf, blocks, undefined, undefined, walLayers);
    try {
      const runs: Run[] = [...this.sources.runs];
      // openLiveSources puts the WAL layer last; its writes are the newest
      const wal = this.sources.walEntries > 0 ? runs.pop() : undefined;
      if (wal) runs.unshift(wal);
      this.entries = new KeyBuckets(runs, wal, true, checkOrder);
      this.values = new LiveValues(inst.path, cf);
    } catch (e) {
      this.sources.close();
      throw e;
    }
    this.walEntries = this.sources.walEntries;
    this.rangeDels = this.sources.rangeDels;
  }

  /** Empty the buckets and put the runs' entries below `bound` in them (undefined: all that are left). */
  fill(bound: Uint8Array | undefined): void {
    this.resolved.clear();
    this.resolvedBytes = 0;
    this.entries.fill(bound);
    for (const b of this.entries.buckets) this.entriesRead += b.count;
  }

  /**
   * Find each record's key's newest version in bucket b (their keys in `set`), and mark those that
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
    const type = b.type(e);
    if (type === ValueType.Value) return fate !== Fate.RangeDeleted;
    const v = this.value(b, e, fate === Fate.RangeDeleted);
    // a blob value read here (its record checked) is kept for value(): the digest and diff ask again
    if (
      v !== undefined &&
      type === ValueType.BlobIndex &&
      this.resolvedBytes + v.length <= RESOLVED_BLOB_BYTES
    ) {
      let kept = this.resolved.get(b);
      if (kept === undefined) this.resolved.set(b, (kept = new Map()));
      kept.set(e, v);
      this.resolvedBytes += v.length;
    }
    return v !== undefined;
  }

  /** The live value of record e (a newest version), or undefined. */
  value(b: Bucket, e: number, rangeDeleted = false): Uint8Array | undefined {
    if (b.type(e) === ValueType.Value && !rangeDeleted) return valueBytes(b, e);
    const kept = rangeDeleted ? undefined : this.resolved.get(b)?.get(e);
    if (kept !== undefined) return kept;
    const k = b.keyAt(e);
    return this.values.valueOf(
      b.type(e),
      rangeDeleted,
      valueBytes(b, e),
      b.keys.subarray(k, k + b.keyLength(e)),
    );
  }

  close(): void {
    this.sources.close();
    this.values.close();
  }
}

/** Record e's stored value (a view into the sub-range's values). */
function valueBytes(b: Bucket, e: number): Uint8Array {
  const at = b.valueAt(e);
  return b.values!.bytes.subarray(at, at + b.valueLength(e));
}

/** The user key of record e of b (a view into the bucket). */
export const keyOf = (b: Bucket, e: number): Uint8Array =>
  b.keys.subarray(b.keyAt(e), b.keyAt(e) + b.keyLength(e));

/**
 * A sub-range's live records (bucket, record), put in key order by inKeyOrder(): by a number of each
 * key's first 8 bytes, sorted natively, then by the whole key where those numbers tie (the compaction
 * digest hashes them in that order). A comparator over the records themselves took 4.3 s of the
 * 4,884-table pile-up's 10.9 s digest.
 */
export class LiveRecords {
  private bucket = new Int32Array(1024);
  private rec = new Int32Array(1024);
  /** Each key's first 8 bytes (zero-padded) as a number: rounded, so ties are possible, order never reversed. */
  private prefix = new Float64Array(1024);
  private n = 0;

  clear(): void {
    this.n = 0;
  }

  add(b: Bucket, bucket: number, e: number): void {
    if (this.n === this.rec.length) this.grow();
    const i = this.n++;
    this.bucket[i] = bucket;
    this.rec[i] = e;
    const k = b.keyAt(e);
    const len = b.keyLength(e);
    const keys = b.keys;
    let p = 0;
    for (let j = 0; j < 8; j++) p = p * 256 + (j < len ? keys[k + j]! : 0);
    this.prefix[i] = p;
  }

  /** Give `visit` each record (its bucket and number), in key order. */
  inKeyOrder(buckets: readonly Bucket[], visit: (b: Bucket, e: number) => void): void {
    const { bucket, rec, prefix, n } = this;
    if (n === 0) return;
    // each record's prefix scaled into the bits an index leaves of a double's 53, the index below
    // them: one native sort of numbers orders the records by prefix (scaled: ties possible)
    let lo = Infinity;
    let hi = -Infinity;
    for (let i = 0; i < n; i++) {
      const p = prefix[i]!;
      if (p < lo) lo = p;
      if (p > hi) hi = p;
    }
    const indexBits = Math.max(1, Math.ceil(Math.log2(n + 1)));
    const span = 2 ** indexBits;
    const scale = (2 ** (53 - indexBits) - 1) / (hi - lo || 1);
    const packed = new Float64Array(n);
    for (let i = 0; i < n; i++) packed[i] = Math.floor((prefix[i]! - lo) * scale) * span + i;
    packed.sort();
    const byKey = (x: number, y: number) =>
      prefix[x]! - prefix[y]! || buckets[bucket[x]!]!.compareKey(rec[x]!, rec[y]!, buckets[bucket[y]!]!);
    for (let g = 0; g < n;) {
      const top = Math.floor(packed[g]! / span);
      let h = g + 1;
      while (h < n && Math.floor(packed[h]! / span) === top) h++;
      if (h === g + 1) {
        const i = packed[g]! % span;
        visit(buckets[bucket[i]!]!, rec[i]!);
      } else {
        // equal scaled prefixes: by the whole key
        const group: number[] = [];
        for (let j = g; j < h; j++) group.push(packed[j]! % span);
        group.sort(byKey);
        for (const i of group) visit(buckets[bucket[i]!]!, rec[i]!);
      }
      g = h;
    }
  }

  private grow(): void {
    const n = this.rec.length;
    this.bucket = grownKeeping(this.bucket, n, n + 1);
    this.rec = grownKeeping(this.rec, n, n + 1);
    this.prefix = grownKeeping(this.prefix, n, n + 1);
  }
}
