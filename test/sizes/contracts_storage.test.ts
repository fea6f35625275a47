/**
 * Storage per contract (`sizes`, src/sizes/contracts/): counted against other programs' view of the same
 * bytes — LevelDB itself (classic-level) iterating a geth-shaped chaindata it wrote, and `ldb scan`
 * (RocksDB 7.8.3, on a copy: it replays the WAL) of the Besu and Nethermind samples' storage column
 * families — and, for the joining of contracts cut at key-range edges, against a plain count over
 * random splits.
 */
import { afterAll, describe, expect, it } from "vitest";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { ClassicLevel } from "classic-level";
import { spawnSync } from "node:child_process";
import { parse } from "csv-parse/sync";
import { computeSizes } from "../../src/sizes/index.js";
import type { StorageView } from "../../src/sizes/contracts/view.js";
import { StorageAcc, StorageMerge, type ContractTally } from "../../src/sizes/contracts/acc.js";
import {
  BESU_STORAGE,
  GETH_STORAGE,
  NETHERMIND_STORAGE,
  type StorageLayout,
} from "../../src/sizes/contracts/layout.js";
import { copyInto, REPO, SAMPLES, trackedTempDirs } from "../helpers/index.js";
import { haveRocksTools, ldbScan } from "../samples/helpers.js";
import { Prng } from "../../src/samples/prng.js";

const { tempDir, cleanupTemps } = trackedTempDirs("lsmscope-contracts-");
afterAll(cleanupTemps);

/** The expected view from plain key/value pairs: group by contract id, sort, nearest-rank percentiles. */
function expected(rows: [Buffer, Buffer][], layout: StorageLayout) {
  const by = new Map<string, ContractTally>();
  const prefix = Buffer.from(layout.prefixHex, "hex");
  for (const [k, v] of rows) {
    if (k.length !== layout.keyLength || !k.subarray(0, prefix.length).equals(prefix)) continue;
    const id = Buffer.concat(layout.id.map(([o, l]) => k.subarray(o, o + l))).toString("hex");
    const t = by.get(id) ?? { id, slots: 0, bytes: 0 };
    t.slots++;
    t.bytes += k.length + v.length;
    by.set(id, t);
  }
  const all = [...by.values()];
  const top = (f: "slots" | "bytes") =>
    [...all].sort((a, b) => b[f] - a[f] || (a.id < b.id ? -1 : 1)).slice(0, 20);
  const slots = all.map((t) => t.slots).sort((a, b) => a - b);
  const rank = (p: number) => slots[Math.max(1, Math.ceil((p / 100) * slots.length)) - 1];
  return {
    contracts: all.length,
    slots: slots.reduce((a, b) => a + b, 0),
    bytes: all.reduce((a, t) => a + t.bytes, 0),
    p50: rank(50),
    p90: rank(90),
    p99: rank(99),
    max: slots[slots.length - 1],
    topBySlots: top("slots"),
    topByBytes: top("bytes"),
  };
}

function pick(v: StorageView) {
  return {
    contracts: v.contracts,
    slots: v.slots,
    bytes: v.bytes,
    p50: v.slotsPerContract.p50,
    p90: v.slotsPerContract.p90,
    p99: v.slotsPerContract.p99,
    max: v.slotsPerContract.max,
    topBySlots: v.topBySlots,
    topByBytes: v.topByBytes,
  };
}

describe("storage per contract: range edges", () => {
  // keys of one layout in key order, contracts of 1..300 slots, several sharing a Nethermind prefix
  function stream(layout: StorageLayout, rng: Prng): [Buffer, Buffer][] {
    const rows: [Buffer, Buffer][] = [];
    for (let c = 0; c < 60; c++) {
      const acc = rng.bytes(32);
      if (c % 7 === 1) rows[rows.length - 1]![0].copy(acc, 0, layout.group[0], layout.group[0] + 4);
      const n = c % 11 === 0 ? 300 : rng.int(1, 12);
      for (let s = 0; s < n; s++) {
        const slot = rng.bytes(32);
        const key =
          layout === NETHERMIND_STORAGE
            ? Buffer.concat([acc.subarray(0, 4), slot, acc.subarray(4, 20)])
            : Buffer.concat([Buffer.from(layout.prefixHex, "hex"), acc, slot]);
        rows.push([key, rng.bytes(rng.int(1, 33))]);
      }
    }
    rows.push([Buffer.from("not a slot"), Buffer.alloc(3)]);
    return rows.sort((a, b) => Buffer.compare(a[0], b[0]));
  }

  for (const layout of [BESU_STORAGE, GETH_STORAGE, NETHERMIND_STORAGE]) {
    it(`${layout.keyLength}-byte keys: any split into ranges counts as one pass`, () => {
      const rng = new Prng(`edges-${layout.keyLength}`);
      const rows = stream(layout, rng);
      const want = expected(rows, layout);
      for (let trial = 0; trial < 30; trial++) {
        const cuts = [...new Set(Array.from({ length: trial % 6 }, () => rng.int(0, rows.length)))].sort(
          (a, b) => a - b,
        );
        const bounds = [0, ...cuts, rows.length];
        const merge = new StorageMerge();
        for (let i = 0; i + 1 < bounds.length; i++) {
          const acc = new StorageAcc(layout);
          for (const [k, v] of rows.slice(bounds[i], bounds[i + 1]))
            if (acc.matches(k, k.length)) acc.add(k, k.length + v.length);
          merge.add(acc.data());
        }
        const got = merge.finish();
        expect(got.slots.count, `cuts ${cuts}`).toBe(want.contracts);
        expect(got.slots.sum).toBe(want.slots);
        expect(got.bytes.sum).toBe(want.bytes);
        expect(got.slots.percentile(50)).toBe(want.p50);
        expect(got.topBySlots).toEqual(want.topBySlots);
        expect(got.topByBytes).toEqual(want.topByBytes);
      }
    });
  }
});

describe("storage per contract: untrusted shapes", () => {
  it("20,000 contracts under one Nethermind 4-byte prefix: counted by map, not by scanning the group", () => {
    const rows: [Buffer, Buffer][] = [];
    const prefix = Buffer.from("deadbeef", "hex");
    for (let c = 0; c < 20_000; c++) {
      const rest = Buffer.alloc(16);
      rest.writeUInt32BE(c, 12);
      for (let s = 0; s < (c % 3) + 1; s++) {
        const slot = Buffer.alloc(32);
        slot.writeUInt32BE(s * 7919 + c, 0);
        rows.push([Buffer.concat([prefix, slot, rest]), Buffer.of(1)]);
      }
    }
    rows.sort((a, b) => Buffer.compare(a[0], b[0]));
    const acc = new StorageAcc(NETHERMIND_STORAGE);
    for (const [k, v] of rows) acc.add(k, k.length + v.length);
    const merge = new StorageMerge();
    merge.add(acc.data());
    const got = merge.finish();
    const want = expected(rows, NETHERMIND_STORAGE);
    expect(got.slots.count).toBe(20_000);
    expect(got.slots.sum).toBe(want.slots);
    expect(got.topBySlots).toEqual(want.topBySlots);
  });
});

describe("storage per contract on stores other programs wrote", () => {
  it("geth LevelDB chaindata written by classic-level: equal to LevelDB's own iteration, in one thread and split", async () => {
    const dir = join(tempDir(), "geth", "chaindata");
    mkdirSync(dir, { recursive: true });
    const db = new ClassicLevel<Buffer, Buffer>(dir, { keyEncoding: "buffer", valueEncoding: "buffer" });
    await db.open({ createIfMissing: true, writeBufferSize: 64 * 1024 });
    const rng = new Prng("classic-level");
    const contracts: Buffer[] = [];
    for (let c = 0; c < 400; c++) {
      const acc = rng.bytes(32);
      contracts.push(acc);
      // a few contracts hold thousands of slots, so they run across many 4 KiB blocks and files
      const n = c % 97 === 0 ? 3000 : rng.int(1, 40);
      const ops = [];
      for (let s = 0; s < n; s++)
        ops.push({
          type: "put" as const,
          key: Buffer.concat([Buffer.from("o"), acc, rng.bytes(32)]),
          value: rng.bytes(rng.int(1, 33)),
        });
      ops.push({ type: "put" as const, key: Buffer.concat([Buffer.from("a"), acc]), value: rng.bytes(70) });
      await db.batch(ops);
    }
    // newer versions and deletions above the older ones: whole contracts' storage cleared, slots rewritten
    for (const acc of contracts.slice(0, 30)) {
      const prefix = Buffer.concat([Buffer.from("o"), acc]);
      const keys = await db.keys({ gte: prefix, lt: Buffer.concat([prefix, Buffer.alloc(32, 0xff)]) }).all();
      await db.batch(
        keys.map((key, i) =>
          i % 3 === 0 || acc === contracts[0]
            ? { type: "del" as const, key }
            : { type: "put" as const, key, value: rng.bytes(40) },
        ),
      );
    }
    await db.compactRange(Buffer.from("o"), Buffer.from("o\x80"));
    for (const acc of contracts.slice(30, 40))
      await db.put(Buffer.concat([Buffer.from("o"), acc, rng.bytes(32)]), rng.bytes(5));
    const rows = (await db.iterator().all()) as [Buffer, Buffer][];
    await db.close();
    const want = expected(rows, GETH_STORAGE);
    expect(want.contracts).toBe(399); // one contract's storage was cleared

    const one = await computeSizes(dir, { mode: "full", workers: 1 });
    expect(one.incomplete).toEqual([]);
    expect(pick(one.eth!.storage as StorageView)).toEqual(want);
    // split into key ranges over two threads: contracts cut at range edges are joined
    const split = await computeSizes(dir, { mode: "full", workers: 2, splitMinBytes: 0, rangesPerThread: 4 });
    expect(pick(split.eth!.storage as StorageView)).toEqual(want);
  }, 120_000);

  it.skipIf(!haveRocksTools)(
    "besu-snapshot: equal to ldb's scan of ACCOUNT_STORAGE_STORAGE",
    async () => {
      const copy = copyInto(join(SAMPLES, "besu-snapshot"), tempDir());
      const rows = ldbScan(join(copy, "database"), "\x08");
      const r = await computeSizes(join(SAMPLES, "besu-snapshot"), { mode: "full", workers: 1 });
      const s = r.eth!.storage as StorageView;
      expect(s.location).toBe("database/cf08 ACCOUNT_STORAGE_STORAGE");
      expect(pick(s)).toEqual(expected(rows, BESU_STORAGE));
    },
    120_000,
  );

  it.skipIf(!haveRocksTools)(
    "nethermind flat Storage: equal to ldb's scan, contracts by 20 hash bytes",
    async () => {
      const copy = copyInto(join(SAMPLES, "nethermind"), tempDir());
      const rows = ldbScan(join(copy, "nethermind_db", "mainnet", "flat"), "Storage");
      const r = await computeSizes(join(SAMPLES, "nethermind"), { mode: "full", workers: 1 });
      const s = r.eth!.storage as StorageView;
      expect(s.idKind).toBe("account hash, first 20 bytes");
      expect(s.topBySlots[0]!.id).toHaveLength(40);
      expect(pick(s)).toEqual(expected(rows, NETHERMIND_STORAGE));
    },
    120_000,
  );

  it("the three clients' samples hold the same world: the same contracts by slots", async () => {
    const views = await Promise.all(
      ["besu-snapshot", "nethermind", "geth-leveldb"].map(
        async (n) =>
          (await computeSizes(join(SAMPLES, n), { mode: "full", workers: 1 })).eth!.storage as StorageView,
      ),
    );
    const ids = views.map((v) => v.topBySlots.map((t) => [t.id.slice(0, 40), t.slots]));
    expect(ids[1]).toEqual(ids[0]);
    expect(ids[2]).toEqual(ids[0]);
    expect(views.map((v) => v.slots)).toEqual([12434, 12434, 12434]);
  }, 120_000);

  it("sample mode estimates it from drawn contracts (contracts_sample.test.ts), with no top lists", async () => {
    const r = await computeSizes(join(SAMPLES, "besu-snapshot"), { mode: "sample", sampleBlocks: 8 });
    const s = r.eth!.storage!;
    expect("sampled" in s && s.location).toBe("database/cf08 ACCOUNT_STORAGE_STORAGE");
    expect(s).not.toHaveProperty("topBySlots");
    expect(r.eth!.notes.join(" ")).toMatch(/storage per contract: 200 seeks/);
  }, 120_000);
});

describe("sizes --contracts-csv and the text report", () => {
  const run = (args: string[]) =>
    spawnSync(process.execPath, [join(REPO, "bin", "lsmscope.js"), "sizes", ...args], { encoding: "utf8" });

  it("CSV rows are the JSON's top lists, raw integers, CRLF line ends", () => {
    const dir = join(SAMPLES, "geth-leveldb");
    const csv = run([dir, "--contracts-csv"]);
    expect(csv.status).toBe(0);
    expect(csv.stdout).toMatch(/^by,rank,id,slots,bytes\r\n/);
    const rows = parse(csv.stdout, { columns: true }) as Record<string, string>[];
    const s = (JSON.parse(run([dir, "--json"]).stdout) as { eth: { storage: StorageView } }).eth.storage;
    const want = (["slots", "bytes"] as const).flatMap((by) =>
      (by === "slots" ? s.topBySlots : s.topByBytes).map((t, i) => ({
        by,
        rank: String(i + 1),
        id: t.id,
        slots: String(t.slots),
        bytes: String(t.bytes),
      })),
    );
    expect(rows).toEqual(want);
  });

  it("text: shortened ids, 80 columns; a store without a storage layout refuses the CSV (exit 2)", () => {
    const text = run([join(SAMPLES, "besu-snapshot")]).stdout;
    const start = text.indexOf("storage per contract (");
    const section = text.slice(start, text.indexOf("\n\n", start));
    expect(section).toMatch(/12,434 live slots of \d+ contracts/);
    expect(section).toMatch(/^ {4}0x[0-9a-f]{16}… +\d+ +[\d.]+ KiB$/m);
    expect(section).not.toMatch(/[0-9a-f]{17}/);
    for (const line of section.split("\n")) expect(line.length).toBeLessThanOrEqual(80);
    const none = run([join(SAMPLES, "modern"), "--contracts-csv"]);
    expect(none.status).toBe(2);
    expect(none.stderr).toMatch(/--contracts-csv: no storage column family/);
  });
});
