/**
 * WAL → memtable replay: the writes of one column family that live WALs still hold, which is what
 * RocksDB's recovery (and DB::OpenForReadOnly) rebuilds into memtables above every SST. WAL records are
 * WriteBatches (layout and tag table in write_batch.ts):
 *
 *   batch  := sequence fixed64 | count fixed32 | record*
 *   record := tag u8 [cf varint32 for the CF variants] key (varint32 len + bytes) [value (len + bytes)]
 *
 * Each Put/Delete/SingleDelete/DeleteRange/Merge/BlobIndex/PutEntity/TimedPut takes the next sequence
 * number. A WAL n holds unflushed writes of CF c iff n >= c's log number (the MANIFEST's per-CF log
 * number says everything older was flushed). Records the log reader flags as torn at the tail are not
 * returned by it (RocksDB's point-in-time recovery drops them too).
 *
 * Memory is the size of the replayed writes (RocksDB's own memtables hold the same), bounded by the
 * WAL files' size.
 */
import { scanLogFile } from "./log_reader.js";
import { forEachBatchWrite, type BatchWrite } from "./write_batch.js";
import { keptWalWrites, layerKeeps, type KeptWrites } from "./wal_kept.js";
import { ValueType } from "../base/internal_key.js";
import { LsmscopeError } from "../util/errors.js";
import { lowerBound } from "../util/lower_bound.js";
import { statSync } from "node:fs";
import { grownKeeping } from "../util/grow.js";
import { compareBytewise } from "../base/comparator.js";

export interface WalFileRef {
  path: string;
  /** The log's file number: passed to the log reader (recycled-log check) and to `minLogNumber`. */
  logNumber?: number;
}

export interface ReplayOptions {
  /** Skip WALs numbered below this (the CF's log number). Needs `logNumber` on every file. */
  minLogNumber?: number;
  /**
   * What a batch that cannot be decoded does: "throw" an LsmscopeError naming the WAL and record
   * offset, or "keep" the writes before the failure (RocksDB's tolerate-corrupted-tail recovery).
   * Batches shorter than the 12-byte header are skipped and counted either way. Default "keep".
   */
  onUndecodable?: "throw" | "keep";
  /**
   * loadMemLayer: only the point writes whose keys pass are kept (range deletions always are): a
   * layer for reads of such keys alone, which copies and sorts a few writes of a WAL of millions.
   */
  keys?: (key: Uint8Array) => boolean;
  /** Value types this caller cannot interpret: a write of one ends its batch's decoding, counted as
   *  undecodable (the writes before it were delivered). */
  unsupportedTypes?: ReadonlySet<number>;
  /** The WALs are a Pebble store's (Pebble's chunk types and batch kinds). */
  pebble?: boolean;
}

export interface ReplayResult {
  /** Batches that were shorter than their header or could not be decoded to their end. */
  undecodable: number;
}

/** A WAL to replay, and the column families whose writes in it are wanted. */
export interface WalReplayRef extends WalFileRef {
  cfs: ReadonlySet<number>;
  /** Its writes as the model's scan kept them (wal_kept.ts): delivered instead of reading the file. */
  kept?: KeptWrites;
}

/**
 * Deliver every write in the given WALs (in the order given, then record order) of the column
 * families each WAL is replayed for to `onWrite`. The write is the decoder's, reused for the next
 * (write_batch.ts): its key and value are views into the record; copy them to keep them.
 */
export function replayWalWrites(
  wals: readonly WalReplayRef[],
  onWrite: (w: BatchWrite) => void,
  opts: Omit<ReplayOptions, "minLogNumber" | "keys"> = {},
): ReplayResult {
  const out: ReplayResult = { undecodable: 0 };
  const unsupported = opts.unsupportedTypes;
  for (const w of wals) {
    const cfs = w.cfs;
    if (w.kept !== undefined && unsupported === undefined) {
      for (const k of w.kept.writes) if (cfs.has(k.cf)) onWrite(k);
      out.undecodable += w.kept.undecodable;
      continue;
    }
    scanLogFile(
      w.path,
      (rec) => {
        const r = forEachBatchWrite(
          rec.data,
          (write) => {
            if (unsupported?.has(write.type)) return false;
            if (cfs.has(write.cf)) onWrite(write);
          },
          undefined,
          { pebble: opts.pebble },
        );
        if (r.stopped) out.undecodable++;
        if (!r.error) return;
        out.undecodable++;
        if (r.error.at === 0 || opts.onUndecodable !== "throw") return;
        throw new LsmscopeError(`WAL record cannot be decoded: ${r.error.message}`, {
          file: w.path,
          offset: rec.offset,
        });
      },
      w.logNumber !== undefined ? { logNumber: w.logNumber, pebble: opts.pebble } : { pebble: opts.pebble },
    );
  }
  return out;
}

export interface MemEntry {
  key: Buffer;
  seqno: number;
  /** ValueType of the equivalent table entry (Value, Deletion, SingleDeletion, Merge, BlobIndex...). */
  type: number;
  value: Buffer;
}

export interface MemRangeDel {
  start: Buffer;
  end: Buffer;
  seqno: number;
}

/**
 * One column family's unflushed writes in merge order (user key ascending, newest first), in columns:
 * entry i's key is bytes[keyAt[i], + keyLen[i]), its value bytes[valueAt[i], + valueLen[i]); a slice
 * is entries [from, to) of the same columns. A node's WALs may hold millions of writes (Besu lets them
 * reach 1 GiB): as an object and two buffers each they took ~700 bytes a write and most of the run in
 * the collector (sizes --full of a 462 MB WAL of 3 M writes: 50 s and 2 GB of RSS, 22 s of it
 * collecting). The columns are the writes' bytes and 33 bytes each, in shared memory, so a task
 * posted to a worker thread takes them without a copy.
 */
export interface MemEntries {
  from: number;
  to: number;
  bytes: Uint8Array;
  keyAt: Float64Array;
  keyLen: Uint32Array;
  valueAt: Float64Array;
  valueLen: Uint32Array;
  seqno: Float64Array;
  type: Uint8Array;
}

/** One CF's memtable layer: point entries in merge order, range deletions in WAL order. */
export interface MemLayer {
  entries: MemEntries;
  rangeDels: MemRangeDel[];
  undecodable: number;
}

/** Entries in a slice. */
export const memCount = (m: MemEntries): number => m.to - m.from;

/** Entry i's user key (i an index of the columns, from <= i < to), a view of the columns' bytes. */
export function memKey(m: MemEntries, i: number): Buffer {
  return Buffer.from(m.bytes.buffer, m.bytes.byteOffset + m.keyAt[i]!, m.keyLen[i]!);
}

/** Entry i's value, a view of the columns' bytes. */
export function memValue(m: MemEntries, i: number): Buffer {
  return Buffer.from(m.bytes.buffer, m.bytes.byteOffset + m.valueAt[i]!, m.valueLen[i]!);
}

/** Entry i as an object (its key and value views of the columns' bytes). */
export function memEntry(m: MemEntries, i: number): MemEntry {
  return { key: memKey(m, i), seqno: m.seqno[i]!, type: m.type[i]!, value: memValue(m, i) };
}

/** Bytewise comparison of entry i's key with `key`. */
export function compareMemKey(m: MemEntries, i: number, key: Uint8Array): number {
  const at = m.keyAt[i]!;
  return compareBytewise(m.bytes, at, at + m.keyLen[i]!, key, 0, key.length);
}

/** The first entry of [from, to) whose key is at or past `key`. */
function memLowerBound(m: MemEntries, key: Uint8Array): number {
  return m.from + lowerBound(m.to - m.from, (i) => compareMemKey(m, m.from + i, key) < 0);
}

/** The index of `key`'s first entry (its newest write: merge order), or -1 when no entry holds it. */
export function memIndexOf(m: MemEntries, key: Uint8Array): number {
  const i = memLowerBound(m, key);
  return i < m.to && compareMemKey(m, i, key) === 0 ? i : -1;
}

/** Whether entry i is its key's first (newest) entry: the one a lookup of the key finds. */
export function memFirstOfKey(m: MemEntries, i: number): boolean {
  return i === m.from || !memKeysEqual(m, i, i - 1);
}

/** Whether entries i and j hold the same user key. */
function memKeysEqual(m: MemEntries, i: number, j: number): boolean {
  const len = m.keyLen[i]!;
  if (len !== m.keyLen[j]!) return false;
  const b = m.bytes;
  const a = m.keyAt[i]!;
  const c = m.keyAt[j]!;
  for (let k = 0; k < len; k++) if (b[a + k] !== b[c + k]) return false;
  return true;
}

/** Compare (user key asc, seqno desc): the merge order of internal keys. */
export function compareMem(a: MemEntry, b: MemEntry): number {
  const c = a.key.compare(b.key);
  return c !== 0 ? c : b.seqno - a.seqno;
}

/**
 * The entries of a layer (sorted by user key, as loadMemLayer gives them) whose keys lie in [lo, hi):
 * a key range's share of the layer, for the merges that read one range at a time (sizes' tasks, the
 * live contents of a range). An absent bound does not bound.
 */
export function memEntriesIn(m: MemEntries, lo?: Uint8Array, hi?: Uint8Array): MemEntries {
  const from = lo !== undefined ? memLowerBound(m, lo) : m.from;
  const to = hi !== undefined ? Math.max(from, memLowerBound(m, hi)) : m.to;
  return { ...m, from, to };
}

/** Columns grown as writes arrive (in WAL order), then put in merge order in shared memory (sorted()). */
class MemColumns {
  n = 0;
  /** Keys and values, in shared memory from the start: the columns take them as they are, no copy. */
  bytes: Uint8Array;
  used = 0;
  keyAt = new Float64Array(1024);
  keyLen = new Uint32Array(1024);
  valueAt = new Float64Array(1024);
  valueLen = new Uint32Array(1024);
  seqno = new Float64Array(1024);
  type = new Uint8Array(1024);

  /**
   * `bytesHint`: the most the writes' keys and values can take, about: the WALs' size (a compressed
   * WAL's writes may take more: the bytes grow then). Memory not written to is never touched (twelve
   * column families of a store with 1 GiB of WAL reserve 12 GiB and touch what each one's writes
   * take), but a reservation past what the machine holds can be refused: at most 256 MiB at first.
   */
  constructor(bytesHint: number) {
    this.bytes = new Uint8Array(
      new SharedArrayBuffer(Math.max(4096, Math.min(bytesHint, 256 * 1024 * 1024))),
    );
  }

  add(key: Uint8Array, value: Uint8Array, seqno: number, type: number): void {
    if (this.n === this.keyAt.length) this.grow();
    const need = this.used + key.length + value.length;
    if (need > this.bytes.length) this.bytes = grownKeeping(this.bytes, this.used, need);
    const i = this.n++;
    this.keyAt[i] = this.used;
    this.keyLen[i] = key.length;
    this.bytes.set(key, this.used);
    this.used += key.length;
    this.valueAt[i] = this.used;
    this.valueLen[i] = value.length;
    this.bytes.set(value, this.used);
    this.used += value.length;
    this.seqno[i] = seqno;
    this.type[i] = type;
  }

  private grow(): void {
    const n = this.n;
    const g = <T extends Float64Array | Uint32Array | Uint8Array>(a: T): T => grownKeeping(a, n, n + 1);
    this.keyAt = g(this.keyAt);
    this.keyLen = g(this.keyLen);
    this.valueAt = g(this.valueAt);
    this.valueLen = g(this.valueLen);
    this.seqno = g(this.seqno);
    this.type = g(this.type);
  }

  /**
   * The entries sorted (user key ascending, newest first; equal sequence numbers keep WAL order), in
   * shared memory: by six bytes of each key first (a stable radix sort, least significant byte first),
   * then each run of entries equal in those six bytes by the rest of their keys and their sequence
   * numbers. A comparator sort of the 3 M writes above took 18 s calling Buffer.compare, and 5 s with
   * the six bytes as a number first (V8 calls a sort's comparator ~65 M times there). The six bytes
   * are those past what every key shares at its start (db_bench's keys begin with five zero bytes,
   * geth's with a one-byte prefix), each key zero-padded: a key shorter than another whose bytes it
   * begins with compares equal there and first by its length.
   */
  sorted(): MemEntries {
    const n = this.n;
    const bytes = this.bytes;
    const keyAt = this.keyAt;
    const keyLen = this.keyLen;
    const seqno = this.seqno;
    let common = n > 0 ? keyLen[0]! : 0;
    for (let i = 1; i < n && common > 0; i++) {
      const a = keyAt[0]!;
      const b = keyAt[i]!;
      let k = 0;
      const m = Math.min(common, keyLen[i]!);
      while (k < m && bytes[a + k] === bytes[b + k]) k++;
      common = k;
    }
    const from = common;
    // the six bytes: two in `hi`, four in `lo`
    const hi = new Uint32Array(n);
    const lo = new Uint32Array(n);
    for (let i = 0; i < n; i++) {
      const at = keyAt[i]!;
      const len = keyLen[i]!;
      const byte = (k: number) => (from + k < len ? bytes[at + from + k]! : 0);
      hi[i] = (byte(0) << 8) | byte(1);
      lo[i] = ((byte(2) << 24) | (byte(3) << 16) | (byte(4) << 8) | byte(5)) >>> 0;
    }
    let order = new Uint32Array(n);
    let next = new Uint32Array(n);
    for (let i = 0; i < n; i++) order[i] = i;
    const count = new Uint32Array(257);
    for (let pass = 5; pass >= 0; pass--) {
      const byteOf =
        pass >= 2
          ? (i: number) => (lo[i]! >>> (8 * (5 - pass))) & 255
          : (i: number) => (hi[i]! >>> (8 * (1 - pass))) & 255;
      count.fill(0);
      for (let j = 0; j < n; j++) count[byteOf(order[j]!) + 1]!++;
      for (let v = 1; v <= 256; v++) count[v]! += count[v - 1]!;
      for (let j = 0; j < n; j++) {
        const i = order[j]!;
        next[count[byteOf(i)]!++] = i;
      }
      [order, next] = [next, order];
    }
    // runs equal in the six bytes (equal keys, or keys alike that far), by the rest
    const rest = (a: number, b: number): number => {
      const aAt = keyAt[a]!;
      const bAt = keyAt[b]!;
      const aLen = keyLen[a]!;
      const bLen = keyLen[b]!;
      const skip = Math.min(from + 6, aLen, bLen);
      return (
        compareBytewise(bytes, aAt + skip, aAt + aLen, bytes, bAt + skip, bAt + bLen) ||
        seqno[b]! - seqno[a]! ||
        a - b
      );
    };
    for (let j = 0; j < n;) {
      const i = order[j]!;
      let e = j + 1;
      while (e < n && hi[order[e]!] === hi[i] && lo[order[e]!] === lo[i]) e++;
      // most such runs are a key written twice: swapped in place, not sorted
      if (e - j === 2) {
        if (rest(order[j]!, order[j + 1]!) > 0) [order[j], order[j + 1]] = [order[j + 1]!, order[j]!];
      } else if (e - j > 2) order.subarray(j, e).sort(rest);
      j = e;
    }
    return this.inOrder(order);
  }

  /** The entries in `order` (default: as added), in shared memory. */
  inOrder(order?: Uint32Array): MemEntries {
    const n = this.n;
    const sab = (width: number) => new SharedArrayBuffer(Math.max(1, n) * width);
    const keyAt = new Float64Array(sab(8));
    const keyLen = new Uint32Array(sab(4));
    const valueAt = new Float64Array(sab(8));
    const valueLen = new Uint32Array(sab(4));
    const seqno = new Float64Array(sab(8));
    const type = new Uint8Array(sab(1));
    for (let j = 0; j < n; j++) {
      const i = order ? order[j]! : j;
      keyAt[j] = this.keyAt[i]!;
      keyLen[j] = this.keyLen[i]!;
      valueAt[j] = this.valueAt[i]!;
      valueLen[j] = this.valueLen[i]!;
      seqno[j] = this.seqno[i]!;
      type[j] = this.type[i]!;
    }
    return {
      from: 0,
      to: n,
      bytes: this.bytes.subarray(0, this.used),
      keyAt,
      keyLen,
      valueAt,
      valueLen,
      seqno,
      type,
    };
  }
}

let empty: MemEntries | undefined;

/** No entries (one instance: nothing writes to a layer's columns). */
export function emptyMemEntries(): MemEntries {
  return (empty ??= new MemColumns(0).inOrder());
}

/** Columns of entries given as objects, in the order given. */
function columnsOf(entries: readonly MemEntry[]): MemColumns {
  const c = new MemColumns(entries.reduce((a, e) => a + e.key.length + e.value.length, 0));
  for (const e of entries) c.add(e.key, e.value, e.seqno, e.type);
  return c;
}

/** Entries given as objects, put in merge order as loadMemLayer puts a WAL's (tests). */
export function sortedMemEntries(entries: readonly MemEntry[]): MemEntries {
  return columnsOf(entries).sorted();
}

/** Entries given as objects, in the order given (runs built by hand: tests). */
export function memEntriesOf(entries: readonly MemEntry[]): MemEntries {
  return columnsOf(entries).inOrder();
}

/** The WAL files' total size (0 for one that cannot be stat'ed). */
function bytesOf(wals: readonly WalFileRef[]): number {
  let n = 0;
  for (const w of wals) {
    try {
      n += statSync(w.path).size;
    } catch {
      // gone: the replay says so
    }
  }
  return n;
}

/**
 * Replay the WALs into one CF's memtable layer: entries sorted (user key asc, newest first; equal
 * sequence numbers keep WAL order), range deletions apart.
 */
export function loadMemLayer(wals: readonly WalFileRef[], cfId: number, opts: ReplayOptions = {}): MemLayer {
  const min = opts.minLogNumber;
  const wants = (w: WalFileRef) => min === undefined || (w.logNumber ?? -1) >= min;
  return loadMemLayers(wals, [{ id: cfId, wants }], opts).get(cfId)!;
}

/** A layer without writes (a column family none of whose WALs holds any). */
export function emptyMemLayer(): MemLayer {
  return { entries: emptyMemEntries(), rangeDels: [], undecodable: 0 };
}

/**
 * The layers of column families that each want some of the WALs (`wants`: the WALs holding its live
 * writes), from one pass over them in the order given: the column families of a store share its WALs
 * (a Besu store's dozen), and a layer each replayed them whole. A layer for every column family asked
 * for (empty when it wants none). `opts.keys` applies to every layer.
 */
export function loadMemLayers<W extends WalFileRef>(
  wals: readonly W[],
  cfs: readonly { id: number; wants: (w: W) => boolean }[],
  opts: Omit<ReplayOptions, "minLogNumber"> = {},
): Map<number, MemLayer> {
  const refs: WalReplayRef[] = [];
  const keys = opts.keys;
  for (const w of wals) {
    const ids = new Set(cfs.filter((c) => c.wants(w)).map((c) => c.id));
    if (ids.size === 0) continue;
    // the writes of these keys the model's scan of this WAL kept, if it is unchanged since
    const kept = keys && keptWalWrites(w, keys, opts.pebble === true, ids);
    refs.push({ path: w.path, logNumber: w.logNumber, cfs: ids, kept });
  }
  const out = new Map<number, MemLayer>();
  for (const c of cfs) if (!refs.some((r) => r.cfs.has(c.id))) out.set(c.id, emptyMemLayer());
  if (refs.length === 0) return out;
  const byCf = new Map<number, { columns: MemColumns; rangeDels: MemRangeDel[] }>();
  const hint = keys ? 0 : bytesOf(refs);
  for (const r of refs)
    for (const cf of r.cfs) if (!byCf.has(cf)) byCf.set(cf, { columns: new MemColumns(hint), rangeDels: [] });
  const { undecodable } = replayWalWrites(
    refs,
    (w) => {
      if (!layerKeeps(w, keys)) return;
      const layer = byCf.get(w.cf)!;
      if (w.type === ValueType.RangeDeletion)
        layer.rangeDels.push({ start: Buffer.from(w.key), end: Buffer.from(w.value), seqno: w.seqno });
      else layer.columns.add(w.key, w.value, w.seqno, w.type);
    },
    opts,
  );
  // an undecodable batch is counted in the layers of every column family it was replayed for
  for (const [cf, l] of byCf)
    out.set(cf, { entries: l.columns.sorted(), rangeDels: l.rangeDels, undecodable });
  return out;
}
