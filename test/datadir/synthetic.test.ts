/**
 * Synthetic MANIFESTs and WALs written with our encoder (synth.ts) and checked by RocksDB's own ldb:
 * thousands of files (speed), fragmented records across 32 KiB blocks, atomic groups, column family
 * add/drop, recycled WALs with stale tails, torn tails.
 */
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { mkdirSync, truncateSync, writeFileSync, closeSync, openSync } from "node:fs";
import { join } from "node:path";
import { inspectDatadir } from "../../src/datadir/index.js";
import { scanLogBuffer } from "../../src/datadir/log_reader.js";
import { decodeVersionEdit } from "../../src/datadir/version_edit.js";
import { ldbManifest, ldbWal, removeDir, tempDir } from "./helpers.js";
import { encodeBatch, encodeEdit, encodeLog, internalKey, type SynthEdit, type SynthFile } from "./synth.js";

let dir: string;
beforeAll(() => {
  dir = tempDir();
});
afterAll(() => {
  if (!process.env.KEEP) removeDir(dir);
  else console.log(dir);
});

function writeStore(name: string, edits: SynthEdit[], files: SynthFile[] = []): string {
  const d = join(dir, name);
  mkdirSync(d, { recursive: true });
  writeFileSync(join(d, "MANIFEST-000001"), encodeLog(edits.map(encodeEdit)));
  writeFileSync(join(d, "CURRENT"), "MANIFEST-000001\n");
  writeFileSync(join(d, "IDENTITY"), "synthetic\n");
  for (const f of files) {
    // sparse files of the declared size: the model checks presence and size only
    const p = join(d, `${String(f.number).padStart(6, "0")}.sst`);
    closeSync(openSync(p, "w"));
    truncateSync(p, f.size);
  }
  return d;
}

const key = (i: number) => Buffer.from(i.toString(16).padStart(12, "0"), "latin1");

describe("a MANIFEST with thousands of files", () => {
  it("replays 6,000 files in 2 CFs, with compactions, as ldb does", async () => {
    const edits: SynthEdit[] = [
      { comparator: "leveldb.BytewiseComparator", logNumber: 0, nextFile: 2, lastSeq: 0 },
      { cf: 1, cfAdd: Buffer.from("second"), comparator: "leveldb.BytewiseComparator", logNumber: 0 },
    ];
    const live = new Map<number, SynthFile & { cf: number }>();
    let num = 10;
    let seq = 1;
    // flushes to L0 then "compactions" moving them down, batched 100 files per edit
    for (let batch = 0; batch < 70; batch++) {
      const cf = batch % 2;
      const added: SynthFile[] = [];
      for (let i = 0; i < 100; i++) {
        const k = batch * 100 + i;
        const f: SynthFile = {
          level: 1 + (batch % 5),
          number: num++,
          size: 1000 + k,
          smallest: internalKey(key(k * 2), seq, 1),
          largest: internalKey(key(k * 2 + 1), seq + 1, 1),
          smallestSeqno: seq,
          largestSeqno: seq + 1,
          epoch: batch + 1,
        };
        seq += 2;
        added.push(f);
        live.set(f.number, { ...f, cf });
      }
      const deleted: { level: number; number: number }[] = [];
      if (batch >= 10 && batch % 3 === 0) {
        // drop 40 files of this CF added earlier
        for (const f of [...live.values()].filter((x) => x.cf === cf).slice(0, 40)) {
          deleted.push({ level: f.level, number: f.number });
          live.delete(f.number);
        }
      }
      edits.push({ cf, added, deleted, logNumber: batch, nextFile: num, lastSeq: seq });
    }
    const store = writeStore("many", edits, [...live.values()]);
    // how long this takes is measured by bench/shapes.ts (thousands of tables), not asserted here: a
    // shared 2-core machine makes a wall-clock bound in a test fail for reasons outside the code
    const m = await inspectDatadir(store);
    const inst = m.instances[0]!;
    expect(inst.totals.sstFiles).toBe(live.size);
    expect(live.size).toBeGreaterThan(6000);
    expect(m.complete).toBe(true);
    // ldb reads our MANIFEST the same way
    const oracle = ldbManifest({ path: join(store, "MANIFEST-000001") });
    for (const ocf of oracle.cfs) {
      const cf = inst.columnFamilies.find((c) => c.id === ocf.id)!;
      const mine = cf.levels.flatMap((l) =>
        l.files.map((f) => `${l.level}:${f.fileNumber}:${f.fileSize}:${f.smallestKey}`),
      );
      const theirs = ocf.files.map((f) => `${f.level}:${f.fileNumber}:${f.fileSize}:${f.smallestKey}`);
      expect(mine.sort()).toEqual(theirs.sort());
      expect(cf.logNumber).toBe(ocf.logNumber);
    }
  });
});

describe("log records and edits", () => {
  it("reassembles records fragmented over several 32 KiB blocks", async () => {
    const big: SynthFile[] = [];
    for (let i = 0; i < 3000; i++)
      big.push({
        level: 6,
        number: 100 + i,
        size: 500,
        smallest: internalKey(Buffer.alloc(40, i % 256), 5, 1),
        largest: internalKey(Buffer.alloc(40, (i + 1) % 256), 6, 1),
        smallestSeqno: 5,
        largestSeqno: 6,
      });
    const edit = encodeEdit({ added: big, nextFile: 4000, lastSeq: 6, logNumber: 3 });
    expect(edit.length).toBeGreaterThan(3 * 32768);
    const log = encodeLog([encodeEdit({ comparator: "leveldb.BytewiseComparator" }), edit]);
    const sizes: number[] = [];
    const frags: number[] = [];
    const r = scanLogBuffer(log, (rec) => {
      sizes.push(rec.data.length);
      frags.push(rec.fragments);
    });
    expect(r.issues).toEqual([]);
    expect(sizes[1]).toBe(edit.length);
    expect(frags[1]).toBeGreaterThanOrEqual(4);
    const store = writeStore("fragmented", [
      { comparator: "leveldb.BytewiseComparator" },
      { added: big, nextFile: 4000, lastSeq: 6, logNumber: 3 },
    ]);
    const m = await inspectDatadir(store);
    expect(m.instances[0]!.columnFamilies[0]!.levels[6]!.files).toHaveLength(3000);
    // 3000 sparse-less files missing: each one named
    expect(m.findings.filter((f) => f.code === "sst-missing")).toHaveLength(3000);
    expect(m.complete).toBe(false);
  });

  it("applies an atomic group only when complete, drops a CF, as ldb does", async () => {
    const f = (n: number, level = 1): SynthFile => ({
      level,
      number: n,
      size: 100 + n,
      smallest: internalKey(key(n), n, 1),
      largest: internalKey(key(n + 1), n, 1),
      smallestSeqno: n,
      largestSeqno: n,
    });
    const edits: SynthEdit[] = [
      { comparator: "leveldb.BytewiseComparator", logNumber: 0, nextFile: 2, lastSeq: 0 },
      { cf: 1, cfAdd: Buffer.from("a"), logNumber: 0 },
      { cf: 2, cfAdd: Buffer.from([0x06]), logNumber: 0 },
      { cf: 3, cfAdd: Buffer.from("gone"), logNumber: 0 },
      { cf: 1, added: [f(10)], atomicRemaining: 1 },
      { cf: 2, added: [f(11)], atomicRemaining: 0 },
      { cf: 3, cfDrop: true },
      { cf: 0, added: [f(12, 0)], logNumber: 7, nextFile: 20, lastSeq: 12 },
      // incomplete group at the end: ignored
      { cf: 1, added: [f(13)], atomicRemaining: 1 },
    ];
    const store = writeStore("atomic", edits, [f(10), f(11), f(12)]);
    const m = await inspectDatadir(store);
    const inst = m.instances[0]!;
    expect(inst.columnFamilies.map((c) => c.name)).toEqual(["default", "a", "06"]);
    expect(inst.columnFamilies.map((c) => c.nameHex)).toEqual(["64656661756c74", "61", "06"]);
    expect(inst.columnFamilies.map((c) => c.totals.files)).toEqual([1, 1, 1]);
    expect(inst.manifest!.droppedColumnFamilies).toBe(1);
    expect(m.findings.some((x) => x.code === "manifest-atomic-group" && x.severity === "warn")).toBe(true);
    const oracle = ldbManifest({ path: join(store, "MANIFEST-000001") });
    expect(oracle.cfs.map((c) => c.files.map((x) => x.fileNumber))).toEqual(
      inst.columnFamilies.map((c) => c.levels.flatMap((l) => l.files.map((x) => x.fileNumber))),
    );
  });

  it("names the field that fails to decode and its tag's offset (LevelDB's VersionEdit::DecodeFrom)", () => {
    const file: SynthFile = {
      level: 1,
      number: 9,
      size: 100,
      smallest: internalKey(Buffer.from("a"), 1, 1),
      largest: internalKey(Buffer.from("b"), 2, 1),
      smallestSeqno: 1,
      largestSeqno: 2,
    };
    const head = encodeEdit({ logNumber: 4 });
    const whole = encodeEdit({ logNumber: 4, added: [file] });
    expect(decodeVersionEdit(whole).newFiles.map((f) => f.fileNumber)).toEqual([9]);
    // the new-file entry cut in its largest key
    const cut = whole.subarray(0, whole.length - 6);
    expect(() => decodeVersionEdit(cut)).toThrow(
      expect.objectContaining({
        at: head.length,
        message: expect.stringMatching(/^malformed VersionEdit new-file entry \(tag 103\): /),
      }),
    );
    // a tag number RocksDB does not know, without the forward-compatible bit
    expect(() => decodeVersionEdit(Buffer.concat([head, Buffer.of(50)]))).toThrow(
      expect.objectContaining({ at: head.length, message: "unknown VersionEdit tag 50" }),
    );
    expect(() => decodeVersionEdit(Buffer.of(0x82))).toThrow(
      /^malformed VersionEdit tag: varint32 runs past end/,
    );
  });
});

describe("WAL edge cases", () => {
  const batches = (n: number, seq0: number) =>
    Array.from({ length: n }, (_, i) =>
      encodeBatch(seq0 + i * 2, [
        { cf: 0, key: key(i), value: Buffer.alloc(50, 1) },
        { cf: 1, key: key(i), value: Buffer.alloc(30, 2) },
      ]),
    );

  function walStore(name: string, walName: string, bytes: Buffer): string {
    const store = writeStore(name, [
      { comparator: "leveldb.BytewiseComparator", logNumber: 5, nextFile: 20, lastSeq: 100 },
      { cf: 1, cfAdd: Buffer.from("one"), logNumber: 9 },
    ]);
    writeFileSync(join(store, walName), bytes);
    return store;
  }

  it("a recycled WAL ends at the first record of its previous life", async () => {
    const fresh = encodeLog(batches(20, 101), { recycleLogNumber: 9 });
    const stale = encodeLog(batches(40, 1), { recycleLogNumber: 3 });
    // the new records overwrite the start of the old file; the old tail stays behind them
    const bytes = Buffer.concat([fresh, stale.subarray(fresh.length)]);
    const store = walStore("recycled", "000009.log", bytes);
    const m = await inspectDatadir(store);
    const w = m.instances[0]!.wal[0]!;
    expect(w.recyclable).toBe(true);
    expect(w.tail?.kind).toBe("stale-recycled");
    expect(w.records).toBe(20);
    expect(w.firstSeq).toBe(101);
    expect(w.lastSeq).toBe(101 + 20 * 2 - 1);
    // both CFs unflushed: WAL 9 >= log numbers 5 and 9
    expect(w.unflushedWrites).toBe(40);
    expect(m.complete).toBe(true);
    const oracle = ldbWal(join(store, "000009.log"));
    expect(oracle.map((r) => r.seq)).toEqual(Array.from({ length: 20 }, (_, i) => 101 + i * 2));
  });

  it("a torn tail is reported, not an error; only CFs at or past their log number count as unflushed", async () => {
    const whole = encodeLog(batches(30, 101));
    const cut = whole.subarray(0, whole.length - 40);
    const store = walStore("torn", "000007.log", cut);
    const m = await inspectDatadir(store);
    const w = m.instances[0]!.wal[0]!;
    expect(w.tail?.kind).toBe("torn-tail");
    expect(w.records).toBe(29);
    // WAL 7: CF default (log 5) unflushed, CF one (log 9) already flushed
    expect(w.unflushedWrites).toBe(29);
    expect(w.perColumnFamily.map((c) => [c.columnFamilyId, c.writes, c.unflushed])).toEqual([
      [0, 29, true],
      [1, 29, false],
    ]);
    expect(w.summary).toBe("holds 29 unflushed writes for CFs default");
    expect(m.findings.find((f) => f.code === "wal-torn-tail")?.severity).toBe("info");
    expect(m.complete).toBe(true);
    expect(ldbWal(join(store, "000007.log"))).toHaveLength(29);
  });

  it("WALs tracked in the MANIFEST must be on disk with their synced size", async () => {
    const store = writeStore("tracked", [
      { comparator: "leveldb.BytewiseComparator", logNumber: 5, nextFile: 20, lastSeq: 100 },
      {
        walAdded: [
          { number: 5, synced: 1_000_000 },
          { number: 6, synced: 10 },
        ],
      },
    ]);
    writeFileSync(join(store, "000005.log"), encodeLog(batches(2, 101)));
    const m = await inspectDatadir(store);
    expect(m.instances[0]!.manifest!.trackedWals).toEqual([
      { logNumber: 5, syncedSize: 1_000_000 },
      { logNumber: 6, syncedSize: 10 },
    ]);
    expect(m.findings.find((f) => f.code === "wal-tracked-short")?.file).toBe(join(store, "000005.log"));
    expect(m.findings.find((f) => f.code === "wal-tracked-missing")?.file).toBe(join(store, "000006.log"));
    expect(m.complete).toBe(false);
    // ldb decodes the same edits
    expect(ldbManifest({ path: join(store, "MANIFEST-000001") }).cfs).toHaveLength(1);
  });

  it("an old WAL below every log number is inert", async () => {
    const store = walStore("inert", "000004.log", encodeLog(batches(3, 1)));
    const m = await inspectDatadir(store);
    const w = m.instances[0]!.wal[0]!;
    expect(w.live).toBe(false);
    expect(w.unflushedWrites).toBe(0);
    expect(w.summary).toBe(`inert: ${w.size} bytes, nothing unflushed`);
  });
});
