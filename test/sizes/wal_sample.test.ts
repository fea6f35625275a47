/**
 * Sample mode counts what only the WAL holds, as full mode does (full mode replays the WAL into a
 * memtable layer above the tables):
 *
 * - a db_bench store whose writes never left the WAL (WAL on, a write buffer larger than the data: no
 *   flush, no table) and one whose last writes are in the WAL above flushed tables: value sizes equal
 *   `ldb scan`'s (RocksDB's own view) in full mode, and in sample mode exactly when every block is drawn,
 *   within a few percent when a few are;
 * - a copy of the geth LevelDB sample to which LevelDB itself (classic-level) adds accounts and code,
 *   closed without compaction so they live only in its log: accounts, contracts and code counted by
 *   sample mode equal full mode's when every block is drawn, and the intervals contain them otherwise.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { join } from "node:path";
import { ClassicLevel } from "classic-level";
import { computeSizes } from "../../src/sizes/index.js";
import { inspectDatadir } from "../../src/datadir/inspect.js";
import { encodeAccountSlim } from "../../src/eth/account.js";
import { keccak256, EMPTY_CODE_HASH, EMPTY_TRIE_ROOT } from "../../src/eth/keccak.js";
import { copyInto, dbBench, SAMPLES, tableFilesUnder, trackedTempDirs } from "../helpers/index.js";
import { ldbValueLengths, rank } from "./helpers.js";
import type { SizesReport } from "../../src/sizes/types.js";

const { tempDir, cleanupTemps } = trackedTempDirs("lsmscope-walsample-");
let walOnly: string;
let walTail: string;
let geth: string;
const ADDED_EOAS = 300;
const ADDED_CONTRACTS = 200;

const uniformValues = [
  "--value_size_distribution_type=uniform",
  "--value_size_min=16",
  "--value_size_max=4000",
  "--compression_ratio=0.5",
];

beforeAll(async () => {
  const root = tempDir();
  walOnly = join(root, "wal-only");
  // 3,000 values of ≤ 4 KB fit a 64 MiB write buffer: RocksDB never flushes, and does not flush at
  // close with the WAL on, so every write stays in the WAL
  dbBench(walOnly, [
    "--benchmarks=fillrandom",
    "--num=3000",
    "--disable_wal=0",
    "--write_buffer_size=67108864",
    ...uniformValues,
  ]);
  walTail = join(root, "wal-tail");
  // flushed tables below, then writes of the same keys that stay in the WAL
  dbBench(walTail, [
    "--benchmarks=fillrandom,flush",
    "--num=6000",
    "--write_buffer_size=1048576",
    ...uniformValues,
  ]);
  dbBench(walTail, [
    "--use_existing_db=1",
    "--benchmarks=overwrite",
    "--num=6000",
    "--writes=2500",
    "--disable_wal=0",
    "--write_buffer_size=67108864",
    "--value_size_distribution_type=uniform",
    "--value_size_min=3000",
    "--value_size_max=9000",
  ]);

  geth = copyInto(join(SAMPLES, "geth-leveldb"), root, "geth");
  const chaindata = join(geth, "geth", "chaindata");
  const db = new ClassicLevel<Buffer, Buffer>(chaindata, { keyEncoding: "buffer", valueEncoding: "buffer" });
  await db.open();
  const batch = db.batch();
  for (let i = 0; i < ADDED_EOAS + ADDED_CONTRACTS; i++) {
    const addrHash = keccak256(Buffer.from(`wal-account-${i}`));
    let codeHash: Buffer = EMPTY_CODE_HASH;
    if (i >= ADDED_EOAS) {
      // contract code of 100..24,576 bytes that no table holds: only the log has it
      const code = Buffer.alloc(100 + ((i * 997) % 24_477), i & 0xff);
      code[0] = 0x60;
      codeHash = keccak256(code);
      batch.put(Buffer.concat([Buffer.from("c"), codeHash]), code);
    }
    const account = encodeAccountSlim({
      nonce: 1n,
      balance: BigInt(i + 1),
      storageRoot: EMPTY_TRIE_ROOT,
      codeHash,
    });
    batch.put(Buffer.concat([Buffer.from("a"), addrHash]), Buffer.from(account));
  }
  await batch.write();
  await db.close();
}, 240_000);
afterAll(cleanupTemps);

function valueFigures(r: SizesReport) {
  const v = r.columnFamilies.find((c) => c.name === "default")!.valueSize;
  return [v.count, v.min, v.p50, v.p90, v.p99, v.max];
}

describe("writes only in the WAL (db_bench)", () => {
  it("a store that never flushed: no table, every value from the WAL, in both modes", async () => {
    expect(tableFilesUnder(walOnly)).toHaveLength(0);
    const lens = ldbValueLengths(walOnly, tempDir());
    const full = await computeSizes(walOnly, { workers: 1 });
    const oracle = [lens.length, lens[0], rank(lens, 50), rank(lens, 90), rank(lens, 99), lens.at(-1)];
    expect(valueFigures(full)).toEqual(oracle);
    const sample = await computeSizes(walOnly, { mode: "sample", sampleBlocks: 10 });
    expect(valueFigures(sample)).toEqual(oracle);
    expect(sample.columnFamilies.find((c) => c.name === "default")!.liveKeys).toBe(lens.length);
  });

  it("last writes in the WAL above flushed tables: sample mode sees them as full mode does", async () => {
    const model = await inspectDatadir(walTail, {});
    const cf = model.instances[0]!.columnFamilies.find((c) => c.name === "default")!;
    expect(cf.totals.unflushedWrites).toBeGreaterThan(0);
    const lens = ldbValueLengths(walTail, tempDir());
    const oracle = [lens.length, lens[0], rank(lens, 50), rank(lens, 90), rank(lens, 99), lens.at(-1)];
    const full = await computeSizes(walTail, { workers: 1, model });
    expect(valueFigures(full)).toEqual(oracle);
    // every block drawn: the sample is the whole store, WAL included
    const all = await computeSizes(walTail, { mode: "sample", sampleBlocks: 1_000_000, model });
    expect(valueFigures(all)).toEqual(oracle);
    // 200 blocks: the WAL's values (3,000..9,000 bytes, about a third of the live keys) enter at the
    // blocks' rate and pull the percentiles up (without them p50 sits near 2,000). Over ten seeds the
    // bootstrap intervals hold the truth (an honest 95% interval misses 1 in 20) and the median error
    // is a few percent.
    const errors: Record<50 | 90, number[]> = { 50: [], 90: [] };
    let covered = 0;
    for (let seed = 1; seed <= 10; seed++) {
      const s = await computeSizes(walTail, { mode: "sample", sampleBlocks: 200, seed, model });
      const v = s.columnFamilies.find((c) => c.name === "default")!.valueSize;
      for (const p of [50, 90] as const) {
        const truth = rank(lens, p);
        errors[p].push(Math.abs(v[`p${p}`] - truth) / truth);
        const i = v.intervals![`p${p}`];
        if (i[0] <= truth && truth <= i[1]) covered++;
      }
    }
    expect(covered).toBeGreaterThanOrEqual(16);
    for (const p of [50, 90] as const) expect(rank(errors[p].sort(), 50), `p${p}`).toBeLessThan(0.05);
  });
});

describe("accounts and code only in LevelDB's log (geth, classic-level)", () => {
  // storage per contract is drawn after the accounts and code, from a generator of its own
  // (src/sizes/contracts/sample.ts), and nothing here reads it: one draw instead of the default 200
  // (~2 s of this file's time over its seven sample runs)
  const contractDraws = 1;
  it("sample mode counts them as full mode does", async () => {
    const model = await inspectDatadir(geth, {});
    const inst = model.instances.find((i) => i.engine === "leveldb")!;
    expect(inst.wal.some((w) => w.unflushedWrites >= 2 * ADDED_CONTRACTS + ADDED_EOAS)).toBe(true);
    const full = await computeSizes(geth, { workers: 1, model });
    const base = await computeSizes(join(SAMPLES, "geth-leveldb"), { workers: 1 });
    const fa = full.eth!.accounts!;
    const fc = full.eth!.code!;
    // full mode reads the log: the added accounts and code are there
    expect(fa.total).toBe(base.eth!.accounts!.total + ADDED_EOAS + ADDED_CONTRACTS);
    expect(fc.liveKeys).toBe(base.eth!.code!.liveKeys + ADDED_CONTRACTS);

    const all = await computeSizes(geth, { mode: "sample", sampleBlocks: 1_000_000, model, contractDraws });
    const a = all.eth!.accounts!;
    const c = all.eth!.code!;
    expect([a.total, a.eoa.count, a.delegatedEoa.count, a.contract.count, a.codeNotFound]).toEqual([
      fa.total,
      fa.eoa.count,
      fa.delegatedEoa.count,
      fa.contract.count,
      fa.codeNotFound,
    ]);
    expect([c.liveKeys, c.distinctContractBytecodes, c.delegations.count, c.atMax.count]).toEqual([
      fc.liveKeys,
      fc.distinctContractBytecodes,
      fc.delegations.count,
      fc.atMax.count,
    ]);
    expect(c.codeSize.count).toBe(fc.codeSize.count);
    expect(c.codeSize.p50).toBe(fc.codeSize.p50);

    for (const seed of [1, 2, 3, 4, 5, 6]) {
      const s = await computeSizes(geth, { mode: "sample", sampleBlocks: 40, seed, model, contractDraws });
      const sa = s.eth!.accounts!;
      const sc = s.eth!.code!;
      const within = (x: number, i: [number, number] | undefined, what: string) => {
        expect(i, what).toBeDefined();
        expect(x, `${what} seed ${seed}`).toBeGreaterThanOrEqual(i![0]);
        expect(x, `${what} seed ${seed}`).toBeLessThanOrEqual(i![1]);
      };
      within(fa.total, sa.totalInterval, "accounts");
      within(fa.contract.share, sa.contract.interval, "contract share");
      // the WAL's contracts are counted whole: the estimate cannot fall below them. (geth's code keys
      // sit in one key range of its one keyspace: 40 of the tables' blocks say little about the code
      // the tables hold, so the tables' part of the code interval is not judged here.)
      expect(sc.liveKeysInterval![0]).toBeGreaterThanOrEqual(ADDED_CONTRACTS);
      expect(sc.distinctContractBytecodesInterval![0]).toBeGreaterThanOrEqual(ADDED_CONTRACTS);
    }
  });
});
