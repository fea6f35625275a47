/**
 * Tables written through the Node engines: @nxtedition/rocksdb (RocksDB 9.7.4: format_version 6,
 * XXH3 checksums, ZSTD with a trained dictionary) and classic-level (LevelDB 1.20, Snappy, Bloom 10).
 * Only ever pointed at temp directories these tests create.
 */
import { createRequire } from "node:module";
import { expect } from "vitest";
import { openTable } from "../../src/format/index.js";

const require = createRequire(import.meta.url);

/**
 * The deterministic key/value set the writers store. Key lengths run from 1 to 303 bytes with bytes
 * >= 0x80 in their tails, so every length class of the filter hashes (XXPH3 1-3, 4-8, 9-16, 17-128,
 * 129-240, > 240 bytes; the Murmur tail's sign extension) is exercised.
 */
export function sampleEntries(n: number): { key: Buffer; value: Buffer }[] {
  const out: { key: Buffer; value: Buffer }[] = [];
  for (let i = 0; i < n; i++) {
    let key: Buffer;
    if (i < 256) key = Buffer.from([i]);
    else if (i < 512) key = Buffer.from([0xfe, i - 256]);
    else if (i < 768) key = Buffer.from([0xfd, 0x80, i - 512]);
    else {
      key = Buffer.alloc(4 + (i % 300), 0x80 | (i % 128));
      key.writeUInt32BE(Math.imul(i, 2654435761) >>> 0, 0);
    }
    out.push({ key, value: Buffer.from(`value-${i}-`.repeat(6)) });
  }
  return out;
}

/** Every table's entries together equal the first `n` of sampleEntries (newest version per key). */
export function expectWrittenData(files: string[], n: number): void {
  const want = new Map(sampleEntries(n).map((e) => [e.key.toString("hex"), e.value.toString("hex")]));
  const got = new Map<string, string>();
  for (const f of files) {
    const t = openTable(f);
    try {
      let prev: Buffer | undefined;
      t.scan((e) => {
        const k = e.userKeyCopy();
        if (prev) expect(Buffer.compare(prev, k)).toBeLessThanOrEqual(0);
        prev = k;
        if (!got.has(k.toString("hex"))) got.set(k.toString("hex"), e.valueCopy().toString("hex"));
      });
    } finally {
      t.close();
    }
  }
  expect(got.size).toBe(want.size);
  for (const [k, v] of want) expect(got.get(k)).toBe(v);
}

interface BatchDb {
  open(opts?: object): Promise<void>;
  close(): Promise<void>;
  batch(ops: { type: "put"; key: Buffer; value: Buffer }[]): Promise<void>;
}

/** Write with @nxtedition/rocksdb, then reopen once so the WAL is flushed into L0 tables. */
export async function writeWithNxtedition(dir: string, n: number, options: object = {}): Promise<void> {
  const { RocksLevel } = require("@nxtedition/rocksdb") as {
    RocksLevel: new (dir: string, o: object) => BatchDb;
  };
  const enc = { keyEncoding: "buffer", valueEncoding: "buffer" };
  let db = new RocksLevel(dir, enc);
  await db.open({ createIfMissing: true, memtableMemoryBudget: 1 << 20, ...options });
  const entries = sampleEntries(n);
  for (let i = 0; i < entries.length; i += 1000) {
    await db.batch(entries.slice(i, i + 1000).map((e) => ({ type: "put" as const, ...e })));
  }
  await db.close();
  db = new RocksLevel(dir, enc);
  await db.open({ ...options });
  await db.close();
}

/** Write with classic-level (LevelDB) and compact, so the data lands in .ldb tables. */
export async function writeWithClassicLevel(dir: string, n: number): Promise<void> {
  const { ClassicLevel } = require("classic-level") as {
    ClassicLevel: new (
      dir: string,
      o: object,
    ) => BatchDb & { compactRange(a: Buffer, b: Buffer): Promise<void> };
  };
  const db = new ClassicLevel(dir, { keyEncoding: "buffer", valueEncoding: "buffer" });
  await db.open({ createIfMissing: true, writeBufferSize: 64 * 1024, compression: true });
  const entries = sampleEntries(n);
  for (let i = 0; i < entries.length; i += 1000) {
    await db.batch(entries.slice(i, i + 1000).map((e) => ({ type: "put" as const, ...e })));
  }
  await db.compactRange(Buffer.alloc(0), Buffer.alloc(24, 0xff));
  await db.close();
}
