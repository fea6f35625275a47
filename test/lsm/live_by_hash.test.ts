/**
 * A column family's live contents read by key sets (lsm/live_by_hash.ts, taken from 1,024 sorted runs:
 * an L0 pile-up) give what the merge gives, in `diff` (diff/by_hash.ts: counts, and the differing keys
 * in key order up to the limit) and in the compaction digest (compact/digest.ts: the same SHA-256 and
 * counts), on stores db_bench wrote: a pile-up of ~40 L0 tables (~25 MB: three sub-ranges or more) against
 * the same writes compacted by ldb (on a copy), against a copy changed by ldb (a range tombstone too),
 * against a store of other keys and longer values (every key differs: the list crosses sub-ranges), a
 * blob store against the same writes without blobs; and the bundled samples (column families on one side
 * only, a LevelDB store, other clients' keys). The merge, which `diff.test.ts` checks against
 * ldb's own scans and `compact.test.ts` across compactions, is the reference; both run here through
 * the library with the threshold moved (1 and Infinity), and each result says which way it was read,
 * so a silent fall-back to the merge fails the test.
 */
import { memCount, memEntriesOf, memKey } from "../../src/datadir/memtable.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { diffDatadirs, type DiffResult } from "../../src/diff/index.js";
import { digestColumnFamily, resolveStore } from "../../src/compact/digest.js";
import { LiveKeySets, LiveRecords } from "../../src/lsm/live_by_hash.js";
import { ValueType } from "../../src/base/internal_key.js";
import { LiveCursor, LiveRangeReads } from "../../src/lsm/live.js";
import { loadLiveWal } from "../../src/lsm/wal_layers.js";
import type { ColumnFamilyModel, InstanceModel } from "../../src/datadir/model.js";
import { Bucket, ValueArena } from "../../src/lsm/newest_by_hash.js";
import { MemRun } from "../../src/lsm/merge.js";
import { mulberry32 } from "../../src/util/random.js";
import { copyInto, dbBench, SAMPLES, trackedTempDirs } from "../helpers/index.js";

const { tempDir, cleanupTemps } = trackedTempDirs("lsmscope-live-hash-");
const ldb = (db: string, args: string[]) =>
  execFileSync("ldb", [`--db=${db}`, ...args], { encoding: "utf8", maxBuffer: 64 << 20 });

let pile: string; // ~40 L0 tables, ~20 MB, writes left in the WAL
let compacted: string; // a copy of pile compacted by ldb: one bottom-level table
let changed: string; // a copy of pile with keys put (one value's last byte), deleted, range-deleted, added
let other: string; // the same shape, other keys (another seed) and values one byte longer
let blobs: string;
let plain: string;

const pileUp = (db: string, seed: number, valueSize = 100) =>
  dbBench(db, [
    "--benchmarks=fillrandom",
    "--num=200000",
    `--value_size=${valueSize}`,
    "--compression_type=none",
    "--write_buffer_size=524288",
    "--disable_auto_compactions=1",
    "--level0_slowdown_writes_trigger=1000",
    "--level0_stop_writes_trigger=1000",
    `--seed=${seed}`,
  ]);

beforeAll(() => {
  const root = tempDir();
  pile = join(root, "pile");
  pileUp(pile, 42);
  compacted = copyInto(pile, root, "compacted");
  ldb(compacted, ["compact"]);
  changed = copyInto(pile, root, "changed");
  const keys = ldb(changed, ["scan", "--hex", "--no_value"])
    .trim()
    .split("\n")
    .map((l) => l.split(" ")[0]!);
  // keys near the start, the middle and the end of the key range: differences in several sub-ranges
  for (const i of [3, Math.floor(keys.length / 2), keys.length - 5]) {
    ldb(changed, ["put", "--hex", keys[i]!, "0x0102"]);
    ldb(changed, ["delete", "--hex", keys[i + 1]!]);
  }
  ldb(changed, ["put", "--hex", "0xffffffffffffffffff00", "0x03"]);
  // a value of the same length, its last byte changed
  const k = keys[Math.floor((keys.length * 3) / 4)]!;
  const v = ldb(changed, ["get", "--hex", k]).trim();
  ldb(changed, ["put", "--hex", k, `${v.slice(0, -2)}${v.endsWith("00") ? "01" : "00"}`]);
  // and a range tombstone over ten keys of the second quarter
  const q = Math.floor(keys.length / 4);
  ldb(changed, ["deleterange", "--hex", keys[q]!, keys[q + 10]!]);
  other = join(root, "other");
  pileUp(other, 7, 101);
  blobs = join(root, "blobs");
  plain = join(root, "plain");
  const same = ["--benchmarks=fillseq", "--num=2000", "--value_size=400", "--write_buffer_size=131072"];
  dbBench(blobs, [...same, "--enable_blob_files=true", "--min_blob_size=100"]);
  dbBench(plain, same);
}, 300_000);
afterAll(cleanupTemps);

/** The two ways' results, elapsed time aside; each checked to have been compared the way asked. */
async function bothWays(a: string, b: string, limit?: number): Promise<[DiffResult, DiffResult]> {
  const strip = (r: DiffResult): DiffResult => ({ ...r, elapsedMs: 0 });
  const bySets = strip(await diffDatadirs(a, b, { limit, byHashMinRuns: 1 }));
  const merged = strip(await diffDatadirs(a, b, { limit, byHashMinRuns: Infinity }));
  expect(bySets.columnFamilies.map((c) => c.comparedBy)).toEqual(bySets.columnFamilies.map(() => "keySets"));
  expect(merged.columnFamilies.map((c) => c.comparedBy)).toEqual(merged.columnFamilies.map(() => "merge"));
  const way = (r: DiffResult) => ({
    ...r,
    columnFamilies: r.columnFamilies.map((c) => ({ ...c, comparedBy: "merge" as const })),
  });
  return [way(bySets), way(merged)];
}

/**
 * The two results agree: everything but the lists with toEqual, the lists to their first difference
 * (toEqual's report of 150,000 keys would take minutes to write).
 */
function expectSame(sets: DiffResult, merged: DiffResult): void {
  const lists = (r: DiffResult) => r.columnFamilies.map((c) => c.differences);
  const bare = (r: DiffResult) => ({
    ...r,
    columnFamilies: r.columnFamilies.map((c) => ({ ...c, differences: [] })),
  });
  expect(bare(sets)).toEqual(bare(merged));
  lists(sets).forEach((l, i) => {
    const m = lists(merged)[i]!;
    const at = l.findIndex((d, j) => d.kind !== m[j]?.kind || d.key !== m[j]?.key);
    expect({ length: l.length, firstDifference: at, there: l[at] }).toEqual({
      length: m.length,
      firstDifference: -1,
      there: undefined,
    });
  });
}

describe("diff by key sets", () => {
  it("the stores are what the cases need: a pile-up of many L0 tables, over three sub-ranges' bytes", () => {
    const tables = readdirSync(pile).filter((n) => n.endsWith(".sst")).length;
    expect(tables).toBeGreaterThanOrEqual(20);
    expect(readdirSync(compacted).filter((n) => n.endsWith(".sst")).length).toBe(1);
    // more than two sub-ranges' bytes (diff/by_hash.ts: 8 MiB of the larger side each)
    const bytes = readdirSync(pile)
      .filter((n) => n.endsWith(".sst"))
      .reduce((s, n) => s + statSync(join(pile, n)).size, 0);
    expect(bytes).toBeGreaterThan(2 * 8 * 1024 * 1024);
  });

  it("a pile-up against its compacted copy: identical, as merged", async () => {
    const [sets, merged] = await bothWays(pile, compacted);
    expectSame(sets, merged);
    expect(sets.identical).toBe(true);
    expect(sets.totals.same).toBeGreaterThan(100_000);
  });

  it("against a copy changed by ldb: the same counts and keys listed, in key order", async () => {
    const [sets, merged] = await bothWays(pile, changed, 20);
    expectSame(sets, merged);
    expect(sets.totals).toMatchObject({ changed: 4, onlyInA: 13, onlyInB: 1 });
    expect(sets.columnFamilies[0]!.differences).toHaveLength(18);
  });

  it("against other keys and values: every key differs, the list to its limit crosses sub-ranges", async () => {
    const [sets, merged] = await bothWays(pile, other, 150_000);
    expectSame(sets, merged);
    const d = sets.columnFamilies[0]!;
    expect(d.same).toBe(0);
    expect(d.changed + d.onlyInA + d.onlyInB).toBeGreaterThan(150_000);
    expect(d.differences).toHaveLength(150_000);
  });

  it("the samples: column families on one side only, a LevelDB store, changed and missing keys", async () => {
    const pairs = [
      ["besu-snapshot", "modern"],
      ["besu-snapshot", "besu-generated"],
      ["geth-leveldb", "geth-leveldb"],
    ].map(([x, y]) => [join(SAMPLES, x!), join(SAMPLES, y!)] as const);
    for (const [x, y] of pairs) {
      // a column family with no table has no run: merged (both ways the same then)
      const sets = await diffDatadirs(x, y, { byHashMinRuns: 1 });
      const merged = await diffDatadirs(x, y, { byHashMinRuns: Infinity });
      expect(sets.columnFamilies.filter((c) => c.comparedBy === "keySets").length).toBeGreaterThan(0);
      const bare = (r: DiffResult) => ({
        ...r,
        elapsedMs: 0,
        columnFamilies: r.columnFamilies.map((c) => ({ ...c, comparedBy: "merge" as const })),
      });
      expect(bare(sets), `${x} ${y}`).toEqual(bare(merged));
    }
  });

  it("values in blob files are resolved: a blob store equals the same writes without blobs", async () => {
    const [sets, merged] = await bothWays(blobs, plain);
    expectSame(sets, merged);
    expect(sets.identical).toBe(true);
  });
});

describe("the compaction digest by key sets", () => {
  it("is the merge's digest, with its counts, on every store above and the RocksDB samples", async () => {
    const samples = ["besu-snapshot", "modern", "nethermind/nethermind_db/mainnet/state"].map((n) =>
      join(SAMPLES, n),
    );
    for (const store of [pile, compacted, changed, other, blobs, ...samples]) {
      const inst = await resolveStore(store);
      for (const cf of inst.columnFamilies) {
        const sets = digestColumnFamily(inst, cf, 1);
        const merged = digestColumnFamily(inst, cf, Infinity);
        // a column family without tables has no run to read by key sets
        const runs = cf.levels.some((l) => l.files.length > 0);
        expect([sets.readBy, merged.readBy]).toEqual([runs ? "keySets" : "merge", "merge"]);
        expect({ ...sets, readBy: "" }, store).toEqual({ ...merged, readBy: "" });
      }
    }
  });

  it("counts what the stores hold: live keys, WAL entries, values from blob files", async () => {
    const digests = await Promise.all(
      [pile, blobs].map(async (s) => {
        const inst = await resolveStore(s);
        return digestColumnFamily(
          inst,
          inst.columnFamilies.find((c) => c.name === "default")!,
          1,
        );
      }),
    );
    const [fromPile, fromBlobs] = digests;
    // db_bench leaves its last writes in the WAL: the WAL layer is read first, as the newest run
    expect(fromPile!.keys).toBeGreaterThan(100_000);
    expect(fromPile!.walEntries).toBeGreaterThan(0);
    // fillseq writes each key once: the values not in the WAL are in blob files
    expect(fromBlobs!.keys).toBe(2000);
    expect(fromBlobs!.blobValues).toBeGreaterThan(1000);
    expect(fromBlobs!.blobValues + fromBlobs!.walEntries).toBe(fromBlobs!.keys);
  });

  it("reads each live blob value once: newest() to tell it live, value() after it from what that read", async () => {
    const inst = await resolveStore(blobs);
    const sets = new LiveKeySets(
      inst,
      inst.columnFamilies.find((c) => c.name === "default")!,
      undefined,
      false,
    );
    try {
      sets.fill(undefined);
      let fromBlobFiles = 0;
      for (const b of sets.entries.buckets) {
        sets.newest(b);
        for (let e = 0; e < b.count; e++)
          if (sets.live[e] === 1 && b.type(e) === ValueType.BlobIndex) {
            expect(sets.value(b, e)!.length).toBeGreaterThanOrEqual(100); // --min_blob_size=100
            fromBlobFiles++;
          }
      }
      expect(fromBlobFiles).toBeGreaterThan(1000);
      // twice as many when value() read each blob record again
      expect(sets.values.blobValues).toBe(fromBlobFiles);
    } finally {
      sets.close();
    }
  });
});

describe("LiveRecords", () => {
  it("gives a sub-range's records in key order: keys alike in their first 8 bytes, shorter keys, many buckets", () => {
    const r = mulberry32(7);
    const keys = new Map<string, Buffer>();
    // few distinct first bytes, so that many keys share their first 8 (and their scaled prefix)
    while (keys.size < 3000) {
      const len = Math.floor(r() * 14);
      const k = Buffer.alloc(len);
      for (let i = 0; i < len; i++) k[i] = i < 8 ? 0x40 + Math.floor(r() * 2) : Math.floor(r() * 256);
      keys.set(k.toString("hex"), k);
    }
    const values = new ValueArena();
    const buckets = Array.from({ length: 5 }, () => new Bucket(values));
    const run = new MemRun(
      memEntriesOf([...keys.values()].map((key) => ({ key, seqno: 1, type: 1, value: Buffer.alloc(0) }))),
    );
    const live = new LiveRecords();
    for (let i = 0; run.advance(); i++) {
      const b = buckets[i % 5]!;
      b.add(run, i, false);
      live.add(b, i % 5, b.count - 1);
    }
    const told: string[] = [];
    live.inKeyOrder(buckets, (b, e) =>
      told.push(Buffer.from(b.keys.subarray(b.keyAt(e), b.keyAt(e) + b.keyLength(e))).toString("hex")),
    );
    const sorted = [...keys.values()].sort(Buffer.compare).map((k) => k.toString("hex"));
    expect(told.length).toBe(sorted.length);
    expect(told.findIndex((k, i) => k !== sorted[i])).toBe(-1);
  });
});

/** The first `n` live entries of a cursor, "key=value" in hex; the last one read stays its position. */
function firstOf(c: LiveCursor, n: number): string[] {
  const out: string[] = [];
  for (let e = c.next(); e && out.length < n; e = out.length < n ? c.next() : undefined)
    out.push(`${Buffer.from(e.key).toString("hex")}=${Buffer.from(e.value).toString("hex")}`);
  return out;
}

/**
 * One cursor seeking through `targets` (ascending; those before the last entry read are passed over),
 * its first entries after each seek compared with a new cursor's over [target, end); the seeks made.
 */
function seeksAt(inst: InstanceModel, cf: ColumnFamilyModel, targets: readonly Buffer[]): number {
  const end = Buffer.alloc(16, 0xff);
  const shared = new LiveRangeReads(inst, cf);
  const c = new LiveCursor(inst, cf, undefined, { lo: Buffer.alloc(0), hi: end }, shared);
  let last = Buffer.alloc(0);
  let seeks = 0;
  try {
    for (const target of [...targets].sort(Buffer.compare)) {
      if (Buffer.compare(target, last) < 0) continue;
      c.seek(target);
      const fresh = new LiveCursor(inst, cf, undefined, { lo: target, hi: end });
      const want = firstOf(fresh, 3);
      fresh.close();
      const got = firstOf(c, 3);
      expect(got).toEqual(want);
      if (got.length > 0) last = Buffer.from(got.at(-1)!.split("=")[0]!, "hex");
      seeks++;
    }
  } finally {
    c.close();
    shared.close();
  }
  return seeks;
}

describe("LiveCursor.seek", () => {
  /**
   * Over the pile-up changed by ldb (puts, deletes, a range tombstone), and over the pile-up itself at
   * keys its WAL holds: one cursor seeking forward through ascending targets gives, after each seek,
   * the same live entries as a new cursor over [target, end). The targets keep seek's contract: each
   * at or past the last entry read since the seek before (the contract sampler's: a contract's slots
   * counted, then the next point). Made to fail by a run that does not give its current entry again
   * when it lies at the target, and by the WAL layer's seek one entry off.
   */
  it("gives after each seek what a cursor over the rest of the range gives, through tombstones and the WAL", async () => {
    const inst = await resolveStore(changed);
    const cf = inst.columnFamilies.find((c) => c.name === "default")!;
    const end = Buffer.alloc(16, 0xff);
    const all: Buffer[] = [];
    const scan = new LiveCursor(inst, cf);
    for (let e = scan.next(); e; e = scan.next()) all.push(Buffer.from(e.key));
    scan.close();
    expect(all.length).toBeGreaterThan(100_000);
    const random = mulberry32(5);
    const shared = new LiveRangeReads(inst, cf);
    const seeking = new LiveCursor(inst, cf, undefined, { lo: Buffer.alloc(0), hi: end }, shared);
    try {
      let at = 0;
      let seeks = 0;
      while (at < all.length) {
        // a key of the store, or one just past it (between keys: a deleted or range-deleted one's
        // neighbour, a key in no table), at or past the last entry read
        const key = all[at]!;
        const target = random() < 0.5 ? key : Buffer.concat([key, Buffer.of(0)]);
        seeking.seek(target);
        const fresh = new LiveCursor(inst, cf, undefined, { lo: target, hi: end });
        const n = 1 + Math.floor(random() * 40);
        const want = firstOf(fresh, n);
        fresh.close();
        const got = firstOf(seeking, n);
        expect(got).toEqual(want);
        seeks++;
        // the next target: at the last entry read (read again), or up to ~3,000 keys past it
        const last = Buffer.from(got.at(-1)?.split("=")[0] ?? "", "hex");
        at = all.findIndex((k, i) => i >= at && k.equals(last));
        at += Math.floor(random() * 3000);
      }
      expect(seeks).toBeGreaterThan(30);
      // and at the keys ldb deleted (one by one and by the range tombstone), and in the pile-up at
      // keys its WAL holds (the layer above the tables)
      const pileInst = await resolveStore(pile);
      const pileCf = pileInst.columnFamilies.find((c) => c.name === "default")!;
      const before = new LiveCursor(pileInst, pileCf);
      const live = new Set(all.map((k) => k.toString("hex")));
      const gone: Buffer[] = [];
      for (let e = before.next(); e; e = before.next())
        if (!live.has(Buffer.from(e.key).toString("hex"))) gone.push(Buffer.from(e.key));
      before.close();
      expect(gone.length).toBeGreaterThanOrEqual(13);
      expect(seeksAt(inst, cf, gone)).toBeGreaterThanOrEqual(4);
      const layer = loadLiveWal(pileInst, pileCf).entries;
      const wal = Array.from({ length: memCount(layer) }, (_, i) =>
        Buffer.from(memKey(layer, layer.from + i)),
      );
      // db_bench leaves its last writes there, how many varies (70 to over 100 seen): ~20 of them
      expect(wal.length).toBeGreaterThan(0);
      const step = Math.max(1, Math.floor(wal.length / 20));
      expect(
        seeksAt(
          pileInst,
          pileCf,
          wal.filter((_, i) => i % step === 0),
        ),
      ).toBeGreaterThanOrEqual(2);
    } finally {
      seeking.close();
      shared.close();
    }
  });
});
