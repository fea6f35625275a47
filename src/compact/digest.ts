/**
 * Logical digest of a column family: SHA-256 over every live key and its value, in key order, read
 * without an engine (src/lsm/live.ts: sources, newest-version merge, live values, blobs resolved):
 *
 *   digest   : sha256( for each live key: varint32 len(key) ‖ key ‖ varint32 len(value) ‖ value )
 *
 * Merge operands and wide-column entities make it refuse rather than guess. Bytewise comparator only.
 */
import { createHash } from "node:crypto";
import { inspectDatadir, noReadableStoreError, pebbleEngineRefusal } from "../datadir/inspect.js";
import type { ColumnFamilyModel, InstanceModel } from "../datadir/model.js";
import { cfSelected } from "../datadir/cf_select.js";
import { LsmscopeError } from "../util/errors.js";
import { mergeNewest } from "../lsm/merge.js";
import { LiveValues, openLiveSources } from "../lsm/live.js";
import { sharedWalLayers, type WalLayers } from "../lsm/wal_layers.js";
import {
  LIVE_BY_HASH_MIN_RUNS,
  LiveKeySets,
  LiveRecords,
  liveSubRangeCuts,
  manyRuns,
} from "../lsm/live_by_hash.js";
import { UseMerge } from "../lsm/newest_by_hash.js";
import { ValueType } from "../base/internal_key.js";

export interface CfDigest {
  /** Raw CF name, hex. */
  cf: string;
  displayName: string;
  /** Live keys and the bytes of their keys and (resolved) values. */
  keys: number;
  keyBytes: number;
  valueBytes: number;
  /** Live values that were read from blob files. */
  blobValues: number;
  /** Entries read (all versions, tombstones included), from SSTs and from WALs. */
  entriesRead: number;
  walEntries: number;
  sha256: string;
  /**
   * How the live keys were read: merged in key order ("merge"), or over many sorted runs (an L0
   * pile-up) by key sets, each sub-range's keys sorted ("keySets"); the digest is the same either way.
   */
  readBy: "merge" | "keySets";
}

export interface StoreDigest {
  dir: string;
  columnFamilies: CfDigest[];
  elapsedMs: number;
}

/** Feeds length-prefixed records to a hash through one scratch buffer (few, large update() calls). */
class RecordHasher {
  private readonly buf = Buffer.allocUnsafe(1 << 16);
  private pos = 0;
  constructor(private readonly hash: ReturnType<typeof createHash>) {}
  private varint(n: number): void {
    let v = n;
    while (v >= 0x80) {
      this.buf[this.pos++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    this.buf[this.pos++] = v;
  }
  /** varint32 len ‖ bytes */
  field(b: Uint8Array): void {
    this.fieldOf(b, 0, b.length);
  }
  /** field() of bytes[off, off + len), without a view of them */
  fieldOf(bytes: Uint8Array, off: number, len: number): void {
    if (this.pos + 5 + len > this.buf.length) this.flush();
    this.varint(len);
    if (len > this.buf.length - this.pos) {
      this.flush();
      this.hash.update(bytes.subarray(off, off + len));
      return;
    }
    const buf = this.buf;
    const pos = this.pos;
    // most keys and values are short: a loop, not a set() call each (with set() and a view per key
    // and value, field() held ~1 s of the 4,884-table pile-up's 7.9 s digest; this way 7.3 s)
    if (len <= 64) for (let i = 0; i < len; i++) buf[pos + i] = bytes[off + i]!;
    else buf.set(bytes.subarray(off, off + len), pos);
    this.pos += len;
  }
  flush(): void {
    if (this.pos > 0) this.hash.update(this.buf.subarray(0, this.pos));
    this.pos = 0;
  }
}

/**
 * Digest of one column family of a store described by the datadir model: merged in key order, or
 * from `minRuns` sorted runs on (an L0 pile-up) by key sets, each sub-range's live keys sorted.
 * `walLayers`: where its WAL layer comes from (else its live WALs are replayed for it alone).
 */
export function digestColumnFamily(
  inst: InstanceModel,
  cf: ColumnFamilyModel,
  minRuns = LIVE_BY_HASH_MIN_RUNS,
  walLayers?: WalLayers,
): CfDigest {
  const out: CfDigest = {
    cf: cf.nameHex,
    displayName: cf.displayName,
    keys: 0,
    keyBytes: 0,
    valueBytes: 0,
    blobValues: 0,
    entriesRead: 0,
    walEntries: 0,
    sha256: "",
    readBy: "merge",
  };
  if (manyRuns(cf, minRuns) && digestByKeySets(inst, cf, out, walLayers)) return out;
  const hash = createHash("sha256");
  const sources = openLiveSources(inst, cf, undefined, undefined, undefined, walLayers);
  const values = new LiveValues(inst.path, cf);
  try {
    out.walEntries = sources.walEntries;
    const rh = new RecordHasher(hash);
    mergeNewest(sources.runs, sources.rangeDels, {
      visit: (r, fate) => {
        out.entriesRead++;
        const value = values.value(r, fate);
        if (value === undefined) return;
        const key = r.key.subarray(0, r.ukLen);
        rh.field(key);
        rh.field(value);
        out.keys++;
        out.keyBytes += key.length;
        out.valueBytes += value.length;
      },
    });
    rh.flush();
  } finally {
    sources.close();
    values.close();
  }
  out.blobValues = values.blobValues;
  out.sha256 = hash.digest("hex");
  return out;
}

/**
 * The digest of a column family of many sorted runs, read by key sets (lsm/live_by_hash.ts): in each
 * sub-range the live keys are sorted and hashed in that order, which is key order, as the merge
 * hashes them. Fills `out`'s counts and digest; false (out untouched) where the merge is to do it: a
 * later run holding a newer version of a key, or keys the samples cannot cut finely enough.
 */
function digestByKeySets(
  inst: InstanceModel,
  cf: ColumnFamilyModel,
  out: CfDigest,
  walLayers: WalLayers | undefined,
): boolean {
  // opened first: a missing or damaged table is told as the merge tells it (lsm/live.ts)
  const sets = new LiveKeySets(inst, cf, undefined, false, walLayers);
  const counts = { keys: 0, keyBytes: 0, valueBytes: 0, blobValues: 0 };
  const hash = createHash("sha256");
  const rh = new RecordHasher(hash);
  try {
    const cuts = liveSubRangeCuts([cf]);
    if (cuts === undefined) return false;
    const live = new LiveRecords();
    for (let c = 0; c <= cuts.length; c++) {
      sets.fill(cuts[c]);
      live.clear();
      const buckets = sets.entries.buckets;
      for (let i = 0; i < buckets.length; i++) {
        const b = buckets[i]!;
        sets.newest(b);
        for (let e = 0; e < b.count; e++) if (sets.live[e] === 1) live.add(b, i, e);
      }
      live.inKeyOrder(buckets, (b, e) => {
        const keyLength = b.keyLength(e);
        rh.fieldOf(b.keys, b.keyAt(e), keyLength);
        counts.keyBytes += keyLength;
        if (b.type(e) === ValueType.Value) {
          const valueLength = b.valueLength(e);
          rh.fieldOf(b.values!.bytes, b.valueAt(e), valueLength);
          counts.valueBytes += valueLength;
        } else {
          // resolved as LiveValues resolves it (a blob index: the blob's value)
          const value = sets.value(b, e)!;
          rh.field(value);
          counts.valueBytes += value.length;
          if (b.type(e) === ValueType.BlobIndex) counts.blobValues++;
        }
        counts.keys++;
      });
    }
    rh.flush();
  } catch (e) {
    if (e instanceof UseMerge) return false;
    throw e;
  } finally {
    sets.close();
  }
  Object.assign(out, counts, {
    entriesRead: sets.entriesRead,
    walEntries: sets.walEntries,
    sha256: hash.digest("hex"),
    readBy: "keySets",
  });
  return true;
}

/**
 * The single RocksDB instance at `dir` (a store directory, or a datadir holding exactly one store), its
 * tables' details read as `tableDetails` says (the plan needs what they carry, the digest does not).
 */
export async function resolveStore(
  dir: string,
  tableDetails: "none" | "cheap" = "none",
): Promise<InstanceModel> {
  const model = await inspectDatadir(dir, { tableDetails, readWal: true });
  const stores = model.instances.filter(
    (i) => i.engine === "rocksdb" || (!i.readable && i.engine !== "pebble"),
  );
  if (stores.length === 0)
    throw pebbleEngineRefusal(model, "compact") ?? noReadableStoreError(model, "RocksDB store");
  if (stores.length > 1)
    throw new LsmscopeError(
      `${stores.length} RocksDB stores found (${stores.map((s) => s.relPath).join(", ")}); name one of them`,
      { file: dir },
    );
  const inst = stores[0]!;
  if (!inst.readable) throw noReadableStoreError({ ...model, instances: [inst] });
  return inst;
}

/** Digest of every column family (or the named ones, by raw-name hex or display name) of a store. */
export async function digestStore(dir: string, cfs?: string[]): Promise<StoreDigest> {
  const started = Date.now();
  const inst = await resolveStore(dir);
  const chosen = inst.columnFamilies.filter((c) => !cfs || cfs.some((n) => cfSelected(c, n, inst)));
  // the WALs the column families share replayed once for all of them
  const walLayers = sharedWalLayers(inst, chosen);
  return {
    dir: inst.path,
    columnFamilies: chosen.map((c) => {
      try {
        return digestColumnFamily(inst, c, LIVE_BY_HASH_MIN_RUNS, walLayers);
      } finally {
        walLayers?.release(c);
      }
    }),
    elapsedMs: Date.now() - started,
  };
}
