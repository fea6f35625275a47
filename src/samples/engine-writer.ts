/**
 * Writing sample stores through the engine addon (RocksDB 7.8.3): batched puts recorded into the
 * logical store, and a read-out of the level layout the engine ended up with.
 */
import type { EngineDb } from "../engine/index.js";
import type { LogicalStore, Phase } from "./logical.js";

export interface Put {
  /** CF label as recorded in the truth file ("06", "Account", "default") */
  cf: string;
  key: Buffer;
  value: Buffer;
}

export interface CfSpec {
  label: string;
  /** the name RocksDB sees (raw bytes for Besu) */
  name: Buffer;
  options: string;
}

/** Write puts in WriteBatches of `batchSize`, WAL on, and record them. */
export function writePuts(
  db: EngineDb,
  cfs: CfSpec[],
  puts: Put[],
  log: LogicalStore,
  instance: string,
  phase: Phase,
  batchSize = 1000,
): void {
  const byLabel = new Map(cfs.map((c) => [c.label, c.name]));
  for (let i = 0; i < puts.length; i += batchSize) {
    const chunk = puts.slice(i, i + batchSize);
    db.write(
      chunk.map((p) => {
        const name = byLabel.get(p.cf);
        if (!name) throw new Error(`no column family ${p.cf}`);
        return { type: "put" as const, cf: name, key: p.key, value: p.value };
      }),
    );
    for (const p of chunk) log.put(instance, p.cf, p.key, p.value, phase);
  }
}

/** Flush every CF, then CompactRange each with bottommost=force, exclusive: everything in the bottom level. */
export function flushAndCompactAll(db: EngineDb, cfs: CfSpec[]): void {
  db.flush();
  for (const c of cfs) db.compactRange(c.name, { bottommost: "force", exclusive: true });
}

/** Files per level (L0..L6) of each CF, from rocksdb.num-files-at-levelN. */
export function levelLayout(db: EngineDb, cfs: CfSpec[]): Record<string, number[]> {
  const out: Record<string, number[]> = {};
  for (const c of cfs) {
    const files: number[] = [];
    for (let l = 0; l < 7; l++)
      files.push(Number(db.getProperty(c.name, `rocksdb.num-files-at-level${l}`) ?? 0));
    out[c.label] = files;
  }
  return out;
}

/** Wait until no compaction is pending or running on `cf`, so the layout does not depend on timing. */
export function waitForCompactions(db: EngineDb, cf: Buffer, timeoutMs = 60_000): void {
  const sleeper = new Int32Array(new SharedArrayBuffer(4));
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const pending = Number(db.getProperty(cf, "rocksdb.compaction-pending") ?? 0);
    const running = Number(db.getProperty(cf, "rocksdb.num-running-compactions") ?? 0);
    const flushes = Number(db.getProperty(cf, "rocksdb.num-running-flushes") ?? 0);
    if (pending === 0 && running === 0 && flushes === 0) return;
    if (Date.now() > deadline) throw new Error("background compaction did not settle");
    Atomics.wait(sleeper, 0, 0, 20);
  }
}
