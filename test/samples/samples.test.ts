/**
 * The committed samples against RocksDB's own tools: `ldb list_column_families`, `sst_dump
 * --show_properties` / `--command=raw`, `ldb manifest_dump`, `ldb dump_wal` and `ldb scan` show the
 * intended column families, options, level placement and WAL contents, and a recount of what ldb
 * reads back equals the ground-truth files. Everything runs on temporary copies.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { keccak256 } from "../../src/eth/index.js";
import {
  SAMPLES,
  cleanupTemps,
  copyStore,
  fileNumber,
  haveRocksTools,
  ldbColumnFamilies,
  ldbScan,
  ldbWalPuts,
  manifestLevels,
  readTruth,
  sstFiles,
  sstFormatVersion,
  sstProperties,
} from "./helpers.js";
import { recountEthereum } from "./recount.js";
import { memoized } from "../helpers/index.js";

afterAll(cleanupTemps);

/**
 * `ldb scan` of one column family of a copy, run once per copy and column family: several tests read
 * the same one (the recounts scan 06 and 07 again after counting every CF), and what ldb reads back of
 * a copy does not change between two scans of it.
 */
const ldbScanOnce = memoized(ldbScan);

const BESU_CFS = [0x01, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b];
const cfLabel = (b: number) => b.toString(16).padStart(2, "0");
const byteName = (b: number) => String.fromCharCode(b);

function listedCfs(dir: string): string[] {
  const out = ldbColumnFamilies(dir);
  const inner = out.slice(out.indexOf("{") + 1, out.lastIndexOf("}"));
  return inner.split(", ");
}

function walFiles(dir: string): string[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith(".log"))
    .map((f) => join(dir, f));
}

interface FileInfo {
  file: string;
  props: Record<string, string>;
  cf: string;
  level: number;
}

function describeFiles(dir: string): FileInfo[] {
  const levels = manifestLevels(dir);
  return sstFiles(dir).map((file) => {
    const props = sstProperties(file);
    const cfId = Number(props["column family ID"]);
    const level = levels.get(cfId)?.get(fileNumber(file));
    if (level === undefined) throw new Error(`${file} not in the MANIFEST`);
    return { file, props, cf: props["column family name"]!, level };
  });
}

const filterBytes = (f: FileInfo) => Number(f.props["filter block size"] ?? 0);

function checkCounts(
  dir: string,
  truthCfs: Record<string, { keys: number }>,
  nameOf: (label: string) => string,
) {
  for (const [label, t] of Object.entries(truthCfs)) {
    expect(ldbScanOnce(dir, nameOf(label)).length, `keys in ${label}`).toBe(t.keys);
  }
}

describe.skipIf(!haveRocksTools)("besu samples (ldb, sst_dump)", () => {
  const dirs: Record<string, string> = {};
  const files: Record<string, FileInfo[]> = {};
  beforeAll(() => {
    for (const s of ["besu-snapshot", "besu-generated"]) {
      dirs[s] = copyStore(join(SAMPLES, s, "database"));
      files[s] = describeFiles(dirs[s]);
    }
  });

  it("has Besu's metadata file and byte-named column families", () => {
    for (const s of ["besu-snapshot", "besu-generated"]) {
      const meta = JSON.parse(readFileSync(join(SAMPLES, s, "DATABASE_METADATA.json"), "utf8"));
      expect(meta.v2.format).toBe("BONSAI");
      expect(listedCfs(dirs[s]!).sort()).toEqual(["default", ...BESU_CFS.map(byteName)].sort());
    }
  });

  it("besu-snapshot: LZ4, format 5, bloom 10 on every file; state in the bottom level with pre-run files above", () => {
    const fs = files["besu-snapshot"]!;
    expect(fs.length).toBeGreaterThan(10);
    for (const f of fs) {
      expect(f.props["SST file compression algo"], f.file).toBe("LZ4");
      expect(f.props["filter policy name"], f.file).toBe("bloomfilter");
      expect(filterBytes(f), f.file).toBeGreaterThan(0);
      expect(Number(f.props["# entries"])).toBe(Number(f.props["# entries for filter"]));
    }
    for (const f of fs.slice(0, 3)) expect(sstFormatVersion(f.file)).toBe(5);
    const truth = readTruth("besu-snapshot");
    for (const b of [0x06, 0x08, 0x09]) {
      const mine = fs.filter((f) => f.cf === byteName(b));
      expect(
        mine.some((f) => f.level === 6),
        cfLabel(b),
      ).toBe(true);
      expect(
        mine.some((f) => f.level < 6),
        cfLabel(b),
      ).toBe(true);
      const perLevel = [0, 0, 0, 0, 0, 0, 0];
      for (const f of mine) perLevel[f.level]!++;
      expect(perLevel).toEqual(truth.instances.database!.columnFamilies[cfLabel(b)]!.filesPerLevel);
    }
    // blob files for 01 and 0a only: values > 100 bytes come back through ldb
    expect(readdirSync(dirs["besu-snapshot"]!).filter((f) => f.endsWith(".blob")).length).toBeGreaterThan(0);
    const headers = ldbScanOnce(dirs["besu-snapshot"]!, byteName(0x01)).filter(([k]) => k[0] === 0x02);
    expect(headers.length).toBeGreaterThan(0);
    for (const [k, v] of headers) expect(keccak256(v)).toEqual(k.subarray(1));
  });

  it("besu-snapshot: the WAL holds exactly the unflushed writes", () => {
    const truth = readTruth("besu-snapshot");
    const puts = walFiles(dirs["besu-snapshot"]!).reduce((s, w) => s + ldbWalPuts(w), 0);
    expect(truth.history.unflushedWalWrites).toBeGreaterThan(0);
    expect(puts).toBe(truth.history.unflushedWalWrites);
  });

  it("besu-generated: no filters on 06/07/08/09, bloom elsewhere, everything in the bottom level, no WAL writes", () => {
    for (const f of files["besu-generated"]!) {
      const state = [0x06, 0x07, 0x08, 0x09].map(byteName).includes(f.cf);
      expect(f.props["SST file compression algo"]).toBe("LZ4");
      expect(filterBytes(f) > 0, `${f.file} cf ${Buffer.from(f.cf, "latin1").toString("hex")}`).toBe(!state);
      expect(f.props["filter policy name"]).toBe(state ? "N/A" : "bloomfilter");
      expect(f.level).toBe(6);
    }
    expect(walFiles(dirs["besu-generated"]!).reduce((s, w) => s + ldbWalPuts(w), 0)).toBe(0);
  });

  it("both: ldb recounts equal the ground truth", () => {
    for (const s of ["besu-snapshot", "besu-generated"]) {
      const truth = readTruth(s);
      const dir = dirs[s]!;
      checkCounts(dir, truth.instances.database!.columnFamilies, (l) =>
        l === "default" ? "default" : byteName(parseInt(l, 16)),
      );
      const re = recountEthereum(
        ldbScanOnce(dir, byteName(0x06)).map(([, v]) => v),
        ldbScanOnce(dir, byteName(0x07)),
      );
      expect(re.accounts).toEqual(truth.accounts);
      expect(re.code).toEqual({
        entries: truth.code.entries,
        distinctContractBytecodes: truth.code.distinctContractBytecodes,
        distinctDelegationCodes: truth.code.distinctDelegationCodes,
        distinctSizes: truth.code.distinctSizes,
        perContractSizes: truth.code.perContractSizes,
      });
      // code is keyed by its hash
      for (const [k, v] of ldbScanOnce(dir, byteName(0x07)).slice(0, 50)) expect(keccak256(v)).toEqual(k);
    }
    const snap = readTruth("besu-snapshot");
    const gen = readTruth("besu-generated");
    expect(snap.code.contractsPerDistinctBytecode).toBeGreaterThan(4);
    expect(gen.code.contractsPerDistinctBytecode).toBe(1);
    expect(gen.accounts).toEqual(snap.accounts);
    expect(snap.code.distinctSizes.max).toBe(24_576);
    expect(snap.code.distinctSizes.atMax).toBeGreaterThanOrEqual(3);
  });
});

describe.skipIf(!haveRocksTools)("nethermind sample (ldb, sst_dump)", () => {
  const base = join(SAMPLES, "nethermind", "nethermind_db", "mainnet");
  const dirs: Record<string, string> = {};
  const files: Record<string, FileInfo[]> = {};
  beforeAll(() => {
    for (const inst of ["code", "flat", "state"]) {
      dirs[inst] = copyStore(join(base, inst));
      files[inst] = describeFiles(dirs[inst]);
    }
  });

  it("has the instances and flat's column families", () => {
    expect(listedCfs(dirs.flat!).sort()).toEqual(
      ["Account", "Storage", "StateNodes", "StorageNodes", "default"].sort(),
    );
    expect(listedCfs(dirs.code!)).toEqual(["default"]);
    expect(listedCfs(dirs.state!)).toEqual(["default"]);
  });

  it("code: Snappy, hash-search index with capped:8 prefixes, no filter, 4 KiB blocks", () => {
    for (const f of files.code!) {
      expect(f.props["SST file compression algo"]).toBe("Snappy");
      expect(f.props["filter policy name"]).toBe("N/A");
      expect(filterBytes(f)).toBe(0);
      expect(f.props["prefix extractor name"]).toBe("rocksdb.CappedPrefix.8");
      expect(f.props["# rocksdb.block.based.table.index.type"]).toBe("0x01000000");
      expect(sstFormatVersion(f.file)).toBe(5);
    }
  });

  it("flat: ribbon 10 filters everywhere, LZ4 except Account (uncompressed, 4 KiB blocks)", () => {
    for (const f of files.flat!) {
      expect(f.props["filter policy name"]).toBe("ribbonfilter");
      expect(filterBytes(f)).toBeGreaterThan(0);
      expect(f.props["SST file compression algo"]).toBe(f.cf === "Account" ? "NoCompression" : "LZ4");
      const avgBlock = Number(f.props["data block size"]) / Number(f.props["# data blocks"]);
      if (f.cf === "Account") expect(avgBlock).toBeLessThan(4600);
      if (f.cf === "Storage") expect(avgBlock).toBeGreaterThan(8000);
    }
    const opts = readFileSync(
      join(
        dirs.flat!,
        readdirSync(dirs.flat!)
          .filter((f) => f.startsWith("OPTIONS-"))
          .sort()
          .pop()!,
      ),
      "utf8",
    );
    expect(opts).toContain("filter_policy=ribbonfilter:10");
  });

  it("state: Snappy, two-level index, partitioned bloom above the last level and no filter in it", () => {
    const fs = files.state!;
    const levels = new Set(fs.map((f) => f.level));
    expect(levels.size).toBeGreaterThanOrEqual(2);
    for (const f of fs) {
      expect(f.props["SST file compression algo"]).toBe("Snappy");
      expect(f.props["# rocksdb.block.based.table.index.type"]).toBe("0x02000000");
      expect(Number(f.props["# index partitions"])).toBeGreaterThanOrEqual(1);
      expect(filterBytes(f) > 0, `${f.file} at L${f.level}`).toBe(f.level !== 6);
    }
  });

  it("ldb recounts equal the ground truth", () => {
    const truth = readTruth("nethermind");
    for (const inst of ["code", "flat", "state"])
      checkCounts(dirs[inst]!, truth.instances[`nethermind_db/mainnet/${inst}`]!.columnFamilies, (l) => l);
    const re = recountEthereum(
      ldbScanOnce(dirs.flat!, "Account").map(([, v]) => v),
      ldbScanOnce(dirs.code!, "default"),
    );
    expect(re.accounts).toEqual(truth.accounts);
    expect(re.code.distinctContractBytecodes).toBe(truth.code.distinctContractBytecodes);
    expect(re.code.distinctSizes).toEqual(truth.code.distinctSizes);
    for (const [k] of ldbScanOnce(dirs.flat!, "Storage").slice(0, 20)) expect(k.length).toBe(52);
    for (const [k] of ldbScanOnce(dirs.flat!, "Account").slice(0, 20)) expect(k.length).toBe(20);
  });
});
