/**
 * Building blocks: blob index decoding checked against the real blob files of besu-snapshot, size
 * distributions against a plain sort, interval formulas against known values, the account walker
 * against eth/account.ts.
 */
import { describe, expect, it } from "vitest";
import { closeSync, openSync, readSync } from "node:fs";
import { join } from "node:path";
import { inspectDatadir } from "../../src/datadir/inspect.js";
import { openTable } from "../../src/format/table.js";
import { ValueType } from "../../src/base/internal_key.js";
import { decodeBlobIndex } from "../../src/format/blob.js";
import { SizeDist, nonEmptySpan } from "../../src/sizes/dist.js";
import { Hll, accountCodeHashOffset, hash53 } from "../../src/sizes/eth_acc.js";
import { keccak256 } from "../../src/eth/keccak.js";
import { clusterShare, prng, sampleIndices, zFor } from "../../src/sizes/intervals.js";
import { planWithin, type CfPlan } from "../../src/sizes/plan.js";
import { tQuantile, wilson } from "../../src/util/interval.js";
import {
  EMPTY_CODE_HASH,
  EMPTY_TRIE_ROOT,
  encodeAccountFull,
  encodeAccountSlim,
} from "../../src/eth/index.js";
import { SAMPLES } from "./helpers.js";

describe("blob index", () => {
  it("file, offset and size point at the blob record RocksDB wrote (besu-snapshot cf01, cf0a)", async () => {
    const model = await inspectDatadir(join(SAMPLES, "besu-snapshot"));
    const inst = model.instances[0]!;
    let checked = 0;
    for (const cf of inst.columnFamilies.filter((c) => c.nameHex === "01" || c.nameHex === "0a")) {
      for (const lvl of cf.levels)
        for (const f of lvl.files) {
          const t = openTable(f.path);
          try {
            t.scan((e) => {
              if (e.type !== ValueType.BlobIndex) return;
              const bi = decodeBlobIndex(e.data, e.valueOffset, e.valueOffset + e.valueLength);
              expect(bi.kind).toBe("blob");
              expect(bi.compressionName).toBe("LZ4");
              const blob = inst.columnFamilies
                .flatMap((c) => c.blobFiles)
                .find((b) => b.fileNumber === bi.fileNumber)!;
              expect(blob, `blob file ${bi.fileNumber}`).toBeDefined();
              // record: key_len u64 | value_len u64 | expiration u64 | header crc u32 | blob crc u32 | key | value
              const fd = openSync(blob.path, "r");
              try {
                const hdr = Buffer.alloc(32);
                readSync(fd, hdr, 0, 32, bi.offset! - e.userKeyLength - 32);
                expect(Number(hdr.readBigUInt64LE(0))).toBe(e.userKeyLength);
                expect(Number(hdr.readBigUInt64LE(8))).toBe(bi.size);
                const k = Buffer.alloc(e.userKeyLength);
                readSync(fd, k, 0, k.length, bi.offset! - e.userKeyLength);
                expect(k.equals(e.userKeyCopy())).toBe(true);
              } finally {
                closeSync(fd);
              }
              checked++;
            });
          } finally {
            t.close();
          }
        }
    }
    expect(checked).toBeGreaterThan(50);
  });

  it("rejects truncated and unknown input", () => {
    expect(() => decodeBlobIndex(Buffer.from([1, 5, 0x80]))).toThrow(RangeError);
    expect(() => decodeBlobIndex(Buffer.from([9]))).toThrow(/unknown blob index type/);
    expect(decodeBlobIndex(Buffer.from([0, 7, 1, 2, 3])).size).toBe(3);
    const ttl = decodeBlobIndex(Buffer.from([2, 100, 12, 200, 1, 50, 4]));
    expect(ttl).toMatchObject({ kind: "blob-ttl", expiration: 100, fileNumber: 12, offset: 200, size: 50 });
  });
});

describe("nonEmptySpan", () => {
  const h = (...counts: number[]) => counts.map((count, i) => ({ le: i === 0 ? 0 : 2 ** (i - 1), count }));
  it("trims empty buckets at both ends and keeps interior gaps", () => {
    expect(nonEmptySpan([])).toEqual([]);
    expect(nonEmptySpan(h(0, 0, 0))).toEqual([]);
    expect(nonEmptySpan(h(0, 0, 7, 0))).toEqual([{ le: 2, count: 7 }]);
    expect(nonEmptySpan(h(3))).toEqual([{ le: 0, count: 3 }]);
    expect(nonEmptySpan(h(0, 1, 0, 0, 2, 0, 0))).toEqual([
      { le: 1, count: 1 },
      { le: 2, count: 0 },
      { le: 4, count: 0 },
      { le: 8, count: 2 },
    ]);
    expect(nonEmptySpan(h(5, 0, 6))).toEqual(h(5, 0, 6));
  });
});

describe("SizeDist", () => {
  it("percentiles equal nearest rank over a sort; histogram adds up; merge = union", () => {
    const rand = prng(3);
    const xs = Array.from({ length: 5000 }, () => Math.floor(rand() ** 3 * 60000));
    const a = new SizeDist();
    const b = new SizeDist();
    xs.forEach((x, i) => (i % 2 ? a : b).add(x));
    a.merge(b.data());
    const sorted = [...xs].sort((p, q) => p - q);
    for (const p of [50, 90, 99])
      expect(a.percentile(p)).toBe(sorted[Math.max(1, Math.ceil((p / 100) * xs.length)) - 1]);
    const s = a.summary();
    expect(s.approximate).toBeUndefined();
    expect(s.histogram.reduce((t, h) => t + h.count, 0)).toBe(5000);
    for (const h of s.histogram) {
      const n = xs.filter((x) => (h.le === 0 ? x === 0 : x <= h.le && x > h.le / 2)).length;
      expect(h.count, `le ${h.le}`).toBe(n);
    }
  });

  it("sizes above 64 KiB: percentiles within 0.4%, bucket bounds exact at powers of two", () => {
    const d = new SizeDist();
    const xs = [65536, 65537, 100_000, 131_072, 1_000_000, 5_000_000];
    for (const x of xs) d.add(x);
    expect(d.approximate).toBe(true);
    const s = d.summary();
    expect(s.max).toBe(5_000_000);
    expect(Math.abs(d.percentile(50) - 100_000) / 100_000).toBeLessThan(0.004);
    const h = new Map(s.histogram.map((b) => [b.le, b.count]));
    expect(h.get(65536)).toBe(1);
    expect(h.get(131072)).toBe(3);
  });
});

describe("intervals", () => {
  it("z, t and Wilson match textbook values", () => {
    expect(zFor(0.95)).toBeCloseTo(1.959964, 5);
    expect(zFor(0.99)).toBeCloseTo(2.575829, 5);
    expect(tQuantile(10, 1.959964)).toBeCloseTo(2.228, 2);
    const [lo, hi] = wilson(0.5, 100, 1.959964);
    expect(lo).toBeCloseTo(0.4038, 3);
    expect(hi).toBeCloseTo(0.5962, 3);
  });

  it("a clustered share gets a wider interval than the same records drawn independently", () => {
    const y = [10, 0, 10, 0, 10, 0, 10, 0];
    const m = [10, 10, 10, 10, 10, 10, 10, 10];
    const c = clusterShare(y, m, 1000, 1.96);
    const iid = wilson(0.5, 80, 1.96);
    expect(c.p).toBe(0.5);
    expect(c.interval[1] - c.interval[0]).toBeGreaterThan(iid[1] - iid[0]);
    expect(clusterShare(y, m, 8, 1.96).interval).toEqual([0.5, 0.5]);
  });

  it("draws distinct indexes uniformly", () => {
    const counts = new Array(10).fill(0);
    for (let s = 1; s <= 2000; s++) for (const i of sampleIndices(10, 3, prng(s))) counts[i]++;
    for (const c of counts) expect(Math.abs(c - 600)).toBeLessThan(100);
    expect(sampleIndices(5, 9, prng(1))).toEqual([0, 1, 2, 3, 4]);
  });
});

describe("account walker", () => {
  it("finds the code hash in full and slim records and rejects others", () => {
    const code = Buffer.alloc(32, 0xab);
    const base = { nonce: 5n, balance: 10n ** 20n, storageRoot: EMPTY_TRIE_ROOT };
    const full = Buffer.from(encodeAccountFull({ ...base, codeHash: code }));
    const off = accountCodeHashOffset(full, 0, full.length);
    expect(full.subarray(off, off + 32).equals(code)).toBe(true);
    const eoaFull = Buffer.from(encodeAccountFull({ ...base, codeHash: EMPTY_CODE_HASH }));
    const o2 = accountCodeHashOffset(eoaFull, 0, eoaFull.length);
    expect(eoaFull.subarray(o2, o2 + 32).equals(EMPTY_CODE_HASH)).toBe(true);
    const slim = Buffer.from(encodeAccountSlim({ ...base, codeHash: EMPTY_CODE_HASH }));
    expect(accountCodeHashOffset(slim, 0, slim.length)).toBe(-1);
    expect(accountCodeHashOffset(full, 0, full.length - 1)).toBe(-2);
    expect(accountCodeHashOffset(Buffer.from([0x82, 1, 2]), 0, 3)).toBe(-2);
  });
});

describe("HyperLogLog fallback for distinct code hashes", () => {
  it("estimates 200,000 distinct keccak hashes within 3%, duplicates ignored", () => {
    const a = new Hll();
    const b = new Hll();
    for (let i = 0; i < 200_000; i++) {
      const h = hash53(keccak256(Buffer.from(String(i))), 0);
      (i % 2 ? a : b).add(h);
      if (i % 10 === 0) a.add(h);
    }
    a.merge(b.regs);
    expect(Math.abs(a.estimate() - 200_000) / 200_000).toBeLessThan(0.03);
    const small = new Hll();
    for (let i = 0; i < 1000; i++) small.add(hash53(keccak256(Buffer.from(`s${i}`)), 0));
    expect(Math.abs(small.estimate() - 1000)).toBeLessThan(30);
  });
});

describe("planWithin", () => {
  it("keeps the tables whose key ranges meet the prefixes, their figures summed; range deletions and WAL kept", () => {
    const table = (path: string, smallestHex: string, largestHex: string, n: number) => ({
      run: { path, smallestHex, largestHex, size: 1000 * n },
      figures: {
        dataSize: 900 * n,
        numEntries: 10 * n,
        numDeletions: n,
        numRangeDeletions: 0,
        numDataBlocks: 2 * n,
        fileSize: 1000 * n,
      },
    });
    // a level of key-ordered tables: "h..." headers, then "a..." (0x61) accounts across two tables
    const tables = [
      table("1.sst", "5f00", "60ff", 1), // "_" to "`": before 0x61
      table("2.sst", "60ff", "6110", 2), // meets 0x61
      table("3.sst", "6111", "61ff", 3), // inside 0x61
      table("4.sst", "62", "63", 4), // 0x62..0x63: meets 0x63 (at its first key)
      table("5.sst", "6301", "68", 5), // meets 0x63
      table("6.sst", "68ff", "6aff", 6), // after
    ];
    const plan = {
      runs: [tables.map((t) => t.run)],
      tableFigures: new Map(tables.map((t) => [t.run.path, t.figures])),
      rangeDels: [{ startHex: "00", endHex: "ff", seqno: 9 }],
      walPaths: ["000003.log"],
      files: 6,
    } as unknown as CfPlan;
    const a = planWithin(plan, ["61"]);
    expect(a.runs.flat().map((f) => f.path)).toEqual(["2.sst", "3.sst"]);
    expect([a.files, a.dataBytes, a.dataBlocks, a.entries, a.valueRecords]).toEqual([2, 4500, 10, 50, 45]);
    expect(a.rangeDels).toBe(plan.rangeDels);
    expect(a.walPaths).toBe(plan.walPaths);
    const ac = planWithin(plan, ["61", "63"]);
    expect(ac.runs.flat().map((f) => f.path)).toEqual(["2.sst", "3.sst", "4.sst", "5.sst"]);
    expect(planWithin(plan, ["ff"]).runs).toEqual([]);
  });
});
