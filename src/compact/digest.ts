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
import { LsmscopeError } from "../util/errors.js";
import { mergeNewest } from "../lsm/merge.js";
import { LiveValues, openLiveSources } from "../lsm/live.js";

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
  const hash = createHash("sha256");
  const sources = openLiveSources(inst, cf);
  const values = new LiveValues(inst.path, cf.displayName);
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
