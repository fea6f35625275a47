/**
 * The merge over many sorted runs, as over an L0 pile-up (a bulk load with auto-compaction off leaves
 * thousands of L0 files, each its own run):
 *  - mergeRuns() (a tree of losers) over one run to hundreds gives every entry in internal-key order:
 *    the same sequence as sorting them all (keys shorter than 8 bytes, equal 8-byte prefixes, one user
 *    key in many runs, empty runs), and mergeNewest() calls the first version of each user key its
 *    newest and every later one shadowed (keys that differ only past their 8-byte prefix, or only in
 *    length where the prefix pads with zeros);
 *  - `sizes --full` over a db_bench store of a few hundred L0 tables (a merge of more than 128 runs keeps only
 *    each table's file and block list, and reads through lent-back descriptors) counts the live keys
 *    `ldb scan` iterates and the entries the tables' own properties declare, and gives the same report
 *    under a descriptor limit of 128, far below the table count; so does the probe's reader path, which
 *    keeps every table open (as RocksDB's table cache with max_open_files=-1) but not its descriptor;
 *  - the L0 tables a plan opens for their properties, kept for the scan, serve its runs (each taken,
 *    none opened again) with the entries and blocks, and no block loaded past the range's end, of runs
 *    that open their own, over a key range too;
 *  - a damaged index or data block in one of its tables (planning then keeps it or not) is one located
 *    line and exit 2, on one thread and on two;
 *  - the same store's newest versions told by key sets (hashNewest, the default from 1,024 runs) give
 *    the merge's report, and runs given oldest first are merged instead.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  Fate,
  MemRun,
  TableRun,
  mergeNewest,
  mergeReadAhead,
  mergeRuns,
  scanTableCache,
  type Run,
} from "../../src/lsm/merge.js";
import type { TableCache } from "../../src/lsm/table_cache.js";
import { DataBlockReader } from "../../src/format/data_block_reader.js";
import { emptyMemEntries, emptyMemLayer, memEntriesOf, type MemEntry } from "../../src/datadir/memtable.js";

/** An empty WAL layer: the tasks planned below are looked at for their key ranges, not their WAL slices. */
const noWal = emptyMemLayer();
import { mulberry32 } from "../../src/util/random.js";
import { ldbScanCount, sstDumpEntriesUnder } from "../sizes/helpers.js";
import { copyInto, dbBench, memoized, REPO, removeDir, tempDir } from "../helpers/index.js";
import { openTable } from "../../src/format/table.js";
import { ONE_TABLE_PER_MEMTABLE, TINY_L0_PILEUP } from "../datadir/helpers.js";
import { computeSizes } from "../../src/sizes/index.js";
import { hashNewest, UseMerge } from "../../src/lsm/newest_by_hash.js";
import { runScanTask, type PartialResult, type RoleSpec, type ScanTask } from "../../src/sizes/scan.js";
import { CfPlanCache, planCf, tasksFor, type CfPlan } from "../../src/sizes/plan.js";
import { inspectDatadir } from "../../src/datadir/inspect.js";

/** `runs` sorted runs of user keys drawn from a small key space (many shared across runs). */
function memRuns(runs: number, seed: number): { runs: MemEntry[][]; all: MemEntry[] } {
  const r = mulberry32(seed);
  const out: MemEntry[][] = [];
  const all: MemEntry[] = [];
  let seqno = 1;
  for (let i = 0; i < runs; i++) {
    const n = i % 7 === 3 ? 0 : Math.floor(r() * 60); // some runs empty
    const keys = new Map<string, Buffer>();
    for (let j = 0; j < n; j++) {
      const len = 1 + Math.floor(r() * 12); // shorter and longer than the 8-byte prefix
      // the first 8 bytes from a tiny alphabet: many keys share their prefix
      const k = Buffer.alloc(len);
      for (let b = 0; b < len; b++) k[b] = b < 8 ? 0x61 + Math.floor(r() * 2) : Math.floor(r() * 256);
      keys.set(k.toString("hex"), k);
    }
    const run = [...keys.values()]
      .sort(Buffer.compare)
      .map((key) => ({ key, seqno: seqno++, type: 1, value: Buffer.alloc(0) }));
    out.push(run);
    all.push(...run);
  }
  return { runs: out, all };
}

/** Internal-key order: user key ascending, sequence number descending. */
const internalOrder = (a: MemEntry, b: MemEntry) => Buffer.compare(a.key, b.key) || b.seqno - a.seqno;

function merged(runs: MemEntry[][]): string[] {
  const out: string[] = [];
  mergeRuns(
    runs.map((es) => new MemRun(memEntriesOf(es))),
    {
      entry: (r: Run) => {
        out.push(`${Buffer.from(r.key.subarray(0, r.ukLen)).toString("hex")}@${r.seqno}`);
      },
    },
  );
  return out;
}

describe("merge of many sorted runs", () => {
  it.each([1, 2, 5, 16, 17, 40, 300])("%i runs give every entry in internal-key order", (n) => {
    for (const seed of [1, 7, 99]) {
      const { runs, all } = memRuns(n, seed * 1000 + n);
      const want = [...all].sort(internalOrder).map((e) => `${e.key.toString("hex")}@${e.seqno}`);
      expect(merged(runs)).toEqual(want);
    }
  });

  it.each([1, 3, 40])("%i runs: the newest version of each user key, the rest shadowed", (n) => {
    for (const seed of [3, 11]) {
      const { runs, all } = memRuns(n, seed * 1000 + n);
      // keys that pad to the same 8-byte prefix: "" < 00 < 0000 < 00..00 (8) < 00..00 01 (9)
      const zeros = [0, 1, 2, 8].map((len) => Buffer.alloc(len));
      zeros.push(Buffer.from("000000000000000001", "hex"));
      const extra = zeros.map((key, i) => ({ key, seqno: 100000 + i, type: 1, value: Buffer.alloc(0) }));
      runs.push(
        extra,
        extra.map((e) => ({ ...e, seqno: e.seqno + 1000 })),
      );
      all.push(...runs.at(-2)!, ...runs.at(-1)!);
      const sorted = [...all].sort(internalOrder);
      const want = sorted.map((e, i) =>
        i > 0 && sorted[i - 1]!.key.equals(e.key) ? Fate.Shadowed : Fate.Newest,
      );
      const got: Fate[] = [];
      mergeNewest(
        runs.map((es) => new MemRun(memEntriesOf(es))),
        [],
        { visit: (_r: Run, fate: Fate) => void got.push(fate) },
      );
      expect(got).toEqual(want);
      // the case the zero-padded prefixes are there for: some keys must be shadowed, some not
      expect(want).toContain(Fate.Shadowed);
    }
  });

  it("no runs, and only empty runs, give nothing", () => {
    expect(merged([])).toEqual([]);
    expect(merged(Array.from({ length: 20 }, () => []))).toEqual([]);
  });
});

const BIN = join(REPO, "bin", "lsmscope.js");
let dir: string;
let db: string;

/**
 * The descriptor limit the CLI runs under: far below the table count, yet room for Node to load the
 * CLI's ES modules, which it reads concurrently (at 64 that load itself failed with EMFILE).
 */
const FD_LIMIT = 128;

describe("sizes --full over an L0 pile-up", () => {
  beforeAll(() => {
    dir = tempDir("lsmscope-l0-merge-");
    db = join(dir, "l0");
    // 24 KiB memtables of 36-byte entries, one L0 table each: ~600 tables whatever the load
    dbBench(db, [
      ...TINY_L0_PILEUP,
      ...ONE_TABLE_PER_MEMTABLE,
      "--num=600000",
      "--block_size=4096",
      "--bloom_bits=10",
      "--max_background_flushes=2",
    ]);
  }, 120_000);
  afterAll(() => removeDir(dir));

  /**
   * RocksDB's own counts of the store, taken once: the tests only read it (the damage test damages
   * copies), so a second run of an oracle gives the same answer (`ldb scan` of ~600 tables: ~1.5 s).
   * The entries are kept per table count asked for, so each call still proves sst_dump read that many.
   */
  let ldbLive: number | undefined;
  const liveKeys = () => (ldbLive ??= ldbScanCount(db));
  const declaredEntries = memoized((tables: number) => sstDumpEntriesUnder(db, tables));

  /** The CLI's JSON, under a descriptor limit when given. */
  const cli = (args: string[], limit?: number): unknown => {
    const quoted = args.map((a) => `'${a}'`).join(" ");
    const cmd = `${limit ? `ulimit -n ${limit} && ` : ""}exec '${process.execPath}' '${BIN}' ${quoted}`;
    const r = spawnSync("bash", ["-c", cmd], { encoding: "utf8", maxBuffer: 64 << 20 });
    expect(r.stderr).not.toMatch(/too many open files/i);
    expect(r.status).toBe(0);
    return JSON.parse(r.stdout);
  };
  const sizes = (limit?: number, args: string[] = []) => {
    const j = cli(["sizes", "--full", "--json", ...args, db], limit) as {
      columnFamilies: { name: string; liveKeys: number; entriesRead: number }[];
      elapsedMs?: number;
      entriesPerSecond?: number;
    };
    delete j.elapsedMs;
    delete j.entriesPerSecond;
    return j;
  };

  it("counts what ldb scan and the tables' properties say, under a limit of 128 descriptors too", () => {
    const tables = readdirSync(db).filter((f) => f.endsWith(".sst"));
    // a tree of losers beyond 16 runs; beyond 128 (as measured) the lean runs
    expect(tables.length).toBeGreaterThan(16);
    // the limit must sit below the table count, or it proves nothing
    expect(tables.length).toBeGreaterThan(FD_LIMIT);
    const declared = declaredEntries(tables.length);
    const full = sizes();
    const cf = full.columnFamilies.find((c) => c.name === "default")!;
    expect(cf.liveKeys).toBe(liveKeys());
    expect(cf.entriesRead).toBe(declared);
    expect(sizes(FD_LIMIT)).toEqual(full);
  }, 120_000);

  it("two threads, their key ranges cut from a sample of the tables' indexes, give one thread's report", async () => {
    // beyond 256 tables (~600 here) splitSamples reads every k-th table's index; the report must not
    // depend on where the cuts fall either way
    const one = sizes(undefined, ["--workers", "1"]) as Record<string, unknown>;
    // runs this small (~50 KB) are not cut by default (sizes/plan.ts KEY_RANGE_CUT_MIN_RUN_BYTES): the
    // one column family stays whole on one thread
    const uncut = sizes(undefined, ["--workers", "2"]) as Record<string, unknown>;
    expect(uncut["workers"]).toBe(1);
    const lib = (keyRangeCutMinRunBytes?: number) =>
      computeSizes(db, { workers: 2, keyRangeCutMinRunBytes }).then(
        (r) => JSON.parse(JSON.stringify(r)) as Record<string, unknown>,
      );
    const two = await lib(0);
    expect(two["workers"]).toBe(2);
    for (const j of [one, uncut, two]) {
      delete j["workers"];
      delete j["elapsedMs"];
      delete j["entriesPerSecond"];
    }
    expect(two).toEqual(one);
    expect(uncut).toEqual(one);
  }, 120_000);

  it("lean runs open each table from one tail read, with a MANIFEST size that is right, wrong or absent", () => {
    const tables = readdirSync(db)
      .filter((f) => f.endsWith(".sst"))
      .map((f) => join(db, f));
    const readAhead = mergeReadAhead(tables.length);
    // a lean run: beyond 128 runs each run's window shrinks below the full one
    expect(tables.length).toBeGreaterThan(128);
    const declared = declaredEntries(tables.length);
    /** Entries and blocks of the merge of every table as its own lean run, each told `size(path)`. */
    const mergeAll = (size: (path: string) => number | undefined) => {
      let entries = 0;
      let blocks = 0;
      const sink = { block: () => void blocks++ };
      const runs = tables.map(
        (path) =>
          new TableRun([{ path, size: size(path) }], undefined, undefined, sink, undefined, readAhead),
      );
      try {
        mergeRuns(runs, { entry: () => void entries++ });
      } finally {
        for (const r of runs) r.close();
      }
      return { entries, blocks };
    };
    const right = mergeAll((p) => statSync(p).size);
    expect(right.entries).toBe(declared);
    // a size the file does not have is confirmed wrong by the tail read, and the file is opened as
    // without one (a stat): the same entries and blocks
    expect(mergeAll((p) => statSync(p).size - 100)).toEqual(right);
    expect(mergeAll((p) => statSync(p).size + 100)).toEqual(right);
    expect(mergeAll(() => undefined)).toEqual(right);
  }, 120_000);

  it("the plan keeps the L0 tables it opened for the scan: its runs take them, and read what runs opening their own read", async () => {
    const model = await inspectDatadir(db);
    const inst = model.instances[0]!;
    const cf = inst.columnFamilies.find((c) => c.name === "default")!;
    const l0 = cf.levels[0]!.files.filter((f) => f.present).length;
    expect(l0).toBeGreaterThan(128);
    /**
     * Every run of the plan read over [lo, hi): entries, blocks told to the sink, blocks loaded and a
     * digest of the keys.
     */
    const readAll = (plan: CfPlan, tables: TableCache, lo?: Buffer, hi?: Buffer) => {
      const readAhead = mergeReadAhead(plan.runs.length);
      let blocks = 0;
      const sink = { block: () => void blocks++ };
      let entries = 0;
      let digest = 0;
      let loads = 0;
      const load = DataBlockReader.prototype.load;
      DataBlockReader.prototype.load = function (c, h) {
        loads++;
        return load.call(this, c, h);
      };
      try {
        for (const files of plan.runs) {
          const run = new TableRun(files, lo, hi, sink, tables, readAhead);
          try {
            while (run.advance()) {
              entries++;
              digest = (Math.imul(digest, 31) + run.pfxLo + run.seqno) | 0;
            }
          } finally {
            run.close();
          }
        }
      } finally {
        DataBlockReader.prototype.load = load;
      }
      return { entries, blocks, loads, digest };
    };
    const fresh = planCf(inst, cf, false);
    expect(fresh.keptOpen).toBe(0);
    // a key range in the middle, from the first table's keys: the runs of tables opened ahead (every
    // block listed) skip the blocks below it and stop after the block that reaches its end
    const first = new TableRun(fresh.runs[0]!, undefined, undefined, { block() {} });
    const keys: Buffer[] = [];
    while (first.advance()) keys.push(Buffer.from(first.key.subarray(0, first.ukLen)));
    first.close();
    const ranges: [Buffer | undefined, Buffer | undefined][] = [
      [undefined, undefined],
      [keys[Math.floor(keys.length / 3)], keys[Math.floor((2 * keys.length) / 3)]],
    ];
    for (const [lo, hi] of ranges) {
      const own = scanTableCache();
      const opening = readAll(fresh, own, lo, hi);
      own.close();
      const kept = scanTableCache();
      const plan = planCf(inst, cf, false, () => kept.ahead);
      expect(plan.keptOpen).toBe(l0);
      expect(kept.ahead.size).toBe(l0);
      expect({ ...plan, keptOpen: 0 }).toEqual(fresh);
      const taking = readAll(plan, kept, lo, hi);
      // every kept table was taken by its run (a run that opened its own would have left it)
      expect(kept.ahead.size).toBe(0);
      kept.close();
      // the same blocks loaded too: none past the range's end (the sink hears of a block only once its
      // first key is in range)
      expect(taking).toEqual(opening);
      expect(opening.entries).toBeGreaterThan(0);
    }
    const own = scanTableCache();
    expect(readAll(fresh, own).entries).toBe(declaredEntries(l0));
    own.close();
  }, 120_000);

  it("a table whose index or data block is damaged: one located line and exit 2, whether planning kept it or not", () => {
    const root = tempDir("lsmscope-l0-damaged-");
    try {
      const tables = readdirSync(db)
        .filter((f) => f.endsWith(".sst"))
        .sort();
      const victim = tables[Math.floor(tables.length / 2)]!;
      const t = openTable(join(db, victim));
      const index = t.indexHandle;
      const data = t.indexEntries()[1]!.handle;
      t.close();
      for (const [what, at, kind] of [
        // planning reads the properties, then fails to pack the index: the table is closed, not kept,
        // and the run that opens it again reports it
        ["index", index.offset + Math.floor(index.size / 2), "index block"],
        // kept, the damage found by the scan's read through the kept reader
        ["data", data.offset + Math.floor(data.size / 2), "data block"],
      ] as const) {
        const copy = copyInto(db, root, what);
        const file = join(copy, victim);
        const bytes = readFileSync(file);
        bytes[at]! ^= 0x40;
        writeFileSync(file, bytes);
        for (const workers of ["1", "2"]) {
          const r = spawnSync(process.execPath, [BIN, "sizes", "--full", "--workers", workers, copy], {
            encoding: "utf8",
          });
          expect(r.status, `${what}, ${workers} threads`).toBe(2);
          const lines = r.stderr.trim().split("\n");
          expect(lines.at(-1)).toMatch(
            new RegExp(`^lsmscope: .*${victim} @ offset \\d+: ${kind}: \\w+ checksum mismatch`),
          );
          expect(r.stderr).not.toMatch(/\n\s+at /);
        }
      }
    } finally {
      removeDir(root);
    }
  }, 120_000);

  it("cuts key ranges within the keys the tables hold, though each table's index ends far above them", async () => {
    const model = await inspectDatadir(db);
    const inst = model.instances[0]!;
    const plan = planCf(
      inst,
      inst.columnFamilies.find((c) => c.name === "default")!,
      false,
    );
    const files = plan.runs.flat();
    const largest = files.reduce((m, f) => (f.largestHex! > m ? f.largestHex! : m), "");
    // RocksDB 7.8.3 closes each table's index with the short successor of its last key; db_bench's
    // keys begin 00 00 00 00, so that separator is "01", above every key of the store. Spread over the
    // span up to it, each table's last block weighed in key space that holds nothing: the cuts put
    // ranges there, empty, and the one below them held their entries (on 10,206 such tables, 2 of 99
    // sub-ranges empty and the one below them 595,000 entries against ~200,000)
    let above = 0;
    for (const f of files.slice(0, 20)) {
      const t = openTable(f.path);
      let last = "";
      const userKeyBytes = (len: number) => (t.indexKeyIsUserKey ? len : len - 8);
      try {
        t.forEachIndexHandle(
          (_o, _s, _p, sep, len) => void (last = sep.toString("hex", 0, userKeyBytes(len))),
        );
      } finally {
        t.close();
      }
      if (last > f.largestHex!) above++;
    }
    expect(above).toBe(20);
    const base = { collectStats: true, roles: [], delegationHashes: [], blobFiles: {}, refusedBlobFiles: {} };
    // enough ranges that the last blocks' ~1.4% of the bytes outweighs one (3 of 256 cut above before)
    const tasks = tasksFor(plan, noWal, 256, base, () => 0, {
      minBytes: 1,
      hashMinRuns: Infinity,
      minRunBytes: 0,
    });
    expect(tasks.length).toBe(256);
    const cuts = tasks.slice(1).map((t) => t.loHex!);
    for (const c of cuts) expect(c <= largest, `cut ${c} above the largest key ${largest}`).toBe(true);
  });

  it("tells the newest versions by key sets as the merge does, and merges runs out of order", async () => {
    // hashNewest (the default from 1,024 runs) gives the merge's report
    // (on one thread and on two, whose ranges each take their sub-ranges' cuts)
    const lib = (minRuns: number, workers: number) =>
      computeSizes(db, { workers, splitMinBytes: 1, newestByHashMinRuns: minRuns }).then((r) => {
        const j = JSON.parse(JSON.stringify(r)) as Record<string, unknown>;
        delete j["elapsedMs"];
        delete j["entriesPerSecond"];
        delete j["workers"];
        return j;
      });
    // the tasks do ask for key sets (the reports alone would agree either way), not with a role
    const plannedByHash = async (roles: RoleSpec[], hashMinRuns: number) => {
      const model = await inspectDatadir(db);
      const inst = model.instances[0]!;
      const plan = new CfPlanCache(true).get(
        inst,
        inst.columnFamilies.find((c) => c.name === "default")!,
      );
      const base = { collectStats: true, roles, delegationHashes: [], blobFiles: {}, refusedBlobFiles: {} };
      return tasksFor(plan, noWal, 2, base, () => 0, { minBytes: 1, hashMinRuns, minRunBytes: 0 }).map(
        (t) => t.newestByHash,
      );
    };
    const [hashed, roled, fewRuns] = await Promise.all([
      plannedByHash([], 1),
      plannedByHash([{ role: "accounts" }], 1),
      plannedByHash([], 100_000),
    ]);
    expect(hashed.length).toBe(2);
    for (const h of hashed) expect(h?.cutsHex.length).toBeGreaterThan(0);
    expect([...roled, ...fewRuns]).toEqual([undefined, undefined, undefined, undefined]);
    const runs = [lib(1, 1), lib(1, 2), lib(Number.POSITIVE_INFINITY, 1)];
    return Promise.all(runs).then(([byHash, byHashTwo, merged]) => {
      expect(byHash).toEqual(merged);
      expect(byHashTwo).toEqual(merged);
      // and against the programs that wrote and read the store: ldb's live keys, the tables' entries
      const cf = (
        byHash!["columnFamilies"] as { name: string; liveKeys: number; entriesRead: number }[]
      ).find((c) => c.name === "default")!;
      expect(cf.liveKeys).toBe(liveKeys());
      const tables = readdirSync(db).filter((f) => f.endsWith(".sst"));
      expect(cf.entriesRead).toBe(declaredEntries(tables.length));
      // one task over every table, oldest first (db_bench numbers its flushes in order): the key sets
      // find a newer version after an older one and the task is merged instead, progress told once
      const files = tables.sort().map((f) => ({ path: join(db, f) }));
      const task = (cutsHex?: string[]): ScanTask => ({
        id: 0,
        runs: files.map((f) => [f]),
        mem: emptyMemEntries(),
        rangeDels: [],
        collectStats: true,
        roles: [],
        delegationHashes: [],
        blobFiles: {},
        refusedBlobFiles: {},
        ...(cutsHex ? { newestByHash: { cutsHex } } : {}),
      });
      const run = (t: ScanTask) => {
        let told = 0;
        const r = runScanTask(t, (bytes) => void (told += bytes)) as Partial<PartialResult>;
        delete r.elapsedMs;
        delete r.startedAt;
        return { r, told };
      };
      // (the report alone cannot tell: db_bench's values here all have one size, so the oldest version
      // of a key counts as its newest would)
      const oldestFirst = files.map(
        (f) => new TableRun([f], undefined, undefined, { block: () => {} }, undefined, 4096),
      );
      try {
        expect(() => hashNewest(oldestFirst, undefined, [], { record: () => {} }, [])).toThrow(UseMerge);
      } finally {
        for (const r of oldestFirst) r.close();
      }
      const fallback = run(task(["8000"]));
      expect(fallback).toEqual(run(task()));
      expect(fallback.r.live).toBe(liveKeys());
    });
  }, 120_000);

  it("probe's reader path, which opens every table, gives the same lookups under a limit of 128", () => {
    const probe = (limit?: number) => {
      const j = cli(
        ["probe", db, "--cf", "default", "--keys", "absent", "--count", "50", "--path", "reader", "--json"],
        limit,
      ) as {
        points: Record<string, unknown>[];
      };
      // what the lookups touched, without the run's own measurements: the bytes the block layer and
      // the device served depend on what the page cache held (a CI run under memory pressure read one
      // 4 KiB page of the store from the disk in one of the two runs)
      for (const p of j.points)
        for (const k of ["elapsedMs", "pid", "deviceReadBytes", "blockLayerBytes"]) delete p[k];
      return j;
    };
    const all = probe();
    expect(all.points[0]!["filesPerLookup"]).toBeGreaterThan(16);
    expect(probe(FD_LIMIT)).toEqual(all);
  }, 120_000);
});
