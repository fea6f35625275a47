/**
 * A compressed WAL: @nxtedition/rocksdb (RocksDB 9.7.4) opens its stores with wal_compression=kZSTD,
 * so each log holds a SetCompressionType record and then one zstd stream, every data fragment its
 * next piece (db/log_reader.cc). Until session 52 lsmscope stopped at the SetCompressionType record
 * with a warning: the live keys of the log were left out of `sizes`, `diff` and the rest, exit 0
 * (seeds of a random workload: 200 to 3,200 live writes missing). The store is written in a child
 * process (a process that loads RocksDB 9.7.4 beside the engine addon's 7.8.3 dies; vitest.config.ts),
 * which prints the writer's own view: its iterator's live keys and values, counted and hashed; `ldb
 * dump_wal` (RocksDB 7.8.3, which reads compressed WALs) gives each log's batches and sequences.
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inspectDatadir } from "../../src/datadir/inspect.js";
import { computeSizes } from "../../src/sizes/compute.js";
import { REPO, trackedTempDirs } from "../helpers/index.js";
import { liveView, probeFound } from "../helpers/live_view.js";
import { ldbWal } from "./helpers.js";

const { tempDir, cleanupTemps } = trackedTempDirs("lsmscope-wal-zstd-");
afterAll(cleanupTemps);

/** The writer; it prints its view in the form of test/helpers/live_view.ts. */
const WRITER = `
  import { createHash } from "node:crypto";
  import { createRequire } from "node:module";
  const { RocksLevel } = createRequire(${JSON.stringify(join(REPO, "package.json"))})("@nxtedition/rocksdb");
  const dir = process.argv[1];
  let seed = 11;
  const rnd = (n) => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % n;
  const db = new RocksLevel(dir, { keyEncoding: "buffer", valueEncoding: "buffer" });
  await db.open({ createIfMissing: true, memtableMemoryBudget: 512 * 1024, compression: true });
  const key = () => { const k = Buffer.alloc(4 + rnd(40)); k.writeUInt32BE(rnd(8000), 0); return k; };
  for (let r = 0; r < 5; r++) {
    const ops = [];
    for (let i = 0; i < 3000; i++)
      ops.push(rnd(10) < 8
        ? { type: "put", key: key(), value: Buffer.from("abc".repeat(rnd(60)) + rnd(1000)) }
        : { type: "del", key: key() });
    for (let i = 0; i < ops.length; i += 200) await db.batch(ops.slice(i, i + 200));
  }
  let entries = 0, valueBytes = 0;
  const hash = createHash("sha256");
  const len = Buffer.alloc(4);
  for await (const [k, v] of db.iterator()) {
    entries++;
    valueBytes += v.length;
    for (const b of [k, v]) { len.writeUInt32BE(b.length, 0); hash.update(len); hash.update(b); }
  }
  console.log(JSON.stringify({ entries, valueBytes, sha256: hash.digest("hex") }));
  await db.close();
`;

let dir: string;
let want: { entries: number; valueBytes: number; sha256: string };
beforeAll(() => {
  dir = join(tempDir(), "db");
  const r = spawnSync(process.execPath, ["--input-type=module", "-e", WRITER, dir], {
    encoding: "utf8",
    timeout: 60_000,
  });
  if (r.status !== 0) throw new Error(`writer failed: ${r.stderr}`);
  want = JSON.parse(r.stdout) as typeof want;
});

describe("a WAL compressed with zstd (RocksDB 9.7.4's wal_compression)", () => {
  it("is decoded: its writes are in the live contents, which hash as the writer's iterator's", async () => {
    const m = await inspectDatadir(dir, { tableDetails: "cheap" });
    const inst = m.instances[0]!;
    const compressed = inst.wal.filter((w) => w.compressionType === 7);
    expect(compressed.length).toBeGreaterThan(0);
    expect(compressed.reduce((n, w) => n + w.records, 0)).toBeGreaterThan(0);
    expect([...m.findings, ...inst.findings].filter((f) => f.severity !== "info")).toEqual([]);
    // each log's batches and sequence numbers as RocksDB 7.8.3's `ldb dump_wal` reads them (it reads
    // compressed WALs too)
    for (const w of compressed) {
      const recs = ldbWal(w.path);
      expect(w.records, w.path).toBe(recs.length);
      expect([w.firstSeq, w.lastSeq]).toEqual([recs[0]!.seq, recs.at(-1)!.seq + recs.at(-1)!.count - 1]);
    }
    const { entries, valueBytes, sha256 } = liveView(inst, inst.columnFamilies[0]!);
    expect({ entries, valueBytes, sha256 }).toEqual(want);
  });

  it("sizes --full counts them; probe's reader path finds every live key", async () => {
    const s = await computeSizes(dir, { mode: "full" });
    const cf = s.columnFamilies[0]!;
    expect(cf.walEntries).toBeGreaterThan(0);
    expect([cf.liveKeys, cf.valueSize.totalBytes]).toEqual([want.entries, want.valueBytes]);
    const inst = (await inspectDatadir(dir, { tableDetails: "cheap" })).instances[0]!;
    const { keys } = liveView(inst, inst.columnFamilies[0]!);
    expect(probeFound(dir, "default", keys)).toEqual({ lookups: keys.length, found: keys.length });
  });
});
