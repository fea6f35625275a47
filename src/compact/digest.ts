/**
 * Logical digest of a column family: SHA-256 over every live key and its value, in key order, read
 * without an engine. What a reader of the store would see, whatever file or level holds each key:
 *
 *   sources  : every live SST of the CF (from the MANIFEST) + the writes still only in live WALs
 *   merge    : k-way merge by (user key asc, sequence desc); the first entry of a user key is its newest
 *   live     : newest entry is a value or blob index, and no range tombstone with a higher sequence
 *              covers it (deletions and single deletions hide the key)
 *   blobs    : blob index (type u8 | varint64 file | varint64 offset | varint64 size | compression u8)
 *              resolved by reading `size` bytes at `offset` of <file>.blob and decompressing them
 *   digest   : sha256( for each live key: varint32 len(key) ‖ key ‖ varint32 len(value) ‖ value )
 *
 * Merge operands and wide-column entities have no single value without the engine's operators: the
 * digest refuses them rather than guess. Bytewise comparator only.
 */
import { createHash } from "node:crypto";
import { join } from "node:path";
import { inspectDatadir } from "../datadir/inspect.js";
import type { ColumnFamilyModel, InstanceModel } from "../datadir/model.js";
import { openTable, type SstTable } from "../format/table.js";
import { ValueType } from "../format/internal_key.js";
import { BlobFileReader, decodeBlobIndex } from "../format/blob.js";
import { LsmscopeError } from "../util/errors.js";
import { loadMemLayer, type MemEntry, type MemRangeDel } from "../datadir/memtable.js";

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
}

export interface StoreDigest {
  dir: string;
  columnFamilies: CfDigest[];
  elapsedMs: number;
}

/** One sorted stream of internal entries. `key` holds the user key in key[0, userKeyLength). */
interface Source {
  key: Buffer;
  userKeyLength: number;
  seqno: number;
  type: number;
  data: Buffer;
  valueOffset: number;
  valueLength: number;
  next(): boolean;
  close(): void;
}

class TableSource implements Source {
  key: Buffer = Buffer.alloc(0);
  userKeyLength = 0;
  seqno = 0;
  type = 0;
  data: Buffer = Buffer.alloc(0);
  valueOffset = 0;
  valueLength = 0;
  private readonly index: Iterator<{ handle: { offset: number; size: number } }>;
  private cur?: ReturnType<ReturnType<SstTable["readDataBlock"]>["cursor"]>;
  constructor(private readonly table: SstTable) {
    this.index = table.iterateIndex();
  }
  next(): boolean {
    for (;;) {
      if (this.cur && this.cur.next()) {
        const c = this.cur;
        this.key = c.key;
        this.userKeyLength = c.userKeyLength;
        this.seqno = c.seqno;
        this.type = c.type;
        this.data = c.data;
        this.valueOffset = c.valueOffset;
        this.valueLength = c.valueLength;
        return true;
      }
      const ie = this.index.next();
      if (ie.done) return false;
      this.cur = this.table.readDataBlock(ie.value.handle).cursor();
    }
  }
  close(): void {
    this.table.close();
  }
}

class ArraySource implements Source {
  key: Buffer = Buffer.alloc(0);
  userKeyLength = 0;
  seqno = 0;
  type = 0;
  data: Buffer = Buffer.alloc(0);
  valueOffset = 0;
  valueLength = 0;
  private i = -1;
  constructor(private readonly items: MemEntry[]) {}
  next(): boolean {
    const e = this.items[++this.i];
    if (!e) return false;
    this.key = e.key;
    this.userKeyLength = e.key.length;
    this.seqno = e.seqno;
    this.type = e.type;
    this.data = e.value;
    this.valueOffset = 0;
    this.valueLength = e.value.length;
    return true;
  }
  close(): void {}
}

/** a before b in internal-key order: user key ascending, then sequence descending. */
function before(a: Source, b: Source): boolean {
  const c = a.key.compare(b.key, 0, b.userKeyLength, 0, a.userKeyLength);
  if (c !== 0) return c < 0;
  return a.seqno > b.seqno;
}

class Heap {
  private readonly h: Source[] = [];
  get size(): number {
    return this.h.length;
  }
  top(): Source {
    return this.h[0]!;
  }
  push(s: Source): void {
    const h = this.h;
    h.push(s);
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!before(h[i]!, h[p]!)) break;
      [h[i], h[p]] = [h[p]!, h[i]!];
      i = p;
    }
  }
  closeAll(): void {
    for (const s of this.h.splice(0)) s.close();
  }
  /** Advance the top source; drop it when exhausted. */
  advanceTop(): void {
    const h = this.h;
    const t = h[0]!;
    if (!t.next()) {
      t.close();
      const last = h.pop()!;
      if (h.length === 0) return;
      h[0] = last;
    }
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < h.length && before(h[l]!, h[m]!)) m = l;
      if (r < h.length && before(h[r]!, h[m]!)) m = r;
      if (m === i) break;
      [h[i], h[m]] = [h[m]!, h[i]!];
      i = m;
    }
  }
}

/** Reads blob values by blob index (format/blob.ts); keeps one descriptor per blob file. */
class BlobResolver {
  private readonly reader = new BlobFileReader();
  constructor(private readonly dir: string) {}
  resolve(index: Buffer, keyHex: () => string): Buffer {
    const kind = index[0];
    if (kind === 0) throw new LsmscopeError(`inlined-TTL blob index for key ${keyHex()} is not supported`);
    if (kind !== 1 && kind !== 2)
      throw new LsmscopeError(`unknown blob index type ${kind} for key ${keyHex()}`);
    const idx = decodeBlobIndex(index, 0, index.length, { lenient: true });
    return this.reader.readValue(join(this.dir, `${String(idx.fileNumber).padStart(6, "0")}.blob`), idx);
  }
  close(): void {
    this.reader.close();
  }
}

function covered(tombstones: MemRangeDel[], key: Buffer, keyLen: number, seqno: number): boolean {
  for (const t of tombstones) {
    if (t.seqno <= seqno) continue;
    if (
      key.compare(t.start, 0, t.start.length, 0, keyLen) >= 0 &&
      key.compare(t.end, 0, t.end.length, 0, keyLen) < 0
    )
      return true;
  }
  return false;
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
    if (this.pos + 5 + b.length > this.buf.length) this.flush();
    this.varint(b.length);
    if (b.length > this.buf.length - this.pos) {
      this.flush();
      this.hash.update(b);
      return;
    }
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }
  flush(): void {
    if (this.pos > 0) this.hash.update(this.buf.subarray(0, this.pos));
    this.pos = 0;
  }
}

/** Digest of one column family of a store described by the datadir model. */
export function digestColumnFamily(inst: InstanceModel, cf: ColumnFamilyModel): CfDigest {
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
  };
  if (cf.comparator && cf.comparator !== "leveldb.BytewiseComparator")
    throw new LsmscopeError(
      `column family ${cf.displayName} uses comparator ${cf.comparator}; digest needs bytewise`,
    );
  const heap = new Heap();
  const tombstones: MemRangeDel[] = [];
  const blobs = new BlobResolver(inst.path);
  const hash = createHash("sha256");
  try {
    for (const level of cf.levels) {
      for (const f of level.files) {
        if (!f.present) throw new LsmscopeError(`live table is missing`, { file: f.path });
        const t = openTable(f.path);
        tombstones.push(...t.rangeDeletions());
        const s = new TableSource(t);
        if (s.next()) heap.push(s);
        else s.close();
      }
    }
    const wal = loadMemLayer(inst.wal, cf.id, { minLogNumber: cf.logNumber, onUndecodable: "throw" });
    tombstones.push(...wal.rangeDels);
    out.walEntries = wal.entries.length;
    if (wal.entries.length > 0) {
      // the memtable layer comes sorted: key ascending, newest first
      const s = new ArraySource(wal.entries);
      s.next();
      heap.push(s);
    }
    // the last user key seen, copied into a reused buffer
    let lastBuf = Buffer.allocUnsafe(256);
    let lastLen = -1;
    const rh = new RecordHasher(hash);
    while (heap.size > 0) {
      const s = heap.top();
      out.entriesRead++;
      const isNewest = lastLen < 0 || s.key.compare(lastBuf, 0, lastLen, 0, s.userKeyLength) !== 0;
      if (isNewest) {
        if (s.userKeyLength > lastBuf.length) lastBuf = Buffer.allocUnsafe(s.userKeyLength * 2);
        s.key.copy(lastBuf, 0, 0, s.userKeyLength);
        lastLen = s.userKeyLength;
        const last = lastBuf.subarray(0, lastLen);
        const t = s.type;
        if (t === ValueType.Value || t === ValueType.BlobIndex || t === 0x18) {
          if (!covered(tombstones, s.key, s.userKeyLength, s.seqno)) {
            let value = s.data.subarray(s.valueOffset, s.valueOffset + s.valueLength);
            if (t === ValueType.BlobIndex) {
              value = blobs.resolve(Buffer.from(value), () => last.toString("hex"));
              out.blobValues++;
            } else if (t === 0x18) {
              // value with preferred seqno: value ‖ fixed64 unix write time / seqno
              value = value.subarray(0, Math.max(0, value.length - 8));
            }
            rh.field(last);
            rh.field(value);
            out.keys++;
            out.keyBytes += last.length;
            out.valueBytes += value.length;
          }
        } else if (t === ValueType.Merge || t === ValueType.WideColumnEntity) {
          throw new LsmscopeError(
            `column family ${cf.displayName} holds ${t === ValueType.Merge ? "merge operands" : "wide-column entities"}; the digest cannot resolve them without the engine`,
          );
        }
      }
      heap.advanceTop();
    }
    rh.flush();
  } finally {
    heap.closeAll();
    blobs.close();
  }
  out.sha256 = hash.digest("hex");
  return out;
}

/** The single RocksDB instance at `dir` (a store directory, or a datadir holding exactly one store). */
export async function resolveStore(dir: string): Promise<InstanceModel> {
  const model = await inspectDatadir(dir, { tableDetails: "none", readWal: true });
  const stores = model.instances.filter((i) => i.engine === "rocksdb");
  if (stores.length === 0) throw new LsmscopeError(`no RocksDB store found`, { file: dir });
  if (stores.length > 1)
    throw new LsmscopeError(
      `${stores.length} RocksDB stores found (${stores.map((s) => s.relPath).join(", ")}); name one of them`,
      { file: dir },
    );
  const inst = stores[0]!;
  if (!inst.readable)
    throw new LsmscopeError(`store cannot be read: ${inst.findings[0]?.message ?? "MANIFEST unreadable"}`, {
      file: inst.path,
    });
  return inst;
}

/** Digest of every column family (or the named ones, by raw-name hex or display name) of a store. */
export async function digestStore(dir: string, cfs?: string[]): Promise<StoreDigest> {
  const started = Date.now();
  const inst = await resolveStore(dir);
  const chosen = inst.columnFamilies.filter((c) => !cfs || cfs.some((n) => cfMatches(c, n)));
  return {
    dir: inst.path,
    columnFamilies: chosen.map((c) => digestColumnFamily(inst, c)),
    elapsedMs: Date.now() - started,
  };
}

/** A --cf argument names a CF by its text name, its raw-name hex ("06", "0x06") or its display name. */
export function cfMatches(cf: ColumnFamilyModel, arg: string): boolean {
  const a = arg.toLowerCase().replace(/^0x/, "");
  return (
    cf.name === arg ||
    cf.nameHex === a ||
    cf.displayName === arg ||
    cf.displayName.toLowerCase().startsWith(arg.toLowerCase() + " ") ||
    cf.displayName.split(" ").slice(1).join(" ") === arg
  );
}
