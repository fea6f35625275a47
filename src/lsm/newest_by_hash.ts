/**
 * The fates mergeNewest() gives (merge.ts), without merging: for many overlapping runs, as over an L0
 * pile-up (a bulk load with auto-compaction off leaves thousands of L0 files, each its own run).
 *
 * A merge pays for its order: each entry costs about log2(runs) comparisons and comes from another
 * run's block (12 unpredictable comparisons and cache misses per entry over 4,354 runs). Here the key
 * range is cut into sub-ranges (sizes/plan.ts: ~8 MiB of data each); in each, the runs are read one
 * after the other, newest first (the WAL layer, L0 newest first, then each level: the order a lookup
 * consults them), and each entry's user key, type, value size and sequence number are appended to
 * one of 256 buckets by its key's hash. Then each
 * bucket, small enough to stay in the cache, is read in that order: the first entry of a user key is
 * its newest version, the later ones are shadowed. The buckets hold the keys themselves, so the fates
 * are exact, not a fingerprint's guess; a sub-range's keys are held at once, so its size bounds the
 * memory. Entries are told without their values and not in key order: for accounting that needs
 * neither (sizes of a column family without Ethereum roles).
 *
 * `diff` compares two stores' key sets the same way (diff/by_hash.ts): its buckets keep each entry's
 * value too (KeyBuckets with values), and its runs' keys are checked to ascend as they are read.
 *
 * Run order is newest first by RocksDB's and Pebble's invariants. Should a later run hold a newer
 * version of a key (its sequence number higher), the fates would differ from the merge's; and an
 * entry whose value lies in a blob file is sized from its blob index, a value sizes' buckets do not
 * keep (diff's do, and it resolves them). Either throws UseMerge: the caller merges instead.
 */
import { ValueType } from "../base/internal_key.js";
import { Fate, prefixNumber, rangeDeletedKey, type RangeTombstone, type Run } from "./merge.js";
import { grownKeeping } from "../util/grow.js";
import { compareBytewise } from "../base/comparator.js";

/** The runs need the merge after all (see the module's comment); thrown having told some entries. */
export class UseMerge extends Error {}

/** A run's keys do not ascend in internal-key order (checked where asked: KeyBuckets' `checkOrder`). */
export class KeysOutOfOrder extends Error {}

/** Gets every entry of hashNewest() with its fate, without its value. */
export interface NewestRecordVisitor {
  /** `valueSize`: the value's length as a Get returns it (Run.vSize); `fromWal`: of the WAL layer. */
  record(type: number, userKeyLength: number, valueSize: number, fate: Fate, fromWal: boolean): void;
}

/** Buckets of a sub-range, by the top bits of the key's hash: each ~1/256 of the sub-range's entries. */
const BUCKET_BITS = 8;
export const BUCKETS = 1 << BUCKET_BITS;
/**
 * Int32 fields of a bucket's entry record: key hash, key offset, key length, type (+ WAL flag), value
 * size (read back unsigned: a block entry's value length is a varint32).
 */
const REC = 5;
const WAL_FLAG = 0x100;

/**
 * Values of a sub-range's entries, one after another in arrival order (diff): one stream of writes
 * where an area per bucket made 256. With an area per bucket the copies took ~1.7 s of the 4,884-table
 * pile-up's 12.2 s `diff` against itself (measured by leaving them out); with this arena, and the key
 * order checked against the buckets' copies of the keys instead of a copy of its own, 10.5 s.
 */
export class ValueArena {
  bytes = new Uint8Array(64 * 1024);
  used = 0;

  /** Copy r's stored value in; where it begins. */
  add(r: Run): number {
    const len = r.vLen;
    if (this.used + len > this.bytes.length)
      this.bytes = grownKeeping(this.bytes, this.used, this.used + len);
    const off = this.used;
    const bytes = this.bytes;
    const data = r.data;
    const from = r.vOff;
    // most values are short: a loop, not a subarray and set() for each
    if (len <= 32) for (let i = 0; i < len; i++) bytes[off + i] = data[from + i]!;
    else bytes.set(data.subarray(from, from + len), off);
    this.used += len;
    return off;
  }
}

/**
 * One bucket: records in arrival order, their sequence numbers, their keys' bytes; with values (diff),
 * where each record's stored value lies in the sub-range's ValueArena.
 */
export class Bucket {
  recs = new Int32Array(REC * 64);
  seqnos = new Float64Array(64);
  keys = new Uint8Array(1024);
  keysView = new DataView(this.keys.buffer);
  count = 0;
  keyBytes = 0;
  /** Each record's value offset in `values` and stored length (two Int32s), when values are kept. */
  private valRecs: Int32Array | undefined;

  constructor(readonly values?: ValueArena) {
    if (values !== undefined) this.valRecs = new Int32Array(2 * 64);
  }

  add(r: Run, hash: number, fromWal: boolean): void {
    const len = r.ukLen;
    if (REC * this.count === this.recs.length) this.growRecs();
    if (this.keyBytes + len > this.keys.length) this.growKeys(len);
    const off = this.keyBytes;
    // four bytes at a time, as keys are compared
    const kv = this.keysView;
    const rv = r.keyView;
    let i = 0;
    for (; i + 4 <= len; i += 4) kv.setInt32(off + i, rv.getInt32(i));
    const keys = this.keys;
    const key = r.key;
    for (; i < len; i++) keys[off + i] = key[i]!;
    this.keyBytes += len;
    const e = this.count++;
    const recs = this.recs;
    recs[REC * e] = hash;
    recs[REC * e + 1] = off;
    recs[REC * e + 2] = len;
    recs[REC * e + 3] = r.type | (fromWal ? WAL_FLAG : 0);
    recs[REC * e + 4] = r.vSize;
    this.seqnos[e] = r.seqno;
    const valRecs = this.valRecs;
    if (valRecs !== undefined) {
      valRecs[2 * e] = this.values!.add(r);
      valRecs[2 * e + 1] = r.vLen;
    }
  }

  /** Record e's user key length, and where its bytes begin in `keys`. */
  keyLength(e: number): number {
    return this.recs[REC * e + 2]!;
  }
  keyAt(e: number): number {
    return this.recs[REC * e + 1]!;
  }
  /** Record e's entry type (a ValueType). */
  type(e: number): number {
    return this.recs[REC * e + 3]! & 0xff;
  }
  /** Where record e's stored value begins in `values.bytes`, and its length (a bucket with values). */
  valueAt(e: number): number {
    return this.valRecs![2 * e]!;
  }
  valueLength(e: number): number {
    return this.valRecs![2 * e + 1]!;
  }

  /** Whether record a and record b of `other` (this bucket by default) hold the same key. */
  sameKey(a: number, b: number, other: Bucket = this): boolean {
    const len = this.recs[REC * a + 2]!;
    if (other.recs[REC * b + 2] !== len) return false;
    const oa = this.recs[REC * a + 1]!;
    const ob = other.recs[REC * b + 1]!;
    const kv = this.keysView;
    const okv = other.keysView;
    let i = 0;
    for (; i + 4 <= len; i += 4) if (kv.getInt32(oa + i) !== okv.getInt32(ob + i)) return false;
    const keys = this.keys;
    const okeys = other.keys;
    for (; i < len; i++) if (keys[oa + i] !== okeys[ob + i]) return false;
    return true;
  }

  /** Record a's key against record b's of `other`, bytewise: negative, 0 or positive. */
  compareKey(a: number, b: number, other: Bucket): number {
    const la = this.recs[REC * a + 2]!;
    const lb = other.recs[REC * b + 2]!;
    const oa = this.recs[REC * a + 1]!;
    const ob = other.recs[REC * b + 1]!;
    const n = la < lb ? la : lb;
    const kv = this.keysView;
    const okv = other.keysView;
    let i = 0;
    for (; i + 4 <= n; i += 4) {
      const x = kv.getUint32(oa + i);
      const y = okv.getUint32(ob + i);
      if (x !== y) return x < y ? -1 : 1;
    }
    const keys = this.keys;
    const okeys = other.keys;
    for (; i < n; i++) if (keys[oa + i] !== okeys[ob + i]) return keys[oa + i]! - okeys[ob + i]!;
    return la - lb;
  }

  clear(): void {
    this.count = 0;
    this.keyBytes = 0;
  }

  private growRecs(): void {
    this.recs = grownKeeping(this.recs, this.recs.length, 2 * this.recs.length);
    this.seqnos = grownKeeping(this.seqnos, this.seqnos.length, 2 * this.seqnos.length);
    if (this.valRecs !== undefined)
      this.valRecs = grownKeeping(this.valRecs, this.valRecs.length, 2 * this.valRecs.length);
  }

  private growKeys(need: number): void {
    this.keys = grownKeeping(this.keys, this.keyBytes, this.keyBytes + need);
    this.keysView = new DataView(this.keys.buffer);
  }
}

/** A 32-bit hash of r's user key (murmur3's mixing, four bytes at a time; the prefix numbers first). */
function userKeyHash(r: Run): number {
  const len = r.ukLen;
  let h = Math.imul(r.pfxHi ^ len, 0xcc9e2d51) ^ r.pfxLo;
  h = Math.imul((h << 13) | (h >>> 19), 5) + 0xe6546b64;
  if (len > 8) {
    const kv = r.keyView;
    let i = 8;
    for (; i + 4 <= len; i += 4) {
      let w = Math.imul(kv.getInt32(i), 0xcc9e2d51);
      w = Math.imul((w << 15) | (w >>> 17), 0x1b873593);
      h ^= w;
      h = Math.imul((h << 13) | (h >>> 19), 5) + 0xe6546b64;
    }
    const key = r.key;
    for (; i < len; i++) h = Math.imul(h ^ key[i]!, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}

/** Whether r's user key lies below `bound` (undefined: no bound); `boundPfx`: prefixNumber(bound). */
function below(r: Run, bound: Uint8Array | undefined, boundPfx: number): boolean {
  if (bound === undefined) return true;
  if (r.pfx !== boundPfx) return r.pfx < boundPfx;
  return compareBytewise(r.key, 0, r.ukLen, bound, 0, bound.length) < 0;
}

/**
 * A set of a bucket's keys: open addressing over the records' hashes, each slot the record that put
 * its key there (+ 1; 0: free).
 */
export class KeySet {
  private slots = new Int32Array(1 << 10);
  private mask = this.slots.length - 1;

  /** Empty it, with room for the keys of `n` records. */
  reset(n: number): void {
    let size = this.slots.length;
    while (size < 2 * n) size *= 2;
    if (size > this.slots.length) this.slots = new Int32Array(size);
    else this.slots.fill(0);
    this.mask = size - 1;
  }

  /**
   * The record of b that put record e's key into the set before it, or -1 when none did: e puts it
   * there then.
   */
  firstOf(b: Bucket, e: number): number {
    const slots = this.slots;
    const mask = this.mask;
    const recs = b.recs;
    const hash = recs[REC * e]!;
    for (let s = hash & mask; ; s = (s + 1) & mask) {
      const f = slots[s]! - 1;
      if (f < 0) {
        slots[s] = e + 1;
        return -1;
      }
      if (recs[REC * f] === hash && b.sameKey(f, e)) return f;
    }
  }

  /** The record of `b` (the bucket this set holds keys of) with the key of record e of `other`, or -1. */
  find(b: Bucket, other: Bucket, e: number): number {
    const slots = this.slots;
    const mask = this.mask;
    const hash = other.recs[REC * e]!;
    for (let s = hash & mask; ; s = (s + 1) & mask) {
      const f = slots[s]! - 1;
      if (f < 0) return -1;
      if (b.recs[REC * f] === hash && b.sameKey(f, e, other)) return f;
    }
  }
}

/**
 * The fate of record e of bucket b, whose key's first record in the bucket is `first` (-1: e itself):
 * Shadowed, RangeDeleted or Newest. Throws UseMerge where a later run holds the newer version.
 */
export function fateOf(b: Bucket, e: number, first: number, rangeDels: readonly RangeTombstone[]): Fate {
  const seqno = b.seqnos[e]!;
  if (first >= 0) {
    if (seqno > b.seqnos[first]!) throw new UseMerge("a later run holds a newer version of a key");
    return Fate.Shadowed;
  }
  if (rangeDels.length === 0) return Fate.Newest;
  const len = b.recs[REC * e + 2]!;
  const off = b.recs[REC * e + 1]!;
  return rangeDeletedKey(rangeDels, b.keys.subarray(off, off + len), len, seqno)
    ? Fate.RangeDeleted
    : Fate.Newest;
}

/** Tells a bucket's records their fates, in arrival order, through a set of its keys. */
class BucketSet {
  private readonly set = new KeySet();

  constructor(
    private readonly rangeDels: readonly RangeTombstone[],
    private readonly visitor: NewestRecordVisitor,
  ) {}

  tell(b: Bucket): void {
    const n = b.count;
    const set = this.set;
    set.reset(n);
    const recs = b.recs;
    for (let e = 0; e < n; e++) {
      const fate = fateOf(b, e, set.firstOf(b, e), this.rangeDels);
      const typeAndFlag = recs[REC * e + 3]!;
      const valueSize = recs[REC * e + 4]! >>> 0;
      this.visitor.record(typeAndFlag & 0xff, recs[REC * e + 2]!, valueSize, fate, typeAndFlag >= WAL_FLAG);
    }
  }
}

/**
 * A sub-range's entries of some runs, in buckets by their keys' hashes: each run read up to the
 * sub-range's bound in its turn, newest run first. `checkOrder`: each run's keys are checked to ascend
 * (internal-key order) as they are read, else KeysOutOfOrder; a key set alone would not notice a table
 * whose keys are out of order, where a merge's output stops ascending.
 */
export class KeyBuckets {
  readonly buckets: Bucket[];
  /** The entries' values, when kept. */
  readonly values: ValueArena | undefined;
  private readonly more: boolean[];
  private readonly order: RunOrder | undefined;

  constructor(
    private readonly runs: readonly Run[],
    /** runs[0] when it is the WAL layer (its records say so), else undefined. */
    private readonly wal: Run | undefined,
    withValues: boolean,
    checkOrder: boolean,
  ) {
    const values = (this.values = withValues ? new ValueArena() : undefined);
    this.buckets = Array.from({ length: BUCKETS }, () => new Bucket(values));
    this.more = runs.map((r) => r.advance());
    this.order = checkOrder ? new RunOrder() : undefined;
  }

  /** Empty the buckets, then put every run's entries below `bound` (undefined: all that are left) in them. */
  fill(bound: Uint8Array | undefined): void {
    for (const b of this.buckets) b.clear();
    if (this.values) this.values.used = 0;
    const boundPfx = bound === undefined ? 0 : prefixNumber(bound);
    const runs = this.runs;
    const more = this.more;
    for (let i = 0; i < runs.length; i++) {
      if (!more[i]) continue;
      this.order?.start();
      more[i] = bucketRun(runs[i]!, bound, boundPfx, runs[i] === this.wal, this.buckets, this.order);
      // every other run takes its turn before this one's next: its descriptor may go back meanwhile
      if (more[i]) runs[i]!.rest?.();
    }
  }
}

/**
 * Tell `visitor` every entry of the runs (newest run first; `wal`, when given, is runs[0]) with the
 * fate mergeNewest() would give it. `cuts`: user keys, ascending, inside the runs' range: the
 * sub-ranges' bounds. Throws UseMerge (see the module's comment) having told some entries.
 */
export function hashNewest(
  runs: Run[],
  wal: Run | undefined,
  rangeDels: readonly RangeTombstone[],
  visitor: NewestRecordVisitor,
  cuts: readonly Uint8Array[],
): void {
  const entries = new KeyBuckets(runs, wal, false, false);
  const set = new BucketSet(rangeDels, visitor);
  for (let c = 0; c <= cuts.length; c++) {
    entries.fill(cuts[c]);
    for (const b of entries.buckets) set.tell(b);
  }
}

/**
 * The previous entry of the run in its turn, to check the next against: its key prefix numbers and
 * where its record lies (the bucket holds its key and sequence number). A turn's first entry needs no
 * check: the run's entries before it lay below the bound it reached.
 */
class RunOrder {
  private bucket: Bucket | undefined;
  private rec = 0;
  private hi = 0;
  private lo = 0;

  start(): void {
    this.bucket = undefined;
  }

  /** Whether r's entry comes after the previous one (key ascending, then sequence number descending). */
  follows(r: Run): boolean {
    const b = this.bucket;
    if (b === undefined) return true;
    if (r.pfxHi !== this.hi) return r.pfxHi > this.hi;
    if (r.pfxLo !== this.lo) return r.pfxLo > this.lo;
    const off = b.keyAt(this.rec);
    const prevLen = b.keyLength(this.rec);
    const len = r.ukLen;
    const n = len < prevLen ? len : prevLen;
    const keys = b.keys;
    const key = r.key;
    for (let i = 8; i < n; i++) if (key[i] !== keys[off + i]) return key[i]! > keys[off + i]!;
    if (len !== prevLen) return len > prevLen;
    return r.seqno < b.seqnos[this.rec]!;
  }

  /** r's entry went into record `rec` of bucket b. */
  entered(r: Run, b: Bucket, rec: number): void {
    this.bucket = b;
    this.rec = rec;
    this.hi = r.pfxHi;
    this.lo = r.pfxLo;
  }
}

/**
 * Put r's entries below `bound` into their buckets; whether r has entries left. A function of its own,
 * not a loop inside hashNewest: V8 optimises a loop of a function that runs for seconds while it runs
 * (on-stack replacement), before the code after the loop has run, and threw that code away and compiled
 * it again as each later path came up. `sizes --full` on the L0 pile-up, both threads (`--trace-opt`):
 * hashNewest compiled 10 times in 202 ms of TurboFan's threads, now 3 times and this 6, 82 ms; the
 * run's CPU 4.35 -> 4.24 s (5 runs each), its wall time 0.986 (15 paired rounds).
 */
function bucketRun(
  r: Run,
  bound: Uint8Array | undefined,
  boundPfx: number,
  fromWal: boolean,
  buckets: readonly Bucket[],
  order: RunOrder | undefined,
): boolean {
  while (below(r, bound, boundPfx)) {
    if (r.type === ValueType.BlobIndex && buckets[0]!.values === undefined)
      throw new UseMerge("a value lies in a blob file");
    if (order !== undefined && !order.follows(r)) throw new KeysOutOfOrder("a run's keys do not ascend");
    const hash = userKeyHash(r);
    const b = buckets[hash >>> (32 - BUCKET_BITS)]!;
    b.add(r, hash, fromWal);
    order?.entered(r, b, b.count - 1);
    if (!r.advance()) return false;
  }
  return true;
}
