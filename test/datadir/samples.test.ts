/**
 * The committed sample datadirs: client recognition, column family names, level layout and unflushed
 * WAL writes against the generator's ground truth (samples/*.truth.json), files per level against
 * `ldb manifest_dump`, WAL batches against `ldb dump_wal`, and nothing changed by reading them.
 */
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { inspectDatadir, type DatadirModel } from "../../src/datadir/index.js";
import { snapshotTree, ldbManifest, ldbWal, removeDir, tempDir } from "./helpers.js";

const samplesDir = new URL("../../samples/", import.meta.url).pathname;
const names = ["besu-snapshot", "besu-generated", "nethermind", "geth-leveldb", "modern"];
const have = names.every((n) => existsSync(join(samplesDir, n)));

interface Truth {
  client: string;
  history?: { unflushedWalWrites: number; unflushedWalWritesPerCf: Record<string, number> };
  instances: Record<
    string,
    { columnFamilies: Record<string, { nameHex: string; filesPerLevel?: number[] }> }
  >;
}

const models: Record<string, DatadirModel> = {};
const truths: Record<string, Truth> = {};
const hashes: Record<string, Record<string, string>> = {};

describe.skipIf(!have)("sample datadirs", () => {
  beforeAll(async () => {
    for (const n of names) {
      hashes[n] = snapshotTree(join(samplesDir, n));
      truths[n] = JSON.parse(readFileSync(join(samplesDir, `${n}.truth.json`), "utf8")) as Truth;
      models[n] = await inspectDatadir(join(samplesDir, n), { tableDetails: "cheap" });
    }
  });

  it("recognises the clients", () => {
    expect(models["besu-snapshot"]!.client.kind).toBe("besu");
    expect(models["besu-snapshot"]!.client.besu?.format).toBe("BONSAI");
    expect(models["besu-generated"]!.client.kind).toBe("besu");
    expect(models["nethermind"]!.client.kind).toBe("nethermind");
    expect(models["nethermind"]!.client.nethermind?.network).toBe("mainnet");
    expect(models["geth-leveldb"]!.client.kind).toBe("geth");
    expect(models["geth-leveldb"]!.instances[0]!.engine).toBe("leveldb");
    expect(models["modern"]!.client.kind).toBe("generic");
    for (const n of names) expect(models[n]!.complete).toBe(true);
  });

  it("finds every instance and column family the generator wrote, with the level layout", () => {
    for (const n of names) {
      const m = models[n]!;
      const truth = truths[n]!;
      expect(m.instances.map((i) => i.relPath).sort()).toEqual(Object.keys(truth.instances).sort());
      for (const inst of m.instances) {
        const tcfs = truth.instances[inst.relPath]!.columnFamilies;
        const wanted = Object.values(tcfs).map((c) => c.nameHex);
        // the generator lists the CFs it wrote; RocksDB always has "default" too
        const got = inst.columnFamilies.map((c) => c.nameHex);
        for (const w of wanted) expect(got).toContain(w);
        for (const c of Object.values(tcfs)) {
          if (!c.filesPerLevel) continue;
          const cf = inst.columnFamilies.find((x) => x.nameHex === c.nameHex)!;
          const per = cf.levels.map((l) => l.files.length);
          expect(per.slice(0, c.filesPerLevel.length)).toEqual(c.filesPerLevel);
        }
      }
    }
  });

  it("names column families for the client", () => {
    const besu = models["besu-snapshot"]!.instances[0]!;
    expect(besu.client).toBe("besu");
    expect(besu.columnFamilies.find((c) => c.nameHex === "06")?.displayName).toBe("cf06 ACCOUNT_INFO_STATE");
    expect(besu.columnFamilies.find((c) => c.nameHex === "06")?.name).toBe("06");
    expect(besu.columnFamilies.find((c) => c.nameHex === "0a")?.displayName).toBe("cf0a TRIE_LOG_STORAGE");
    const flat = models["nethermind"]!.instances.find((i) => i.clientDetail?.database === "flat")!;
    expect(flat.columnFamilies.map((c) => c.displayName)).toContain("flat/Account");
    const code = models["nethermind"]!.instances.find((i) => i.clientDetail?.database === "code")!;
    expect(code.columnFamilies[0]!.displayName).toBe("code");
  });

  it("unflushed WAL writes per column family equal the generator's", () => {
    for (const n of names) {
      const h = truths[n]!.history;
      if (!h) continue;
      const m = models[n]!;
      let total = 0;
      const per: Record<string, number> = {};
      for (const inst of m.instances)
        for (const cf of inst.columnFamilies)
          if (cf.totals.unflushedWrites > 0) {
            const key = `${inst.relPath}/${inst.client === "besu" ? cf.nameHex : cf.name}`;
            per[key] = cf.totals.unflushedWrites;
            total += cf.totals.unflushedWrites;
          }
      expect(total).toBe(h.unflushedWalWrites);
      expect(per).toEqual(h.unflushedWalWritesPerCf);
    }
  });

  it("options from the OPTIONS file: Besu's filter, Nethermind's ribbon and optimize_filters_for_hits", () => {
    const besu = models["besu-snapshot"]!.instances[0]!;
    const cf06 = besu.columnFamilies.find((c) => c.nameHex === "06")!;
    expect(cf06.options?.table?.filterPolicy.kind).toBe("bloom");
    expect(cf06.options?.table?.filterPolicy.bitsPerKey).toBe(10);
    expect(cf06.options?.table?.blockSize).toBe(32768);
    expect(cf06.options?.table?.formatVersion).toBe(5);
    const gen06 = models["besu-generated"]!.instances[0]!.columnFamilies.find((c) => c.nameHex === "06")!;
    expect(gen06.options?.table?.filterPolicy.kind).toBe("none");
    const cf01 = besu.columnFamilies.find((c) => c.nameHex === "01")!;
    expect(cf01.options?.blob.enableBlobFiles).toBe(true);
    expect(cf01.options?.blob.minBlobSize).toBe(100);
    expect(cf01.blobFiles.length).toBeGreaterThan(0);
    const flat = models["nethermind"]!.instances.find((i) => i.clientDetail?.database === "flat")!;
    const acct = flat.columnFamilies.find((c) => c.name === "Account")!;
    expect(acct.options?.table?.filterPolicy.kind).toBe("ribbon");
    expect(acct.options?.compression).toBe("kNoCompression");
    const state = models["nethermind"]!.instances.find((i) => i.clientDetail?.database === "state")!;
    expect(state.columnFamilies[0]!.options?.optimizeFiltersForHits).toBe(true);
    expect(state.columnFamilies[0]!.options?.table?.indexType).toBe("kTwoLevelIndexSearch");
  });

  it("per-table details come from the SST reader when asked", () => {
    const inst = models["modern"]!.instances[0]!;
    const files = inst.columnFamilies.flatMap((c) => c.levels.flatMap((l) => l.files));
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) {
      expect(f.details?.error).toBeUndefined();
      expect(f.details?.formatVersion).toBe(6);
    }
  });

  it("files per level, sizes and keys equal ldb manifest_dump; WAL batches equal ldb dump_wal", () => {
    for (const n of ["besu-snapshot", "besu-generated", "nethermind", "geth-leveldb", "modern"]) {
      for (const inst of models[n]!.instances) {
        const oracle = ldbManifest({ path: inst.manifest!.path });
        for (const ocf of oracle.cfs) {
          const cf = inst.columnFamilies.find((c) => c.id === ocf.id)!;
          const mine = cf.levels
            .flatMap((l) =>
              l.files.map((f) => `${l.level}:${f.fileNumber}:${f.fileSize}:${f.smallestKey}:${f.largestKey}`),
            )
            .sort();
          const theirs = ocf.files
            .map((f) => `${f.level}:${f.fileNumber}:${f.fileSize}:${f.smallestKey}:${f.largestKey}`)
            .sort();
          expect(mine).toEqual(theirs);
          expect(cf.logNumber).toBe(ocf.logNumber);
        }
        for (const w of inst.wal) {
          const recs = ldbWal(w.path);
          expect(w.records).toBe(recs.length);
          if (recs.length) {
            expect(w.firstSeq).toBe(recs[0]!.seq);
            expect(w.lastSeq).toBe(recs[recs.length - 1]!.seq + recs[recs.length - 1]!.count - 1);
          }
        }
      }
    }
  });

  it("reading the samples changed nothing", () => {
    for (const n of names) expect(snapshotTree(join(samplesDir, n))).toEqual(hashes[n]);
  });
});

describe("Pebble", () => {
  let dir: string;
  afterAll(() => removeDir(dir));
  it("a damaged one is recognised as Pebble, not readable (its MANIFEST does not decode), not geth without evidence", async () => {
    dir = tempDir();
    const d = join(dir, "geth", "chaindata");
    mkdirSync(d, { recursive: true });
    writeFileSync(join(d, "CURRENT"), "MANIFEST-000004\n");
    writeFileSync(join(d, "MANIFEST-000004"), Buffer.alloc(64, 7));
    writeFileSync(
      join(d, "OPTIONS-000005"),
      "[Version]\n  pebble_version=0.1\n\n[Options]\n  bytes_per_sync=524288\n",
    );
    writeFileSync(join(d, "marker.manifest.000001.MANIFEST-000004"), "");
    const m = await inspectDatadir(dir);
    expect(m.client.kind).toBe("generic"); // geth/chaindata without ancient/ is no geth evidence
    expect(m.instances).toHaveLength(1);
    expect(m.instances[0]!.engine).toBe("pebble");
    expect(m.instances[0]!.readable).toBe(false);
    expect(m.findings.some((f) => f.code === "manifest-incomplete")).toBe(true);
  });
});
