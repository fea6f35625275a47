/**
 * The engine addon against real RocksDB 7.8.3 and its own tools (sst_dump as the oracle for what the
 * tables carry). Skipped, with the reason printed, only when the addon is not built.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  CompactionCanceledError,
  dropFileCache,
  engineAvailable,
  engineUnavailableReason,
  listColumnFamilies,
  loadLatestOptions,
  openDb,
  StoreLockedError,
} from "../../src/engine/index.js";
import { LsmscopeError } from "../../src/util/errors.js";

const available = engineAvailable();
if (!available) console.warn(`engine tests skipped: ${engineUnavailableReason()}`);

const BESU_CF = Buffer.from([0x06]); // Besu names its column families with single raw bytes
const ASCII_CF = "plain_cf";
const FILTERED =
  "compression=kLZ4Compression;block_based_table_factory={format_version=5;block_size=4096;filter_policy=bloomfilter:10:false}";
const UNFILTERED =
  "compression=kSnappyCompression;block_based_table_factory={format_version=5;block_size=4096}";
const N = 3000;
const key = (i: number) => Buffer.from(`key${String(i).padStart(6, "0")}`);
const absentKey = (i: number) => Buffer.from(`key${String(i).padStart(6, "0")}x`); // inside the key range
const value = (i: number) => Buffer.alloc(64, i & 0xff);

function sstFiles(dir: string): string[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith(".sst"))
    .map((f) => join(dir, f));
}

/** sst_dump --show_properties of one file as {name: value}. */
function sstProperties(file: string): Record<string, string> {
  const out = execFileSync("sst_dump", [`--file=${file}`, "--show_properties"], { encoding: "latin1" });
  const props: Record<string, string> = {};
  for (const line of out.split("\n")) {
    const m = /^ {2}([^:]+): (.*)$/.exec(line);
    if (m) props[m[1]!.trim()] = m[2]!.trim();
  }
  return props;
}

/** Names, sizes and mtimes of every file in a directory. */
function snapshot(dir: string): string {
  return readdirSync(dir)
    .sort()
    .map((f) => {
      const s = statSync(join(dir, f));
      return `${f}:${s.size}:${s.mtimeMs}`;
    })
    .join("\n");
}

describe.skipIf(!available)("engine addon (RocksDB 7.8.3)", () => {
  let root: string;
  let dir: string;

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), "lsmscope-engine-"));
    dir = join(root, "store");
    const db = openDb(dir, {
      createIfMissing: true,
      columnFamilies: [
        { name: BESU_CF, options: FILTERED },
        { name: ASCII_CF, options: UNFILTERED },
      ],
    });
    for (const cf of [BESU_CF, ASCII_CF]) {
      for (let i = 0; i < N; i += 500)
        db.write(
          Array.from({ length: 500 }, (_, j) => ({
            type: "put" as const,
            cf,
            key: key(i + j),
            value: value(i + j),
          })),
        );
      db.flush(cf);
    }
    db.close();
  });

  afterAll(() => {
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it("listColumnFamilies round-trips byte and ASCII names", () => {
    const names = listColumnFamilies(dir);
    expect(names.map((n) => n.toString("hex")).sort()).toEqual(
      [Buffer.from("default"), BESU_CF, Buffer.from(ASCII_CF)].map((b) => b.toString("hex")).sort(),
    );
  });

  it("loadLatestOptions returns the filter policy and compression that were set", () => {
    const opts = loadLatestOptions(dir);
    expect(opts.dbOptions).toMatch(/create_if_missing=/);
    const besu = opts.columnFamilies.find((c) => c.name.equals(BESU_CF))!;
    const plain = opts.columnFamilies.find((c) => c.name.equals(Buffer.from(ASCII_CF)))!;
    expect(besu.tableOptions).toMatch(/(^|;)filter_policy=bloomfilter:10:false(;|$)/);
    expect(besu.tableOptions).toMatch(/(^|;)block_size=4096(;|$)/);
    expect(besu.tableOptions).toMatch(/(^|;)format_version=5(;|$)/);
    expect(besu.options).toMatch(/(^|;)compression=kLZ4Compression(;|$)/);
    expect(plain.tableOptions).toMatch(/(^|;)filter_policy=nullptr(;|$)/);
    expect(plain.options).toMatch(/(^|;)compression=kSnappyCompression(;|$)/);
  });

  it("sst_dump shows the intended filter policy and compression per column family", () => {
    const byCf = new Map<string, Record<string, string>>();
    for (const f of sstFiles(dir)) {
      const p = sstProperties(f);
      byCf.set(Buffer.from(p["column family name"]!, "latin1").toString("hex"), p);
    }
    const besu = byCf.get(BESU_CF.toString("hex"))!;
    expect(besu["filter policy name"]).toBe("bloomfilter");
    expect(besu["SST file compression algo"]).toBe("LZ4");
    expect(Number(besu["# entries"])).toBe(N);
    const plain = byCf.get(Buffer.from(ASCII_CF).toString("hex"))!;
    expect(plain["SST file compression algo"]).toBe("Snappy");
    expect(plain["filter block size"]).toBe("0");
  });

  it("opens read-only with the OPTIONS file, gets values, and writes nothing", () => {
    const before = snapshot(dir);
    const db = openDb(dir, { readOnly: true, useLatestOptionsFile: true });
    expect(db.columnFamilyNames.map((n) => n.toString("hex")).sort()).toEqual(
      listColumnFamilies(dir)
        .map((n) => n.toString("hex"))
        .sort(),
    );
    expect(db.get(BESU_CF, key(1234))).toEqual(value(1234));
    expect(db.get(ASCII_CF, key(7))).toEqual(value(7));
    expect(db.get(BESU_CF, absentKey(5))).toBeUndefined();
    expect(() => db.put(BESU_CF, key(1), value(1))).toThrow(/Not supported/);
    expect(() => db.get("nope", key(1))).toThrow(/no such column family/);
    db.close();
    expect(snapshot(dir)).toBe(before);
  });

  it("getManyWithStats: the bloom filter rejects absent keys without block reads", () => {
    const db = openDb(dir, { readOnly: true, useLatestOptionsFile: true, statistics: true });
    const absent = Array.from({ length: 500 }, (_, i) => absentKey(i * 5));
    const r = db.getManyWithStats(BESU_CF, absent);
    expect(r.found.every((f) => !f)).toBe(true);
    expect(r.stats.perf.bloom_sst_miss_count).toBeGreaterThan(450); // 10 bits/key: ~1% false positives
    expect(r.stats.perf.bloom_sst_hit_count).toBeLessThan(50);
    expect(r.stats.perf.block_read_count).toBeLessThan(50);
    expect(r.stats.tickers["rocksdb.bloom.filter.useful"]).toBe(r.stats.perf.bloom_sst_miss_count);
    expect(r.stats.perLevel["0"]!.bloom_filter_useful).toBe(r.stats.perf.bloom_sst_miss_count);

    // Present keys: each get reads a data block (fill_cache=false), and the filter passes them all.
    const present = db.getManyWithStats(BESU_CF, [key(10), key(1500), key(2999)]);
    expect(present.found).toEqual([true, true, true]);
    expect(present.valueBytes).toBe(3 * 64);
    expect(present.stats.perf.bloom_sst_miss_count).toBe(0);
    expect(present.stats.perf.block_read_count).toBeGreaterThanOrEqual(3);
    expect(present.stats.perf.block_read_byte).toBeGreaterThan(0);
    expect(present.stats.iostats.bytes_read).toBeGreaterThan(0);

    // Without a filter every absent key inside the key range costs a data block read.
    const plain = db.getManyWithStats(ASCII_CF, absent);
    expect(plain.stats.perf.bloom_sst_miss_count).toBe(0);
    expect(plain.stats.perf.block_read_count).toBeGreaterThanOrEqual(absent.length);
    expect(plain.stats.tickers["rocksdb.bloom.filter.useful"]).toBe(0);
    db.close();
  });

  it("compactRange with bottommost=force moves everything to the bottom level", async () => {
    const d = join(root, "compact");
    const cfOpts = FILTERED + ";level_compaction_dynamic_level_bytes=true";
    const db = openDb(d, { createIfMissing: true, columnFamilies: [{ name: BESU_CF, options: cfOpts }] });
    const levels = () =>
      [0, 1, 2, 3, 4, 5, 6].map((l) => Number(db.getProperty(BESU_CF, `rocksdb.num-files-at-level${l}`)));
    for (let f = 0; f < 3; f++) {
      for (let i = f; i < N; i += 3) db.put(BESU_CF, key(i), value(i));
      db.flush(BESU_CF);
    }
    expect(levels()[0]).toBe(3);
    db.compactRange(BESU_CF, { bottommost: "force", exclusive: true });
    expect(levels()).toEqual([0, 0, 0, 0, 0, 0, 1]);
    expect(db.getProperty(BESU_CF, "rocksdb.estimate-num-keys")).toBe(String(N));
    expect(db.getProperty(BESU_CF, "rocksdb.no-such-property")).toBeUndefined();

    // The async variant on a libuv worker, and cancelling it: it either finished first or reports the cancel.
    for (let i = 0; i < N; i += 2) db.put(BESU_CF, key(i), value(i + 1));
    db.flush(BESU_CF);
    await db.compactRangeAsync(BESU_CF, { bottommost: "force", exclusive: true });
    expect(levels()).toEqual([0, 0, 0, 0, 0, 0, 1]);
    for (let i = 0; i < N; i += 2) db.put(BESU_CF, key(i), value(i));
    db.flush(BESU_CF);
    const p = db.compactRangeAsync(BESU_CF, { bottommost: "force", exclusive: true });
    db.cancelManualCompaction();
    const outcome = await p.then(
      () => "done",
      (e: unknown) => e,
    );
    if (outcome !== "done") {
      expect(outcome).toBeInstanceOf(CompactionCanceledError);
      expect((outcome as CompactionCanceledError).status).toMatch(/paused|cancel/i);
    }
    // After a cancel, the next manual compaction runs normally.
    db.compactRange(BESU_CF, { bottommost: "force", exclusive: true });
    expect(levels()).toEqual([0, 0, 0, 0, 0, 0, 1]);
    expect(db.get(BESU_CF, key(42))).toEqual(value(42));
    // close() while an async compaction runs: it cancels and waits, the promise settles.
    for (let i = 0; i < N; i += 2) db.put(BESU_CF, key(i), value(i + 2));
    db.flush(BESU_CF);
    const running = db.compactRangeAsync(BESU_CF, { bottommost: "force", exclusive: true }).then(
      () => "done",
      (e: unknown) => e,
    );
    db.close();
    const settled = await running;
    if (settled !== "done") expect(settled).toBeInstanceOf(CompactionCanceledError);
    db.close(); // idempotent
    expect(() => db.get(BESU_CF, key(1))).toThrow(/closed/);
  });

  it("changeLevel/targetLevel moves a non-dynamic CF's result to the bottom level", () => {
    const d = join(root, "change-level");
    const db = openDb(d, {
      createIfMissing: true,
      columnFamilies: [{ name: ASCII_CF, options: UNFILTERED }],
    });
    for (let i = 0; i < 500; i++) db.put(ASCII_CF, key(i), value(i));
    db.flush(ASCII_CF);
    db.compactRange(ASCII_CF, { bottommost: "force", exclusive: true, changeLevel: true, targetLevel: 6 });
    expect(db.getProperty(ASCII_CF, "rocksdb.num-files-at-level6")).toBe("1");
    db.close();
  });

  it("createColumnFamily, write batches with the WAL off and on, and a WAL left unflushed", () => {
    const d = join(root, "wal");
    let db = openDb(d, { createIfMissing: true, dbOptions: "avoid_flush_during_shutdown=true" });
    db.createColumnFamily(Buffer.from([0x0a]), FILTERED);
    db.write(
      [
        { type: "put", cf: Buffer.from([0x0a]), key: key(1), value: value(1) },
        { type: "put", cf: Buffer.from([0x0a]), key: key(2), value: value(2) },
      ],
      { disableWal: true },
    );
    db.flush();
    db.write([
      { type: "put", cf: Buffer.from([0x0a]), key: key(3), value: value(3) },
      { type: "delete", cf: Buffer.from([0x0a]), key: key(1) },
    ]);
    const seq = db.latestSequenceNumber();
    expect(seq).toBe(4);
    db.close();
    // The last batch lives only in the WAL: a read-only open replays it in memory.
    const logs = readdirSync(d).filter((f) => f.endsWith(".log"));
    expect(logs.some((f) => statSync(join(d, f)).size > 0)).toBe(true);
    db = openDb(d, { readOnly: true, useLatestOptionsFile: true });
    expect(db.get(Buffer.from([0x0a]), key(3))).toEqual(value(3));
    expect(db.get(Buffer.from([0x0a]), key(1))).toBeUndefined();
    expect(db.get(Buffer.from([0x0a]), key(2))).toEqual(value(2));
    db.close();
  });

  it("partition_filters without a two-level index is normalised instead of aborting", () => {
    const d = join(root, "partitioned");
    const db = openDb(d, {
      createIfMissing: true,
      columnFamilies: [
        {
          name: "p",
          options: "block_based_table_factory={partition_filters=true;filter_policy=bloomfilter:10:false}",
        },
      ],
    });
    expect(db.notes.join("\n")).toMatch(/partition_filters=false/);
    db.put("p", key(1), value(1));
    db.flush("p");
    db.close();
  });

  it("accepts the client option strings the samples use, and the tables carry them", () => {
    const d = join(root, "client-options");
    const cfs = [
      { name: Buffer.from([0x01]), options: FILTERED + ";enable_blob_files=true;min_blob_size=100" },
      {
        name: "ribbon",
        options:
          "compression=kLZ4Compression;block_based_table_factory={block_size=16000;filter_policy=ribbonfilter:10}",
      },
      {
        name: "twolevel",
        options:
          "compression=kSnappyCompression;optimize_filters_for_hits=true;block_based_table_factory={index_type=kTwoLevelIndexSearch;partition_filters=true;filter_policy=bloomfilter:10:false}",
      },
    ];
    const db = openDb(d, { createIfMissing: true, columnFamilies: cfs });
    expect(db.notes).toEqual([]);
    for (const { name } of cfs) {
      for (let i = 0; i < 1000; i++) db.put(name, key(i), Buffer.alloc(i % 2 ? 20 : 300, i & 0xff));
      db.flush(name);
    }
    db.close();
    expect(readdirSync(d).some((f) => f.endsWith(".blob"))).toBe(true);
    const props = new Map(
      sstFiles(d).map((f) => {
        const p = sstProperties(f);
        return [Buffer.from(p["column family name"]!, "latin1").toString("hex"), p];
      }),
    );
    expect(props.get("01")!["filter policy name"]).toBe("bloomfilter");
    expect(Number(props.get("01")!["raw value size"])).toBeLessThan(1000 * 300); // large values went to blobs
    expect(props.get(Buffer.from("ribbon").toString("hex"))!["filter policy name"]).toBe("ribbonfilter");
    const tl = props.get(Buffer.from("twolevel").toString("hex"))!;
    expect(tl["SST file compression algo"]).toBe("Snappy");
    expect(tl["# rocksdb.block.based.table.index.type"]).toBe("0x02000000"); // kTwoLevelIndexSearch
    expect(Number(tl["# index partitions"])).toBeGreaterThanOrEqual(1);
    const loaded = loadLatestOptions(d).columnFamilies.find((c) => c.name.toString() === "twolevel")!;
    expect(loaded.tableOptions).toMatch(/(^|;)partition_filters=true(;|$)/);
    expect(loaded.options).toMatch(/(^|;)optimize_filters_for_hits=true(;|$)/);

    // countOnly: counters without timers
    const ro = openDb(d, { readOnly: true, useLatestOptionsFile: true });
    const r = ro.getManyWithStats(Buffer.from([0x01]), [key(2), key(3), absentKey(4)], { countOnly: true });
    expect(r.found).toEqual([true, true, false]);
    expect(r.valueBytes).toBe(320);
    expect(r.stats.perf.blob_read_count).toBe(1);
    expect(r.stats.perf.get_from_output_files_time).toBe(0);
    ro.close();
  });

  it("a store held open read-write by another process gives the clear 'locked' error", async () => {
    const addonPath = join(import.meta.dirname, "..", "..", "build", "Release", "lsmscope_engine.node");
    const holder: ChildProcess = spawn(
      process.execPath,
      [
        "-e",
        `const e = require(${JSON.stringify(addonPath)});
         const db = new e.Db(process.argv[1], { columnFamilies: ${JSON.stringify([])}.concat(
           e.listColumnFamilies(process.argv[1]).map((name) => ({ name, options: "" }))) });
         process.stdout.write("ready\\n");
         setInterval(() => {}, 1000);`,
        dir,
      ],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    try {
      await new Promise<void>((resolve, reject) => {
        holder.stdout!.on("data", (d: Buffer) => d.toString().includes("ready") && resolve());
        holder.on("exit", (code) => reject(new Error(`holder exited with ${code}`)));
      });
      let err: unknown;
      try {
        openDb(dir, { useLatestOptionsFile: true }).close();
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(StoreLockedError);
      const line = (err as StoreLockedError).oneLine();
      expect(line).toContain("store is locked by another process");
      expect(line).toContain(dir);
      expect(line).not.toContain("\n");
      // Read-only opens take no LOCK: they still work while the store is held.
      const ro = openDb(dir, { readOnly: true, useLatestOptionsFile: true });
      expect(ro.get(BESU_CF, key(3))).toEqual(value(3));
      ro.close();
    } finally {
      // Wait for the exit: the next tests open the same store read-write.
      if (holder.exitCode === null && holder.signalCode === null) {
        const exited = new Promise((resolve) => holder.once("exit", resolve));
        holder.kill();
        await exited;
      }
    }
  });

  it("errors name the store, carry RocksDB's status, and never show raw name bytes", () => {
    let err: unknown;
    try {
      openDb(join(root, "does-not-exist"), { readOnly: true });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(LsmscopeError);
    expect((err as LsmscopeError).oneLine()).toMatch(/does-not-exist.*rocksdb: /);
    expect(() => openDb(join(root, "x"), { createIfMissing: true, dbOptions: "no_such_option=1" })).toThrow(
      /Invalid argument/,
    );
    // Opening read-write without naming every CF: RocksDB lists the missing ones (here 0x06), escaped.
    let missing: unknown;
    try {
      openDb(dir, {});
    } catch (e) {
      missing = e;
    }
    const line = (missing as LsmscopeError).oneLine();
    expect(line).toMatch(/Column famil(y|ies) not opened/);
    expect(line).toContain("\\x06");
    expect(line).not.toMatch(/[\x00-\x1f]/);
  });

  it("dropFileCache does not throw on a table and names a missing file", () => {
    for (const f of sstFiles(dir)) dropFileCache(f);
    expect(() => dropFileCache(join(root, "missing.sst"))).toThrow(/missing\.sst.*No such file/);
  });
});

describe("engine addon missing", () => {
  it("every engine function fails with one clear line naming the install command", () => {
    const saved = process.env.LSMSCOPE_ENGINE_DISABLE;
    process.env.LSMSCOPE_ENGINE_DISABLE = "1";
    try {
      expect(engineAvailable()).toBe(false);
      for (const f of [
        () => listColumnFamilies("/nonexistent"),
        () => loadLatestOptions("/nonexistent"),
        () => openDb("/nonexistent", { readOnly: true }),
        () => dropFileCache("/nonexistent"),
      ]) {
        let err: unknown;
        try {
          f();
        } catch (e) {
          err = e;
        }
        expect((err as Error).name).toBe("MissingDependencyError");
        const line = (err as LsmscopeError).oneLine();
        expect(line).not.toContain("\n");
        expect(line).toContain("sudo apt-get install -y librocksdb-dev && npm run build:addon");
      }
    } finally {
      if (saved === undefined) delete process.env.LSMSCOPE_ENGINE_DISABLE;
      else process.env.LSMSCOPE_ENGINE_DISABLE = saved;
    }
  });
});
