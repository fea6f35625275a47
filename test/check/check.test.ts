/**
 * `check` on real stores: the committed Besu samples (ground truth from the generator's truth files),
 * db_bench stores with and without a late overwrite pass (oracle: sst_dump scans of the files above the
 * bottom level, levels from `ldb manifest_dump`), and bad arms through the real binary.
 */
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { spawnSync, execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  runCheck,
  exitCodeFor,
  loadArm,
  measureOverlay,
  overlayLookupDemand,
  renderTable,
  sharedLookupBudget,
  summaryLine,
  wilson,
  type CheckFinding,
  type CheckReport,
} from "../../src/check/index.js";
import { inspectDatadir } from "../../src/datadir/index.js";
import { dbBench, snapshotTree, ldbManifest, removeDir, tempDir } from "../datadir/helpers.js";
import { REPO } from "../helpers/index.js";

const root = new URL("../..", import.meta.url).pathname;
const bin = join(root, "bin/lsmscope.js");
const snapshot = join(root, "samples/besu-snapshot");
const generated = join(root, "samples/besu-generated");

interface Truth {
  history: { unflushedWalWrites: number };
  instances: Record<string, { columnFamilies: Record<string, { keysWritten: { "pre-run": number } }> }>;
}
const truth = (name: string) =>
  JSON.parse(readFileSync(join(root, `samples/${name}.truth.json`), "utf8")) as Truth;

const cli = (args: string[]) => spawnSync(process.execPath, [bin, "check", ...args], { encoding: "utf8" });
const of = (r: CheckReport, rule: string) => r.findings.filter((f) => f.rule === rule);
const cfName = (f: CheckFinding) => f.cf.split(" ")[0];

const N = 20_000;
const bench = [
  "--value_size=100",
  "--compression_type=none",
  "--bloom_bits=10",
  "--write_buffer_size=1048576",
];

/** Entries of the files above the bottom level whose key index (8-byte big-endian prefix) is < n: sst_dump + ldb. */
function oracleShadowed(db: string, n: number): { above: number; shadowing: number } {
  const m = ldbManifest({ db });
  const files = m.cfs.flatMap((c) => c.files);
  const bottom = Math.max(...files.map((f) => f.level));
  let above = 0;
  let shadowing = 0;
  for (const f of files.filter((x) => x.level < bottom)) {
    const out = execFileSync(
      "sst_dump",
      [
        `--file=${join(db, String(f.fileNumber).padStart(6, "0") + ".sst")}`,
        "--command=scan",
        "--output_hex",
      ],
      { encoding: "latin1", maxBuffer: 64 * 1024 * 1024 },
    );
    for (const line of out.split("\n")) {
      const k = /^'([0-9A-F]+)' seq:\d+, type:\d+ =>/.exec(line);
      if (!k) continue;
      above++;
      if (Number.parseInt(k[1]!.slice(0, 16), 16) < n) shadowing++;
    }
  }
  return { above, shadowing };
}

/** The store's one instance and its first column family, as inspect models them (cheap table details). */
async function firstColumnFamily(db: string) {
  const model = await inspectDatadir(db, { tableDetails: "cheap" });
  const inst = model.instances[0]!;
  return { inst, cf: inst.columnFamilies[0]! };
}

/** Obsolete entries in every table: entries − distinct user keys (sst_dump scans; levels from ldb). */
function oracleObsolete(db: string): number {
  let entries = 0;
  const keys = new Set<string>();
  for (const f of ldbManifest({ db }).cfs.flatMap((c) => c.files)) {
    const out = execFileSync(
      "sst_dump",
      [
        `--file=${join(db, String(f.fileNumber).padStart(6, "0") + ".sst")}`,
        "--command=scan",
        "--output_hex",
      ],
      { encoding: "latin1", maxBuffer: 256 * 1024 * 1024 },
    );
    for (const m of out.matchAll(/^'([0-9A-F]+)' seq:\d+, type:\d+ =>/gm)) {
      entries++;
      keys.add(m[1]!); // sst_dump prints the user key, then seq and type
    }
  }
  return entries - keys.size;
}

describe("check on the Besu samples", () => {
  let pair: CheckReport;
  beforeAll(async () => {
    pair = await runCheck(snapshot, { against: generated });
  });

  it("reports filters-missing, options-mismatch (filter), placement-overlay, wal-unflushed, code-population", () => {
    const state = ["cf06", "cf07", "cf08", "cf09"];
    const both = of(pair, "filters-missing").filter((f) => f.arm === "both");
    expect(both.map(cfName).sort()).toEqual(state);
    expect(both.every((f) => f.severity === "error")).toBe(true);
    // the generated arm's own files carry none
    expect(
      of(pair, "filters-missing")
        .filter((f) => f.arm === "reference")
        .map(cfName)
        .sort(),
    ).toEqual(state);

    const mism = of(pair, "options-mismatch");
    expect(mism.map(cfName).sort()).toEqual(state);
    for (const f of mism) expect((f.evidence.knobs as string[]).includes("filter")).toBe(true);

    const wal = of(pair, "wal-unflushed");
    expect(wal).toHaveLength(1);
    expect(wal[0]!.arm).toBe("subject");
    expect(wal[0]!.evidence.unflushedWrites).toBe(truth("besu-snapshot").history.unflushedWalWrites);

    const code = of(pair, "code-population");
    expect(code).toHaveLength(1);
    const diffs = (code[0]!.evidence.differences as { what: string }[]).map((d) => d.what);
    expect(diffs).toContain("reuseFactor");
    expect(diffs).toContain("distinctContractBytecodes");
    expect(exitCodeFor(pair)).toBe(2);
  });

  it("measures the snapshot's overlay: shadowed entries = the pre-run's rewritten keys", () => {
    const t = truth("besu-snapshot").instances["database"]!.columnFamilies;
    const overlay = of(pair, "placement-overlay").filter((f) => f.arm === "subject");
    const warned = overlay.filter((f) => f.severity === "warn").map(cfName);
    for (const cf of ["cf06", "cf08", "cf09"]) expect(warned).toContain(cf);
    for (const f of overlay) {
      const hex = cfName(f)!.slice(2);
      const e = f.evidence as {
        bytesAboveBottom: number;
        bytesInBottom: number;
        shadowedEntriesEstimate: { value: number; low: number; high: number };
        compactCommand: string;
      };
      expect(e.bytesAboveBottom).toBeGreaterThan(0);
      expect(e.bytesInBottom).toBeGreaterThan(0);
      // pre-run rewrote keys that the bulk load had written (cf01/0a: new keys only)
      const rewritten = ["01", "0a"].includes(hex) ? 0 : t[hex]!.keysWritten["pre-run"];
      expect(e.shadowedEntriesEstimate.value).toBe(rewritten);
      expect(e.compactCommand).toBe(`lsmscope compact ${snapshot} --cf ${hex} --yes`);
    }
    // the reference arm is all in its bottom level: nothing to report
    expect(of(pair, "placement-overlay").filter((f) => f.arm === "reference")).toHaveLength(0);
  });

  it("reports no mismatch against an exact copy of itself", async () => {
    const dir = tempDir("lsmscope-check-");
    try {
      const copy = join(dir, "copy");
      cpSync(snapshot, copy, { recursive: true });
      const r = await runCheck(snapshot, { against: copy });
      for (const rule of ["options-mismatch", "code-population"]) expect(of(r, rule)).toHaveLength(0);
      expect(r.findings.filter((f) => f.arm === "both")).toHaveLength(0);
      expect(r.counts.error).toBe(0);
      // the same per-arm findings on both sides
      const sides = (arm: string) =>
        r.findings
          .filter((f) => f.arm === arm)
          .map((f) => `${f.rule}|${f.cf}|${JSON.stringify(f.evidence.shadowedEntriesEstimate ?? null)}`)
          .sort();
      expect(sides("reference")).toEqual(sides("subject"));
    } finally {
      removeDir(dir);
    }
  });
});

describe("check output", () => {
  it("pairs a datadir with a bare store directory of the same client; the table names the compact commands", async () => {
    const r = await runCheck(snapshot, { against: join(snapshot, "database") });
    expect(r.findings.filter((f) => f.arm === "both")).toHaveLength(0);
    const table = renderTable(r, exitCodeFor(r), 120);
    expect(table).toMatch(/^SEV\s+RULE\s+ARM\s+WHERE\s+FINDING/);
    // one command per store, every CF with an overlay in it (lines wrap at the width)
    const flat = table.replace(/\s+/g, " ");
    expect(flat).toContain(`lsmscope compact ${snapshot} --cf 06 --cf 08 --cf 09 --cf 0b --yes`);
    expect(flat).toContain(
      `lsmscope compact ${join(snapshot, "database")} --cf 06 --cf 08 --cf 09 --cf 0b --yes`,
    );
    expect(flat.trimEnd().endsWith(summaryLine(r, 0).replace(/\s+/g, " "))).toBe(true);
  });
});

describe("placement-overlay on db_bench stores", () => {
  let dir: string;
  let base: string;
  beforeAll(() => {
    dir = tempDir("lsmscope-check-");
    base = join(dir, "base");
    dbBench(base, ["--benchmarks=fillseq,compact", `--num=${N}`, ...bench]);
  });
  afterAll(() => removeDir(dir));

  /** db_bench's flags for an L0 pile-up: random keys, 64 KiB memtables each flushed into L0, compactions off. */
  const PILE_UP = [
    "--benchmarks=fillrandom",
    "--value_size=20",
    "--compression_type=none",
    "--bloom_bits=10",
    "--write_buffer_size=65536",
    "--disable_auto_compactions=1",
    "--level0_slowdown_writes_trigger=100000",
    "--level0_stop_writes_trigger=100000",
  ];

  /**
   * A db_bench L0 pile-up, written once for the tests that read it: every flush overlaps every other
   * (random keys, compactions off), so an entry has every older L0 file below it.
   */
  let pile: string | undefined;
  function l0Pileup(): string {
    if (pile !== undefined) return pile;
    const db = join(dir, "l0-pile");
    dbBench(db, [...PILE_UP, "--num=40000"]);
    pile = db;
    return db;
  }

  /** A copy of the base store with a late overwrite pass of `writes` random keys in [0, keySpace), flushed. */
  function overwritten(name: string, writes: number, keySpace: number): string {
    const db = join(dir, name);
    cpSync(base, db, { recursive: true });
    dbBench(db, [
      "--use_existing_db=1",
      "--benchmarks=overwrite,flush",
      `--num=${keySpace}`,
      `--writes=${writes}`,
      "--disable_auto_compactions=1",
      "--seed=7",
      ...bench,
    ]);
    return db;
  }

  /** Half the keys above the bottom are new: 6000 random writes over twice the key space, built once. */
  let half: string | undefined;
  const halfNew = () => (half ??= overwritten("half-new", 6000, 2 * N));
  /** sst_dump's count on that store, taken once: the tests that read it never change it. */
  let halfOracle: { above: number; shadowing: number } | undefined;
  const halfNewShadowed = () => (halfOracle ??= oracleShadowed(halfNew(), N));

  it("reports nothing when every file sits in the bottom level", async () => {
    const r = await runCheck(base);
    expect(of(r, "placement-overlay")).toHaveLength(0);
  });

  it.each([500, 2000, 4000])(
    "tracks %i overwritten keys within 10%% (exact below the sample size)",
    async (k) => {
      const db = overwritten(`over-${k}`, k, N);
      const r = await runCheck(db, { overlaySample: 5000 });
      const f = of(r, "placement-overlay");
      expect(f).toHaveLength(1);
      const e = f[0]!.evidence as {
        entriesAboveBottom: number;
        exhaustive: boolean;
        shadowedEntriesEstimate: { value: number; method: string };
      };
      const oracle = oracleShadowed(db, N);
      expect(e.entriesAboveBottom).toBe(oracle.above);
      expect(e.exhaustive).toBe(true);
      expect(e.shadowedEntriesEstimate.value).toBe(oracle.shadowing);
      expect(Math.abs(e.shadowedEntriesEstimate.value - k) / k).toBeLessThanOrEqual(0.1);
      expect(f[0]!.severity).toBe("warn");
    },
  );

  it("samples: the Wilson interval holds the true count when half the keys above are new", async () => {
    const db = halfNew();
    const oracle = halfNewShadowed();
    expect(oracle.shadowing).toBeGreaterThan(oracle.above * 0.3);
    expect(oracle.shadowing).toBeLessThan(oracle.above * 0.7);
    // a scan limit given: every entry above is read and a uniform sample of them checked
    const r = await runCheck(db, { overlaySample: 600, overlayScanLimitBytes: 2 ** 40 });
    const e = of(r, "placement-overlay")[0]!.evidence as {
      sampled: number;
      exhaustive: boolean;
      shadowedEntriesEstimate: { value: number; low: number; high: number; method: string };
    };
    expect(e.sampled).toBe(600);
    expect(e.exhaustive).toBe(false);
    expect(e.shadowedEntriesEstimate.method).toBe("wilson");
    expect(e.shadowedEntriesEstimate.low).toBeLessThanOrEqual(oracle.shadowing);
    expect(e.shadowedEntriesEstimate.high).toBeGreaterThanOrEqual(oracle.shadowing);
    expect(Math.abs(e.shadowedEntriesEstimate.value - oracle.shadowing) / oracle.shadowing).toBeLessThan(0.1);
  });

  it("block sampling (beyond the scan limit): the ratio interval holds the true count", async () => {
    const db = halfNew();
    const oracle = halfNewShadowed();
    const r = await runCheck(db, { overlaySample: 600, overlayScanLimitBytes: 0 });
    const e = of(r, "placement-overlay")[0]!.evidence as {
      sampling: string;
      entriesAboveBottom: number;
      shadowedEntriesEstimate: { value: number; low: number; high: number; method: string };
    };
    expect(e.sampling).toBe("blocks");
    expect(e.entriesAboveBottom).toBe(oracle.above);
    expect(e.shadowedEntriesEstimate.method).toBe("ratio");
    expect(e.shadowedEntriesEstimate.low).toBeLessThanOrEqual(oracle.shadowing);
    expect(e.shadowedEntriesEstimate.high).toBeGreaterThanOrEqual(oracle.shadowing);
  });

  it("95% intervals cover the true count in about 95% of seeds (scan and block sampling)", async () => {
    const db = halfNew();
    const oracle = halfNewShadowed();
    const { inst, cf } = await firstColumnFamily(db);
    // every entry scanned (a limit above the bytes there), and blocks drawn (0; also the default here).
    // Half the keys above are new and the new ones sit together in key order (the overwrite pass
    // wrote keys up to twice the key space), so whole blocks shadow or not: the blocks' variance must
    // widen the interval to the one a few hundred single entries would give
    for (const scanLimitBytes of [2 ** 40, 0]) {
      let covered = 0;
      const seeds = 40;
      for (let seed = 1; seed <= seeds; seed++) {
        const m = measureOverlay(inst, cf, { sample: 300, seed, scanLimitBytes })!;
        const est = m.shadowedEntriesEstimate;
        if (est.low <= oracle.shadowing && oracle.shadowing <= est.high) covered++;
      }
      // P(X <= 33 | n = 40, p = 0.95) < 1%: fewer coverings would mean the interval is too narrow
      expect(covered).toBeGreaterThanOrEqual(34);
    }
  });

  /** A multi-level fillrandom store (obsolete versions spread over the key space), built once. */
  let randomDb: string | undefined;
  const randomStore = () => {
    if (randomDb) return randomDb;
    randomDb = join(dir, "random");
    dbBench(randomDb, [
      "--benchmarks=fillrandom",
      "--num=100000",
      "--value_size=100",
      "--compression_type=lz4",
      "--bloom_bits=10",
      "--target_file_size_base=262144",
      "--write_buffer_size=524288",
      "--max_bytes_for_level_base=2097152",
    ]);
    return randomDb;
  };
  /**
   * sst_dump's obsolete entries in that store, counted once (a process per table: ~2 s): the tests
   * only read the store (the damaged one is a copy), so a second count gives the same number.
   */
  let randomObsolete: number | undefined;
  const randomStoreObsolete = () => (randomObsolete ??= oracleObsolete(randomStore()));

  it("multi-level fillrandom store: obsolete entries = sst_dump's entries − distinct keys (exact and sampled)", async () => {
    const db = randomStore();
    const obsolete = randomStoreObsolete();
    expect(obsolete).toBeGreaterThan(1000);
    const exact = of(
      await runCheck(db, { overlaySample: 1_000_000, overlayLookupBudget: 10_000_000 }),
      "placement-overlay",
    )[0]!.evidence as {
      perLevel: unknown[];
      shadowedEntriesEstimate: { value: number; method: string };
    };
    // two levels at least (db_bench's background compactions decide whether L0 still holds files at
    // the end, so a third level is not always there)
    expect(exact.perLevel.length).toBeGreaterThanOrEqual(2);
    expect(exact.shadowedEntriesEstimate.method).toBe("exact");
    expect(exact.shadowedEntriesEstimate.value).toBe(obsolete);
    // the default sample: one seed's estimate may miss by more than 10% now and then (the coverage
    // test above checks the intervals), so the median of five seeds is judged
    const estimates: number[] = [];
    for (const seed of [1, 2, 3, 4, 5]) {
      const e = of(await runCheck(db, { seed }), "placement-overlay")[0]!.evidence
        .shadowedEntriesEstimate as {
        value: number;
      };
      estimates.push(e.value);
    }
    const median = estimates.sort((a, b) => a - b)[2]!;
    expect(Math.abs(median - obsolete) / obsolete).toBeLessThan(0.1);
  });

  it("block sampling, every block drawn: the merge passes and point lookups count sst_dump's obsolete entries", async () => {
    const db = randomStore();
    const obsolete = randomStoreObsolete();
    const { inst, cf } = await firstColumnFamily(db);
    // a sample larger than the entries above with block sampling forced: every block is drawn whole,
    // so the ratio estimate is the exact share (each key answered by a merge pass or a point lookup)
    const m = measureOverlay(inst, cf, { sample: 10_000_000, scanLimitBytes: 0, lookupBudget: 100_000_000 })!;
    expect(m.sampling).toBe("blocks");
    // every entry of the tables a table below overlaps (the others cannot shadow and are not read)
    expect(m.sampled).toBeGreaterThan(0);
    expect(m.sampled).toBeLessThanOrEqual(m.entriesAboveBottom);
    expect(m.shadowedEntriesEstimate.value).toBe(obsolete);
    // the passes read fewer blocks than one per key looked up (point lookups read ~1 each; measured
    // ~0.17 here)
    expect(m.lookups.dataBlocksRead).toBeLessThan(m.lookups.tablesConsulted / 2);
  });

  it("block sampling is unbiased and its 95% interval covers sst_dump's count over seeds", async () => {
    const db = randomStore();
    const obsolete = randomStoreObsolete();
    const { inst, cf } = await firstColumnFamily(db);
    const seeds = 40;
    const values: number[] = [];
    let covered = 0;
    for (let seed = 1; seed <= seeds; seed++) {
      // the default path: more data blocks above than the first stage draws
      const m = measureOverlay(inst, cf, { seed, sample: 2000 })!;
      expect(m.sampling).toBe("blocks");
      expect(m.sampled).toBeLessThan(m.entriesAboveBottom);
      const est = m.shadowedEntriesEstimate;
      values.push(est.value);
      if (est.low <= obsolete && obsolete <= est.high) covered++;
    }
    // an honest 95% interval covers 33 or fewer times in 40 with probability 0.3%; a biased or too
    // narrow one fails it every time
    expect(covered).toBeGreaterThanOrEqual(34);
    // unbiased: the mean of the seeds' estimates within 3 standard errors of the count
    const mean = values.reduce((a, v) => a + v, 0) / seeds;
    const sd = Math.sqrt(values.reduce((a, v) => a + (v - mean) ** 2, 0) / (seeds - 1));
    expect(Math.abs(mean - obsolete)).toBeLessThanOrEqual((3 * sd) / Math.sqrt(seeds) + 1);
  });

  it("block sampling over a damaged table below: the table is named, never a silent count", async () => {
    const db = join(dir, "random-damaged");
    cpSync(randomStore(), db, { recursive: true });
    const { inst, cf } = await firstColumnFamily(db);
    const deepest = cf.levels.filter((l) => l.files.length > 0).at(-1)!;
    const victim = deepest.files[0]!;
    // one byte flipped a third of the way in: inside a data block (its checksum no longer matches)
    const bytes = readFileSync(victim.path);
    const at = Math.floor(bytes.length / 3);
    bytes[at] = bytes[at]! ^ 0xff;
    writeFileSync(victim.path, bytes);
    // every block above drawn: the passes over the victim's range meet the flipped block
    const m = measureOverlay(inst, cf, { sample: 10_000_000, scanLimitBytes: 0, lookupBudget: 100_000_000 })!;
    expect(m.sampling).toBe("blocks");
    expect(m.skippedFiles.map((f) => f.file)).toContain(victim.fileName);
    expect(m.unresolved).toBeGreaterThan(0);
    expect(m.exhaustive).toBe(false);
  });

  it("block sampling on tables no table below overlaps: exactly none shadows, nothing read", async () => {
    // fillseq: every flush holds keys past the ones before, so no L0 file overlaps an older one
    const db = join(dir, "seq-l0");
    dbBench(db, ["--benchmarks=fillseq", `--num=${3 * N}`, "--disable_auto_compactions=1", ...bench]);
    const { inst, cf } = await firstColumnFamily(db);
    // ~8 MB through 1 MiB memtables: several flushes (how many is db_bench's to say)
    expect(cf.levels[0]!.files.length).toBeGreaterThanOrEqual(2);
    const m = measureOverlay(inst, cf, { sample: 10, scanLimitBytes: 0 })!;
    expect(m.sampling).toBe("blocks");
    expect(m.exhaustive).toBe(true);
    expect(m.shadowedEntriesEstimate).toMatchObject({ value: 0, low: 0, high: 0, method: "exact" });
    expect(m.lookups.tablesConsulted).toBe(0);
    expect(oracleObsolete(db)).toBe(0);
  });

  it("everything in L0: the newer L0 files overlay the oldest one", async () => {
    const db = join(dir, "l0-only");
    dbBench(db, ["--benchmarks=fillseq", `--num=${N}`, "--disable_auto_compactions=1", ...bench]);
    const flat = await runCheck(db);
    // fillseq's flushes hold disjoint key ranges: files above, nothing shadowed
    expect(of(flat, "placement-overlay").every((f) => f.severity === "info")).toBe(true);
    dbBench(db, [
      "--use_existing_db=1",
      "--benchmarks=overwrite,flush",
      `--num=${N}`,
      "--writes=2000",
      "--disable_auto_compactions=1",
      "--seed=7",
      ...bench,
    ]);
    const r = await runCheck(db, { overlaySample: 50_000 });
    const f = of(r, "placement-overlay")[0]!;
    expect(f.evidence.oldestL0AsBottom).toBe(true);
    expect((f.evidence.shadowedEntriesEstimate as { value: number }).value).toBe(oracleObsolete(db));
    expect(f.severity).toBe("warn");
  });

  it("an L0 pile-up: lookups stay within the budget, fewer entries checked, the interval holds", async () => {
    const db = l0Pileup();
    const r = await runCheck(db, { overlayLookupBudget: 4000 });
    const e = of(r, "placement-overlay")[0]!.evidence as {
      filesAboveBottom: number;
      sampled: number;
      droppedForLookupBudget: number;
      lookups: { tablesConsulted: number };
      shadowedEntriesEstimate: { low: number; high: number; method: string };
    };
    expect(e.filesAboveBottom).toBeGreaterThan(20);
    expect(e.lookups.tablesConsulted).toBeLessThanOrEqual(4000);
    // one column family takes the store's whole budget
    expect((e as unknown as { lookupBudget: number }).lookupBudget).toBe(4000);
    expect(e.droppedForLookupBudget).toBeGreaterThan(0);
    expect(e.sampled).toBeGreaterThan(50);
    expect(e.shadowedEntriesEstimate.method).not.toBe("exact");
    // db_bench's flushes land differently from run to run (so does the truth), and a 95% interval
    // misses 1 time in 20 (measured: 1 of 20 db_bench seeds), so one interval proves nothing either
    // way. Ten sampling seeds over this store: at least 7 must cover the truth (an honest 95%
    // interval fails that about 1 time in 1,000; a biased one fails it every time).
    const obsolete = oracleObsolete(db);
    let covered = 0;
    for (let seed = 1; seed <= 10; seed++) {
      const s = await runCheck(db, { overlayLookupBudget: 4000, seed });
      const est = (of(s, "placement-overlay")[0]!.evidence as typeof e).shadowedEntriesEstimate;
      if (est.low <= obsolete && obsolete <= est.high) covered++;
    }
    expect(covered).toBeGreaterThanOrEqual(7);
  });

  it("three column families piled up in L0 share one lookup budget: each its share, the store within it", async () => {
    // db_bench spreads its writes over three column families, each flushed into L0 with compactions off
    const db = join(dir, "l0-pile-3cf");
    dbBench(db, [...PILE_UP, "--num=120000", "--num_column_families=3"]);
    const budget = 12_000;
    const arm = await loadArm(db, "subject");
    const inst = arm.model.instances[0]!;
    const cfs = inst.columnFamilies.filter((c) => c.totals.files > 0);
    expect(cfs).toHaveLength(3);
    const demands = cfs.map((cf) => overlayLookupDemand(cf));
    // every column family alone would take the whole budget
    for (const d of demands) expect(d).toBeGreaterThan(budget);
    const share = sharedLookupBudget(budget, demands);
    expect(share).toBe(budget / 3);
    const r = await runCheck(db, { overlayLookupBudget: budget });
    const found = of(r, "placement-overlay");
    expect(found).toHaveLength(3);
    let consulted = 0;
    for (const f of found) {
      const e = f.evidence as {
        lookupBudget: number;
        lookups: { tablesConsulted: number };
        sampled: number;
        shadowedEntriesEstimate: unknown;
      };
      expect(e.lookupBudget).toBe(share);
      expect(e.lookups.tablesConsulted).toBeLessThanOrEqual(share);
      expect(e.sampled).toBeGreaterThan(0);
      consulted += e.lookups.tablesConsulted;
      // the figures are the column family's measurement under its share
      const cf = cfs.find((c) => c.displayName === f.cf)!;
      const m = measureOverlay(inst, cf, { lookupBudget: share, filters: arm.filters })!;
      expect(e.lookups).toEqual(m.lookups);
      expect(e.shadowedEntriesEstimate).toEqual(m.shadowedEntriesEstimate);
    }
    expect(consulted).toBeLessThanOrEqual(budget);
    expect(consulted).toBeGreaterThan(budget / 2);
  });

  it("sharedLookupBudget: the whole budget while the demands fit, else the level they share", () => {
    expect(sharedLookupBudget(1000, [])).toBe(1000);
    expect(sharedLookupBudget(1000, [0, 0])).toBe(1000);
    expect(sharedLookupBudget(1000, [400, 600])).toBe(1000);
    expect(sharedLookupBudget(1000, [5000])).toBe(1000);
    // one wants little: it keeps that, the two others share the rest
    expect(sharedLookupBudget(1000, [100, 5000, 5000])).toBe(450);
    expect(sharedLookupBudget(1000, [5000, 100, 5000])).toBe(450);
    expect(sharedLookupBudget(1000, [3000, 3000, 3000, 3000])).toBe(250);
    // never nothing
    expect(sharedLookupBudget(2, [10, 10, 10])).toBe(1);
  });

  it("an L0 pile-up: the filters kept by the model read rule tables out, and the figures are the same", async () => {
    const db = l0Pileup();
    const arm = await loadArm(db, "subject");
    const inst = arm.model.instances[0]!;
    const cf = inst.columnFamilies.find((c) => c.name === "default")!;
    const filters = arm.filters!;
    // every table's filter was kept as the model was read (db_bench's tiny tables, full filters)
    const files = cf.levels.flatMap((l) => l.files);
    expect(files.length).toBeGreaterThan(10);
    for (const f of files) expect(filters.get(f.path)).toBeDefined();
    let asked = 0;
    const counted = Object.create(filters) as typeof filters;
    counted.get = (path: string) => {
      asked++;
      return filters.get(path);
    };
    for (const seed of [1, 2, 3]) {
      const opts = { lookupBudget: 4000, seed };
      const without = measureOverlay(inst, cf, opts);
      const kept = measureOverlay(inst, cf, { ...opts, filters: counted });
      expect(kept).toEqual(without);
      // the budget binds (as in the test above): the lookups below are lookUpBelow's
      expect(without!.droppedForLookupBudget).toBeGreaterThan(0);
      expect(without!.lookups.filterRejections).toBeGreaterThan(0);
    }
    expect(asked).toBeGreaterThan(0);
  });

  it("format-mix and options-drift when a reopen with another compression adds files", async () => {
    const db = join(dir, "mixed");
    cpSync(base, db, { recursive: true });
    dbBench(db, [
      "--use_existing_db=1",
      "--benchmarks=overwrite,flush",
      `--num=${N}`,
      "--writes=1000",
      "--disable_auto_compactions=1",
      ...bench.filter((a) => !a.startsWith("--compression_type")),
      "--compression_type=snappy",
    ]);
    const r = await runCheck(db);
    const mix = of(r, "format-mix");
    expect(mix).toHaveLength(1);
    expect(mix[0]!.severity).toBe("warn");
    const comp = mix[0]!.evidence.compression as { value: string; files: number }[];
    expect(comp.map((c) => c.value).sort()).toEqual(["NoCompression", "Snappy"]);
    const drift = of(r, "options-drift");
    expect(drift).toHaveLength(1);
    const ds = drift[0]!.evidence.disagreements as { knob: string; carried: string; level?: number }[];
    expect(ds.some((d) => d.knob === "compression" && d.level === 1 && /NoCompression/.test(d.carried))).toBe(
      true,
    );
  });

  it("options-mismatch names the knob that differs between two db_bench arms", async () => {
    const snappy = join(dir, "snappy");
    dbBench(snappy, [
      "--benchmarks=fillseq,compact",
      `--num=${N}`,
      ...bench.filter((a) => !a.startsWith("--compression_type")),
      "--compression_type=snappy",
    ]);
    const r = await runCheck(base, { against: snappy });
    const m = of(r, "options-mismatch");
    expect(m).toHaveLength(1);
    expect(m[0]!.severity).toBe("error");
    expect(m[0]!.evidence.knobs).toContain("compression");
    expect(m[0]!.message).toMatch(/compression NoCompression vs Snappy/);
  });
});

describe("check CLI", () => {
  let dir: string;
  beforeAll(() => {
    dir = tempDir("lsmscope-check-cli-");
  });
  afterAll(() => removeDir(dir));

  it("exit 3 with one clear line when an arm is missing", () => {
    const r = cli([snapshot, "--against", join(dir, "nope")]);
    expect(r.status).toBe(3);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toMatch(/REF_DIR: no such file or directory \(ENOENT\)/);
  });

  it("exit 3 when the arms hold different clients", () => {
    const db = join(dir, "generic");
    dbBench(db, ["--benchmarks=fillseq", "--num=1000", ...bench]);
    const r = cli([snapshot, "--against", db]);
    expect(r.status).toBe(3);
    expect(r.stderr).toMatch(/different clients: DIR is besu, REF_DIR is generic/);
  });

  it("a Pebble store is checked like any other; exit 3 only when it cannot be read", () => {
    const readable = join(REPO, "test", "fixtures", "pebble", "stores", "find-db");
    const ok = cli([readable]);
    expect(ok.status).toBe(0);
    expect(ok.stdout).toMatch(/filters-missing/);
    const p = join(dir, "pebble");
    mkdirSync(p);
    writeFileSync(join(p, "CURRENT"), "MANIFEST-000001\n");
    writeFileSync(join(p, "OPTIONS-000003"), "[Version]\n  pebble_version=0.1\n");
    const r = cli([p]);
    expect(r.status).toBe(3);
    expect(r.stderr).toMatch(
      /DIR: store cannot be read: \S+\/CURRENT @ offset 0: CURRENT names MANIFEST-000001, which does not exist/,
    );
    expect(r.stderr).not.toMatch(/\n\s+at /);
    const m = join(dir, "pebble-marker", "geth", "chaindata");
    mkdirSync(m, { recursive: true });
    writeFileSync(join(m, "marker.manifest.000001.MANIFEST-000001"), "");
    writeFileSync(join(m, "MANIFEST-000001"), "");
    const r2 = cli([snapshot, "--against", join(dir, "pebble-marker")]);
    expect(r2.status).toBe(3);
    expect(r2.stderr).toMatch(
      /REF_DIR: store cannot be read: \S+\/geth\/chaindata\/MANIFEST-000001.*: MANIFEST holds no readable VersionEdit/,
    );
  });

  it("exit 3 on an unreadable store (CURRENT names a MANIFEST that is gone)", () => {
    const db = join(dir, "no-manifest");
    dbBench(db, ["--benchmarks=fillseq", "--num=1000", ...bench]);
    for (const f of readdirSync(db)) if (f.startsWith("MANIFEST-")) rmSync(join(db, f));
    const r = cli([db]);
    expect(r.status).toBe(3);
    // the finding names the file where reading stopped
    expect(r.stderr).toMatch(
      /DIR: store cannot be read: \S+\/CURRENT @ offset 0: CURRENT names MANIFEST-\d+, which does not exist/,
    );
  });

  it("exit codes by --fail-on; one summary line when stdout is not a terminal", () => {
    const warn = cli([snapshot]);
    expect(warn.status).toBe(0);
    expect(warn.stdout.trim().split("\n")).toHaveLength(1);
    expect(warn.stdout).toMatch(/0 errors, \d+ warnings.*placement-overlay.*exit 0/);
    expect(cli([snapshot, "--fail-on", "warn"]).status).toBe(1);
    expect(cli([snapshot, "--against", generated]).status).toBe(2);
  });

  it("--json has the findings; --report writes the JSON outside the datadir and nothing inside it", () => {
    const before = snapshotTree(snapshot);
    const beforeRef = snapshotTree(generated);
    const report = join(dir, "report.json");
    const r = cli([snapshot, "--against", generated, "--json", "--report", report]);
    expect(r.status).toBe(2);
    const printed = JSON.parse(r.stdout) as { findings: CheckFinding[] };
    const written = JSON.parse(readFileSync(report, "utf8")) as { findings: CheckFinding[] };
    expect(written.findings).toEqual(printed.findings);
    const overlay = printed.findings.find((f) => f.rule === "placement-overlay" && f.severity === "warn")!;
    expect(Object.keys(overlay.evidence)).toEqual(
      expect.arrayContaining(["bytesAboveBottom", "bytesInBottom", "shadowedEntriesEstimate"]),
    );
    for (const f of printed.findings)
      expect(Object.keys(f)).toEqual(
        expect.arrayContaining(["rule", "severity", "instance", "cf", "message", "evidence"]),
      );

    const inside = join(snapshot, "database", "report.json");
    const refused = cli([snapshot, "--report", inside]);
    expect(refused.status).toBe(3);
    expect(refused.stderr).toMatch(/refusing to write the report inside the datadir/);
    expect(existsSync(inside)).toBe(false);
    expect(snapshotTree(snapshot)).toEqual(before);
    expect(snapshotTree(generated)).toEqual(beforeRef);
  });

  it("--help documents the exit codes and the rules", () => {
    const r = spawnSync(process.execPath, [bin, "check", "--help"], { encoding: "utf8" });
    expect(r.stdout).toMatch(/Exit codes:/);
    for (const id of [
      "filters-missing",
      "options-mismatch",
      "options-drift",
      "placement-overlay",
      "wal-unflushed",
      "wal-inert",
      "blob-files",
      "code-population",
      "format-mix",
    ])
      expect(r.stdout).toContain(id);
  });
});

describe("wilson", () => {
  it("matches the textbook values", () => {
    const [low, high] = wilson(5 / 10, 10);
    expect(low).toBeCloseTo(0.2366, 3);
    expect(high).toBeCloseTo(0.7634, 3);
    const [zLow, zHigh] = wilson(0, 10);
    expect(zLow).toBe(0);
    expect(zHigh).toBeCloseTo(0.2775, 3);
  });
});
