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
import { inspectDatadir, noReadableStoreError, pebbleEngineRefusal } from "../datadir/inspect.js";
import type { ColumnFamilyModel, InstanceModel } from "../datadir/model.js";
import { openTable } from "../format/table.js";
import { ValueType } from "../base/internal_key.js";
import { BlobFileReader, decodeBlobIndex } from "../format/blob.js";
import { LsmscopeError } from "../util/errors.js";
import { loadMemLayer } from "../datadir/memtable.js";
import {
  Fate,
  levelRuns,
  mergeReadAhead,
  MemRun,
  mergeNewest,
  TableRun,
  type RangeTombstone,
  type Run,
} from "../lsm/merge.js";
import { toHex } from "../util/bytes.js";

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
  const tombstones: RangeTombstone[] = [];
  const blobs = new BlobResolver(inst.path);
  const hash = createHash("sha256");
  const runs: Run[] = [];
  try {
    for (const level of cf.levels) {
      for (const f of level.files) {
        if (!f.present) throw new LsmscopeError(`live table is missing`, { file: f.path });
        const t = openTable(f.path, { verifyChecksums: true });
        try {
          tombstones.push(...t.rangeDeletions());
        } finally {
          t.close();
        }
      }
    }
    const tableRuns = levelRuns(cf.levels);
    const readAhead = mergeReadAhead(tableRuns.length);
    for (const files of tableRuns)
      runs.push(new TableRun(files, undefined, undefined, { block() {} }, undefined, readAhead));
    const wal = loadMemLayer(inst.wal, cf.id, { minLogNumber: cf.logNumber, onUndecodable: "throw" });
    tombstones.push(...wal.rangeDels);
    out.walEntries = wal.entries.length;
    // the memtable layer comes sorted: key ascending, newest first
    if (wal.entries.length > 0) runs.push(new MemRun(wal.entries));
    const rh = new RecordHasher(hash);
    mergeNewest(runs, tombstones, {
      visit: (r, fate) => {
        out.entriesRead++;
        if (fate === Fate.Shadowed) return;
        const t = r.type;
        if (t === ValueType.Merge || t === ValueType.WideColumnEntity)
          throw new LsmscopeError(
            `column family ${cf.displayName} holds ${t === ValueType.Merge ? "merge operands" : "wide-column entities"}; the digest cannot resolve them without the engine`,
          );
        if (fate === Fate.RangeDeleted) return;
        if (t !== ValueType.Value && t !== ValueType.BlobIndex && t !== ValueType.ValuePreferredSeqno) return;
        const key = r.key.subarray(0, r.ukLen);
        let value = r.data.subarray(r.vOff, r.vOff + r.vLen);
        if (t === ValueType.BlobIndex) {
          value = blobs.resolve(Buffer.from(value), () => toHex(key));
          out.blobValues++;
        } else if (t === ValueType.ValuePreferredSeqno) {
          // value with preferred seqno: value ‖ fixed64 unix write time / seqno
          value = value.subarray(0, Math.max(0, value.length - 8));
        }
        rh.field(key);
        rh.field(value);
        out.keys++;
        out.keyBytes += key.length;
        out.valueBytes += value.length;
      },
    });
    rh.flush();
  } finally {
    for (const r of runs) r.close();
    blobs.close();
  }
  out.sha256 = hash.digest("hex");
  return out;
}

/** The single RocksDB instance at `dir` (a store directory, or a datadir holding exactly one store). */
export async function resolveStore(dir: string): Promise<InstanceModel> {
  const model = await inspectDatadir(dir, { tableDetails: "none", readWal: true });
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
