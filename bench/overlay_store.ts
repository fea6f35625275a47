/**
 * A store with an overlay, written through the engine addon: in each of two Besu-like column families,
 * `keys` keys compacted to the bottom level, then three rounds of overwrites and deletes (a tenth of the
 * keys each, one in ten a delete) each flushed into L0, and optionally a last batch left only in the WAL.
 * The compaction benchmark and the compact tests both measure on it.
 */
import { createHash } from "node:crypto";
import * as engine from "../src/engine/index.js";
import { mulberry32 } from "../src/util/random.js";

/** Besu's per-CF options (clients.md), with a small block size so small stores have many blocks. */
export const BESU_LIKE =
  "compression=kLZ4Compression;level_compaction_dynamic_level_bytes=false;" +
  "block_based_table_factory={format_version=5;block_size=32768;filter_policy=bloomfilter:10:false;" +
  "partition_filters=true;cache_index_and_filter_blocks=false}";

/** Besu's column families 06 (ACCOUNT_INFO_STATE) and 08 (ACCOUNT_STORAGE_STORAGE). */
export const OVERLAY_CFS = [Buffer.from([6]), Buffer.from([8])];

export interface OverlayStoreOptions {
  valueBytes?: number;
  seed?: number;
  /** Options of both column families (default BESU_LIKE). */
  cfOptions?: string;
  /** Leave 200 writes only in the WAL (default true). */
  walTail?: boolean;
}

export function writeOverlayStore(dir: string, keys: number, opts: OverlayStoreOptions = {}): void {
  const { valueBytes = 120, seed = 7, cfOptions = BESU_LIKE, walTail = true } = opts;
  const cfs = OVERLAY_CFS;
  const db = engine.openDb(dir, {
    createIfMissing: true,
    dbOptions: "avoid_flush_during_shutdown=true",
    columnFamilies: cfs.map((name) => ({ name, options: cfOptions })),
  });
  const r = mulberry32(seed);
  const key = (i: number) => createHash("sha256").update(`k${i}`).digest();
  const val = (i: number, gen: number) => {
    const b = Buffer.alloc(valueBytes);
    for (let j = 0; j < valueBytes; j += 4) b.writeUInt32LE((Math.floor(r() * 2 ** 32) ^ i ^ gen) >>> 0, j);
    return b;
  };
  try {
    const batch = 2000;
    for (const cf of cfs) {
      for (let i = 0; i < keys; i += batch) {
        const ops = [];
        for (let j = i; j < Math.min(keys, i + batch); j++)
          ops.push({ type: "put" as const, cf, key: key(j), value: val(j, 0) });
        db.write(ops, { disableWal: true });
      }
      db.flush(cf);
      db.compactRange(cf, { bottommost: "force", exclusive: true, changeLevel: true, targetLevel: 6 });
      for (let round = 1; round <= 3; round++) {
        const ops = [];
        for (let n = 0; n < keys / 10; n++) {
          const i = Math.floor(r() * keys);
          ops.push(
            r() < 0.1
              ? { type: "delete" as const, cf, key: key(i) }
              : { type: "put" as const, cf, key: key(i), value: val(i, round) },
          );
        }
        db.write(ops, { disableWal: true });
        db.flush(cf);
      }
    }
    if (walTail) {
      const tail = [];
      for (let n = 0; n < 200; n++)
        tail.push({ type: "put" as const, cf: cfs[0]!, key: key(n), value: val(n, 9) });
      db.write(tail);
    }
  } finally {
    db.close();
  }
}
