/**
 * Helpers for the compact tests: temp copies of committed samples (never compact a sample in place),
 * `ldb scan --hex` dumps as an oracle, directory snapshots to prove "nothing written", and a larger store
 * written through the engine for the SIGKILL test.
 */
import { createHash } from "node:crypto";
import { join } from "node:path";
import { execFileSync } from "node:child_process";
import * as engine from "../../src/engine/index.js";
import { putVarint32 } from "../../src/util/coding.js";
import { mulberry32 } from "../../src/util/random.js";

import { copyInto, SAMPLES, trackedTempDirs } from "../helpers/index.js";

export { SAMPLES, snapshotTree } from "../helpers/index.js";

export const { tempDir, cleanupTemps } = trackedTempDirs("lsmscope-compact-");

/** A private copy of a committed sample; returns the copy's root. */
export function copySample(name: string): string {
  return copyInto(join(SAMPLES, name), tempDir());
}

/** `ldb scan --hex` of one CF (read-only open; run only on temp copies). */
export function ldbScan(storeDir: string, cf: Buffer): string {
  return execFileSync(
    "ldb",
    [`--db=${storeDir}`, `--column_family=${cf.toString("latin1")}`, "scan", "--hex"],
    {
      encoding: "utf8",
      maxBuffer: 1 << 30,
    },
  );
}

export function ldbScanAll(storeDir: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const cf of engine.listColumnFamilies(storeDir)) out.set(cf.toString("hex"), ldbScan(storeDir, cf));
  return out;
}

/** The digest.ts digest computed from an `ldb scan --hex` dump: the oracle for the pure-TS digest. */
export function digestOfLdbScan(dump: string): { keys: number; sha256: string } {
  const h = createHash("sha256");
  let keys = 0;
  const len = (n: number) => {
    const o: number[] = [];
    putVarint32(o, n);
    return Buffer.from(o);
  };
  for (const line of dump.split("\n")) {
    if (!line) continue;
    const m = /^0x([0-9A-F]*) : 0x([0-9A-F]*)$/.exec(line);
    if (!m) throw new Error(`unexpected ldb line: ${line.slice(0, 80)}`);
    const k = Buffer.from(m[1]!, "hex");
    const v = Buffer.from(m[2]!, "hex");
    h.update(len(k.length)).update(k).update(len(v.length)).update(v);
    keys++;
  }
  return { keys, sha256: h.digest("hex") };
}

/** Besu's per-CF options (clients.md), with a small block size so small stores have many blocks. */
export const BESU_LIKE =
  "compression=kLZ4Compression;level_compaction_dynamic_level_bytes=false;" +
  "block_based_table_factory={format_version=5;block_size=32768;filter_policy=bloomfilter:10:false;" +
  "partition_filters=true;cache_index_and_filter_blocks=false}";

/**
 * A store with two Besu-like CFs: `keys` keys per CF compacted to the bottom level, then overwrites and
 * deletes flushed into L0 (an overlay), then a last batch left only in the WAL.
 */
export function writeOverlayStore(dir: string, keys: number, valueBytes = 120, seed = 7): void {
  const cfs = [Buffer.from([6]), Buffer.from([8])];
  const db = engine.openDb(dir, {
    createIfMissing: true,
    dbOptions: "avoid_flush_during_shutdown=true",
    columnFamilies: cfs.map((name) => ({ name, options: BESU_LIKE })),
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
    const tail = [];
    for (let n = 0; n < 200; n++)
      tail.push({ type: "put" as const, cf: cfs[0]!, key: key(n), value: val(n, 9) });
    db.write(tail);
  } finally {
    db.close();
  }
}
