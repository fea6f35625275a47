/**
 * Full mode on the committed samples against the generator's ground truth: live keys per column
 * family (WAL included), account kinds, code population, reuse; besu-snapshot vs besu-generated.
 */
import { describe, expect, it } from "vitest";
import { join } from "node:path";
import { computeSizes, type SizesReport } from "../../src/sizes/index.js";
import { SAMPLES, truth } from "./helpers.js";
import { cfLabel } from "../../src/datadir/names.js";

const SAMPLE_NAMES = ["besu-snapshot", "besu-generated", "nethermind", "geth-leveldb", "modern"];
const cache = new Map<string, Promise<SizesReport>>();
function full(name: string): Promise<SizesReport> {
  let p = cache.get(name);
  if (!p) {
    p = computeSizes(join(SAMPLES, name), { mode: "full", workers: 1 });
    cache.set(name, p);
  }
  return p;
}

describe("sizes --full on the samples", () => {
  for (const name of SAMPLE_NAMES) {
    it(`${name}: live keys per column family equal the truth`, async () => {
      const r = await full(name);
      const t = truth(name);
      let checked = 0;
      for (const [inst, it] of Object.entries(t.instances)) {
        for (const [label, cf] of Object.entries(it.columnFamilies)) {
          const got = r.columnFamilies.find((c) => c.instance === inst && c.nameHex === cf.nameHex);
          expect(got, `${inst}/${label}`).toBeDefined();
          expect(got!.liveKeys, `${inst}/${label} live keys`).toBe(cf.keys);
          // every entry read is live or obsolete
          expect(got!.liveKeys + got!.obsoleteEntries!).toBe(got!.entriesRead);
          checked++;
        }
      }
      expect(checked).toBeGreaterThan(0);
    });
  }

  for (const name of ["besu-snapshot", "besu-generated", "nethermind", "geth-leveldb"]) {
    it(`${name}: accounts, code population and reuse equal the truth`, async () => {
      const r = await full(name);
      const t = truth(name);
      const a = r.eth?.accounts;
      const c = r.eth?.code;
      expect(a).toBeDefined();
      expect(c).toBeDefined();
      expect(a!.total).toBe(t.accounts.total);
      expect(a!.eoa.count).toBe(t.accounts.eoa);
      expect(a!.delegatedEoa.count).toBe(t.accounts.delegatedEoa);
      expect(a!.contract.count).toBe(t.accounts.contract);
      expect(a!.undecodable).toBe(0);
      expect(a!.codeNotFound).toBe(0);
      expect(a!.distinctCodeHashes).toBe(t.code.distinctContractBytecodes);
      expect(a!.reuseFactor).toBeCloseTo(t.code.contractsPerDistinctBytecode, 3);
      const per = a!.perContractCodeSize!;
      const tp = t.code.perContractSizes;
      expect([per.count, per.totalBytes, per.min, per.max, per.p50, per.p90, per.p99]).toEqual([
        tp.count,
        tp.totalBytes,
        tp.min,
        tp.max,
        tp.p50,
        tp.p90,
        tp.p99,
      ]);

      expect(c!.liveKeys).toBe(t.code.entries);
      expect(c!.delegations.count).toBe(t.code.distinctDelegationCodes);
      expect(c!.distinctContractBytecodes).toBe(t.code.distinctContractBytecodes);
      const ds = t.code.distinctSizes;
      const cs = c!.codeSize;
      expect([cs.count, cs.totalBytes, cs.min, cs.max, cs.p50, cs.p90, cs.p99]).toEqual([
        ds.count,
        ds.totalBytes,
        ds.min,
        ds.max,
        ds.p50,
        ds.p90,
        ds.p99,
      ]);
      expect(c!.atMax.count).toBe(ds.atMax);
      expect(c!.keyedBy).toBe("code-hash");
      // where the views live, as parts
      expect(typeof c!.instance).toBe("string");
      // the location names the instance and the CF once (nethermind: ".../code", not ".../code/code")
      const at = (v: { instance: string; cf: string }) =>
        cfLabel({ relPath: v.instance, path: v.instance }, v.cf);
      expect(c!.location).toBe(`${at(c!)}${c!.prefixHex ? ` prefix 0x${c!.prefixHex}` : ""}`);
      expect(a!.location.startsWith(at(a!))).toBe(true);
      expect(c!.location).not.toMatch(/\/(\w+)\/\1\b/);
      // every max-size contract sits in some data block that co-tenancy looked at
      expect(c!.coTenancy.maxSizeContracts).toBe(ds.atMax);
      expect(c!.coTenancy.blocks).toBeGreaterThan(0);
      expect(c!.coTenancy.blocks).toBeLessThanOrEqual(ds.atMax);
      // histogram counts add up
      expect(cs.histogram.reduce((s, b) => s + b.count, 0)).toBe(cs.count);
    });
  }

  it("besu-snapshot vs besu-generated: reuse and co-tenancy differ the way the generator built them", async () => {
    const snap = (await full("besu-snapshot")).eth!;
    const gen = (await full("besu-generated")).eth!;
    expect(snap.accounts!.reuseFactor).toBe(8);
    expect(gen.accounts!.reuseFactor).toBe(1);
    expect(gen.code!.distinctContractBytecodes).toBeGreaterThan(snap.code!.distinctContractBytecodes * 5);
    expect(gen.code!.atMax.count).toBeGreaterThan(snap.code!.atMax.count);
    // a generated store packs many distinct small codes beside each max-size contract
    expect(gen.code!.coTenancy.otherRecords.mean).toBeGreaterThan(snap.code!.coTenancy.otherRecords.mean);
    expect(gen.code!.coTenancy.blocks).toBeGreaterThan(snap.code!.coTenancy.blocks);
  });

  it("besu-snapshot: obsolete versions above the bottom level and WAL writes are counted, and blob values are sized", async () => {
    const r = await full("besu-snapshot");
    const cf06 = r.columnFamilies.find((c) => c.nameHex === "06")!;
    // 600 pre-run rewrites + 80 WAL rewrites shadow older versions of existing accounts
    expect(cf06.shadowedVersions).toBe(680);
    expect(cf06.walEntries).toBe(80);
    expect(cf06.tombstones).toBe(0);
    const cf01 = r.columnFamilies.find((c) => c.nameHex === "01")!;
    expect(cf01.blobIndexed.count).toBeGreaterThan(0);
    expect(cf01.valueTypes["blob-index"]).toBe(cf01.blobIndexed.count);
    // min_blob_size=100: every blob-separated value is ≥ 100 bytes before LZ4; stored sizes are > 0
    expect(cf01.blobIndexed.storedBytes).toBeGreaterThan(cf01.blobIndexed.count * 10);
    const physical = r.columnFamilies.reduce((s, c) => s + c.physicalBytes, 0);
    expect(physical).toBeGreaterThan(0);
  });

  it("one worker and two workers split by key range give the same report", async () => {
    const dir = join(SAMPLES, "besu-snapshot");
    const one = await full("besu-snapshot");
    const two = await computeSizes(dir, {
      mode: "full",
      workers: 2,
      splitMinBytes: 1,
      rangesPerThread: 4,
      mainThreadScans: false,
    });
    const strip = (r: SizesReport) => JSON.stringify({ cfs: r.columnFamilies, eth: r.eth });
    // threads claim ranges as they free up: one quick worker may take them all before the other starts
    expect(two.workers).toBeGreaterThanOrEqual(1);
    expect(two.workers).toBeLessThanOrEqual(2);
    expect(strip(two)).toBe(strip(one));
  });

  it("--cf selects column families by display name, hex or name", async () => {
    const dir = join(SAMPLES, "besu-snapshot");
    const r = await computeSizes(dir, { cf: ["cf06", "0x07"], workers: 1 });
    expect(r.columnFamilies.map((c) => c.nameHex)).toEqual(["06", "07"]);
    expect(r.eth?.accounts?.delegatedEoa.count).toBe(truth("besu-snapshot").accounts.delegatedEoa);
    await expect(computeSizes(dir, { cf: "nope" })).rejects.toThrow(/no column family matches/);
  });

  it("modern (format 6, ZSTD dictionary, no client): explicit account/code locations give the truth", async () => {
    const t = truth("modern");
    const r = await computeSizes(join(SAMPLES, "modern"), {
      workers: 1,
      eth: { accounts: { instance: ".", cf: "accounts" }, code: { instance: ".", cf: "code" } },
    });
    expect(r.eth!.accounts!.eoa.count).toBe(t.accounts.eoa);
    expect(r.eth!.accounts!.delegatedEoa.count).toBe(t.accounts.delegatedEoa);
    expect(r.eth!.accounts!.contract.count).toBe(t.accounts.contract);
    expect(r.eth!.code!.distinctContractBytecodes).toBe(t.code.distinctContractBytecodes);
    expect(r.eth!.accounts!.reuseFactor).toBeCloseTo(t.code.contractsPerDistinctBytecode, 3);
    const auto = await full("modern");
    expect(auto.eth).toBeUndefined();
  });

  it("geth-leveldb: live records per geth key category equal the truth", async () => {
    const r = await full("geth-leveldb");
    const t = JSON.parse(
      (await import("node:fs")).readFileSync(join(SAMPLES, "geth-leveldb.truth.json"), "utf8"),
    ) as { keyCategories: Record<string, number> };
    const cats = r.columnFamilies[0]!.keyCategories!;
    const tc = t.keyCategories;
    // one classifier, geth db inspect's categories: every category equals the truth, headers apart from
    // the canonical-hash keys (h num n), LastBlock/LastHeader/LastFast as singleton metadata
    expect(Object.fromEntries(Object.entries(cats).map(([k, c]) => [k, c.liveKeys]))).toEqual(tc);
    expect(cats["Headers"]!.liveKeys).toBe(67);
    expect(cats["Block number->hash"]!.liveKeys).toBe(67);
    expect(cats["Singleton metadata"]!.liveKeys).toBe(3);
    const sum = Object.values(cats).reduce((s, c) => s + c.liveKeys, 0);
    expect(sum).toBe(r.columnFamilies[0]!.liveKeys);
    // code sizes by category equal the code view's
    expect(cats["Contract codes"]!.valueSize.max).toBe(24576);
  });
});
