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
 * Run order is newest first by RocksDB's and Pebble's invariants. Should a later run hold a newer
 * version of a key (its sequence number higher), the fates would differ from the merge's; and an
 * entry whose value lies in a blob file is sized from its blob index, a value the buckets do not
 * keep. Either throws UseMerge: the caller merges instead.
 */
import { ValueType } from "../base/internal_key.js";
import { cmpBytes, Fate, prefixNumber, rangeDeletedKey, type RangeTombstone, type Run } from "./merge.js";

/** The runs need the merge after all (see the module's comment); thrown having told some entries. */
export class UseMerge extends Error {}

/** Gets every entry of hashNewest() with its fate, without its value. */
export interface NewestRecordVisitor {
  /** `valueSize`: the value's length as a Get returns it (Run.vSize); `fromWal`: of the WAL layer. */
  record(type: number, userKeyLength: number, valueSize: number, fate: Fate, fromWal: boolean): void;
}

/** Buckets of a sub-range, by the top bits of the key's hash: each ~1/256 of the sub-range's entries. */
const BUCKET_BITS = 8;
/**
 * Int32 fields of a bucket's entry record: key hash, key offset, key length, type (+ WAL flag), value
 * size (read back unsigned: a block entry's value length is a varint32).
 */
const REC = 5;
const WAL_FLAG = 0x100;

/** One bucket: records in arrival order, their sequence numbers, their keys' bytes. */
class Bucket {
  recs = new Int32Array(REC * 64);
  seqnos = new Float64Array(64);
  keys = new Uint8Array(1024);
  keysView = new DataView(this.keys.buffer);
  count = 0;
  keyBytes = 0;

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
  }

  /** Whether records a and b hold the same key (their hashes already equal). */
  sameKey(a: number, b: number): boolean {
    const recs = this.recs;
    const len = recs[REC * a + 2]!;
    if (recs[REC * b + 2] !== len) return false;
    const oa = recs[REC * a + 1]!;
    const ob = recs[REC * b + 1]!;
    const kv = this.keysView;
    let i = 0;
    for (; i + 4 <= len; i += 4) if (kv.getInt32(oa + i) !== kv.getInt32(ob + i)) return false;
    const keys = this.keys;
    for (; i < len; i++) if (keys[oa + i] !== keys[ob + i]) return false;
    return true;
  }

  clear(): void {
    this.count = 0;
    this.keyBytes = 0;
  }

  private growRecs(): void {
    const recs = new Int32Array(this.recs.length * 2);
    recs.set(this.recs);
    this.recs = recs;
    const seqnos = new Float64Array(this.seqnos.length * 2);
    seqnos.set(this.seqnos);
    this.seqnos = seqnos;
  }

  private growKeys(need: number): void {
    const keys = new Uint8Array(Math.max(this.keys.length * 2, this.keyBytes + need));
    keys.set(this.keys.subarray(0, this.keyBytes));
    this.keys = keys;
    this.keysView = new DataView(keys.buffer);
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
  return cmpBytes(r.key, r.ukLen, bound, bound.length) < 0;
}

/** Tells a bucket's records their fates, in arrival order, through a set of its keys. */
class BucketSet {
  /** Record number + 1 of each slot's first record of its key; 0: free. */
  private slots = new Int32Array(1 << 10);

  constructor(
    private readonly rangeDels: readonly RangeTombstone[],
    private readonly visitor: NewestRecordVisitor,
  ) {}

  tell(b: Bucket): void {
    const n = b.count;
    let size = this.slots.length;
    while (size < 2 * n) size *= 2;
    if (size > this.slots.length) this.slots = new Int32Array(size);
    else this.slots.fill(0);
    const slots = this.slots;
    const mask = size - 1;
    const recs = b.recs;
    for (let e = 0; e < n; e++) {
      const hash = recs[REC * e]!;
      let s = hash & mask;
      let first = -1;
      for (; ; s = (s + 1) & mask) {
        const f = slots[s]! - 1;
        if (f < 0) break;
        if (recs[REC * f] === hash && b.sameKey(f, e)) {
          first = f;
          break;
        }
      }
      const seqno = b.seqnos[e]!;
      let fate: Fate;
      if (first >= 0) {
        if (seqno > b.seqnos[first]!) throw new UseMerge("a later run holds a newer version of a key");
        fate = Fate.Shadowed;
      } else {
        slots[s] = e + 1;
        fate = this.rangeDeleted(b, e, seqno) ? Fate.RangeDeleted : Fate.Newest;
      }
      const typeAndFlag = recs[REC * e + 3]!;
      const valueSize = recs[REC * e + 4]! >>> 0;
      this.visitor.record(typeAndFlag & 0xff, recs[REC * e + 2]!, valueSize, fate, typeAndFlag >= WAL_FLAG);
    }
  }

  private rangeDeleted(b: Bucket, e: number, seqno: number): boolean {
    if (this.rangeDels.length === 0) return false;
    const len = b.recs[REC * e + 2]!;
    const off = b.recs[REC * e + 1]!;
    return rangeDeletedKey(this.rangeDels, b.keys.subarray(off, off + len), len, seqno);
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
  const more = runs.map((r) => r.advance());
  const buckets = Array.from({ length: 1 << BUCKET_BITS }, () => new Bucket());
  const set = new BucketSet(rangeDels, visitor);
  for (let c = 0; c <= cuts.length; c++) {
    const bound = cuts[c];
    const boundPfx = bound === undefined ? 0 : prefixNumber(bound);
    for (let i = 0; i < runs.length; i++) {
      if (!more[i]) continue;
      more[i] = bucketRun(runs[i]!, bound, boundPfx, runs[i] === wal, buckets);
      // every other run takes its turn before this one's next: its descriptor may go back meanwhile
      if (more[i]) runs[i]!.rest?.();
    }
    for (const b of buckets) {
      set.tell(b);
      b.clear();
    }
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
): boolean {
  while (below(r, bound, boundPfx)) {
    if (r.type === ValueType.BlobIndex) throw new UseMerge("a value lies in a blob file");
    const hash = userKeyHash(r);
    buckets[hash >>> (32 - BUCKET_BITS)]!.add(r, hash, fromWal);
    if (!r.advance()) return false;
  }
  return true;
}
