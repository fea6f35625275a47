/**
 * Sample mode on the samples. A 95% interval misses now and then by design, so each interval is
 * checked over 20 seeds: it must contain the exact figure (truth, or full mode where the store holds
 * one version per key) in at least 16 of them (the chance of fewer with true 95% coverage is < 2%).
 */
import { describe, expect, it } from "vitest";
import { join } from "node:path";
import { computeSizes, type Interval } from "../../src/sizes/index.js";
import { SAMPLES, truth } from "./helpers.js";

const SEEDS = Array.from({ length: 20 }, (_, i) => i + 1);
/**
 * Storage per contract is drawn after every figure checked here, from a generator of its own
 * (src/sizes/contracts/sample.ts), and no assertion here reads it (contracts_sample.test.ts does):
 * one draw, not the default 200, which took ~70% of this file's time over its 60 sample runs.
 */
const contractDraws = 1;

/** Per named figure: how many of the runs had it inside its interval. */
class Coverage {
  hits = new Map<string, number>();
  runs = new Map<string, number>();
  check(what: string, x: number, i: Interval | undefined): void {
    expect(i, what).toBeDefined();
    this.runs.set(what, (this.runs.get(what) ?? 0) + 1);
    if (x >= i![0] - 1e-9 && x <= i![1] + 1e-9) this.hits.set(what, (this.hits.get(what) ?? 0) + 1);
  }
  expectAtLeast(share: number): void {
    for (const [what, n] of this.runs) {
      const h = this.hits.get(what) ?? 0;
      expect(h / n, `${what}: inside ${h} of ${n}`).toBeGreaterThanOrEqual(share);
    }
  }
}

describe("sizes --sample", () => {
  it("besu-generated: account shares, code shares, totals and percentiles within their intervals", async () => {
    const dir = join(SAMPLES, "besu-generated");
    const t = truth("besu-generated");
    const full = await computeSizes(dir, { workers: 1 });
    const cov = new Coverage();
    for (const seed of SEEDS) {
      const s = await computeSizes(dir, { mode: "sample", sampleBlocks: 8, seed, contractDraws });
      expect(s.mode).toBe("sample");
      const a = s.eth!.accounts!;
      cov.check("eoa share", t.accounts.eoa / t.accounts.total, a.eoa.interval);
      cov.check("delegated share", t.accounts.delegatedEoa / t.accounts.total, a.delegatedEoa.interval);
      cov.check("contract share", t.accounts.contract / t.accounts.total, a.contract.interval);
      cov.check("accounts", t.accounts.total, a.totalInterval);
      cov.check("reuse", t.code.contractsPerDistinctBytecode, a.reuseFactorInterval);
      const c = s.eth!.code!;
      const fc = full.eth!.code!;
      cov.check("code atMax share", fc.atMax.share, c.atMax.interval);
      cov.check("code delegation share", fc.delegations.share, c.delegations.interval);
      cov.check("code live keys", fc.liveKeys, c.liveKeysInterval);
      for (const q of ["p50", "p90", "mean"] as const)
        cov.check(`code ${q}`, fc.codeSize[q], c.codeSize.intervals?.[q]);
      // every class has a share and an interval, those the sample did not meet too
      const codeRecords = Object.values(fc.classes).reduce((x, y) => x + y, 0);
      expect(Object.keys(c.classShares!)).toHaveLength(8);
      for (const [k, sh] of Object.entries(c.classShares!))
        cov.check(`code class ${k} share`, (fc.classes[k] ?? 0) / codeRecords, sh.interval);
      cov.check(
        "contracts per stored bytecode",
        full.eth!.accounts!.contractsPerStoredBytecode,
        a.contractsPerStoredBytecodeInterval,
      );
      if (c.coTenancy.blocks >= 2)
        cov.check(
          "co-tenant records per max-size block",
          fc.coTenancy.otherRecords.mean,
          c.coTenancy.otherRecords.meanInterval,
        );
      for (const cf of s.columnFamilies) {
        const f = full.columnFamilies.find((x) => x.nameHex === cf.nameHex)!;
        if (f.liveKeys === 0) continue;
        cov.check(`${cf.displayName} live keys`, f.liveKeys, cf.liveKeysInterval);
        cov.check(`${cf.displayName} logical bytes`, f.logicalBytes, cf.logicalBytesInterval);
        for (const q of ["p50", "p90", "mean"] as const)
          cov.check(`${cf.displayName} value ${q}`, f.valueSize[q], cf.valueSize.intervals?.[q]);
      }
    }
    cov.expectAtLeast(0.8);
  });

  it("besu-snapshot (pre-run rewrites above the bottom, writes in the WAL): keys counted at their newest version", async () => {
    const dir = join(SAMPLES, "besu-snapshot");
    const t = truth("besu-snapshot");
    const full = await computeSizes(dir, { workers: 1 });
    const cov = new Coverage();
    for (const seed of SEEDS) {
      const s = await computeSizes(dir, { mode: "sample", sampleBlocks: 8, seed, contractDraws });
      const a = s.eth!.accounts!;
      // 4,000 accounts, 600 of them rewritten by the pre-run: versions are not accounts
      cov.check("accounts", t.accounts.total, a.totalInterval);
      expect(a.totalInterval![1]).toBeLessThan(t.accounts.total + t.history!.preRunRewrittenAccounts);
      for (const cf of s.columnFamilies) {
        const f = full.columnFamilies.find((x) => x.nameHex === cf.nameHex)!;
        if (f.liveKeys === 0) continue;
        cov.check(`${cf.displayName} live keys`, f.liveKeys, cf.liveKeysInterval);
      }
    }
    cov.expectAtLeast(0.8);
  });

  it("geth-leveldb (no table properties): live keys and bytes estimated within the interval", async () => {
    const dir = join(SAMPLES, "geth-leveldb");
    const full = await computeSizes(dir, { workers: 1 });
    const f = full.columnFamilies[0]!;
    const t = truth("geth-leveldb");
    // live keys at their newest version, as full mode counts them
    const stored = f.liveKeys;
    const cov = new Coverage();
    for (const seed of SEEDS) {
      const s = await computeSizes(dir, { mode: "sample", sampleBlocks: 60, seed, contractDraws });
      const cf = s.columnFamilies[0]!;
      expect(cf.totalBlocks).toBe(f.dataBlocks);
      cov.check("live keys", stored, cf.liveKeysInterval);
      cov.check("physical bytes", f.physicalBytes, cf.physicalBytesInterval);
      cov.check("logical bytes", f.logicalBytes, cf.logicalBytesInterval);
      cov.check("eoa share", t.accounts.eoa / t.accounts.total, s.eth!.accounts!.eoa.interval);
    }
    cov.expectAtLeast(0.8);
  });

  it("the same seed draws the same blocks", async () => {
    const dir = join(SAMPLES, "besu-snapshot");
    const a = await computeSizes(dir, { mode: "sample", sampleBlocks: 5, seed: 7 });
    const b = await computeSizes(dir, { mode: "sample", sampleBlocks: 5, seed: 7 });
    const strip = (r: typeof a) => JSON.stringify(r.columnFamilies);
    expect(strip(a)).toBe(strip(b));
  });
});
