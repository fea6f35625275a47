/**
 * `compact` on real stores (copies of the committed samples, stores written by the engine), against
 * oracles: `ldb scan --hex` dumps (RocksDB's own iterator, blobs resolved) before and after, the check
 * command's placement-overlay rule, and snapshots of the directory for "nothing written".
 */
import { afterAll, describe, expect, it } from "vitest";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import * as engine from "../../src/engine/index.js";
import {
  CompactRefusedError,
  compactStore,
  digestStore,
  planCompaction,
  renderPlanText,
} from "../../src/compact/index.js";
import { findOptionsFiles } from "../../src/datadir/options_file.js";
import { runCheck } from "../../src/check/index.js";
import {
  cleanupTemps,
  copySample,
  digestOfLdbScan,
  ldbScanAll,
  snapshotTree,
  tempDir,
  writeOverlayStore,
} from "./helpers.js";

afterAll(cleanupTemps);

const available = engine.engineAvailable();

function newestOptions(store: string): string {
  return join(store, findOptionsFiles(store).newest!);
}

function editOptions(store: string, from: RegExp, to: string): void {
  const p = newestOptions(store);
  const text = readFileSync(p, "latin1");
  expect(text).toMatch(from);
  writeFileSync(p, text.replace(new RegExp(from.source, "g"), to), "latin1");
}

describe.skipIf(!available)("compact", () => {
  it("besu-snapshot copy: plan, run, verify; ldb scans identical; check finds no placement overlay", async () => {
    const root = copySample("besu-snapshot");
    const store = join(root, "database");
    const scansBefore = ldbScanAll(store);

    // the pure-TS digest (SSTs + WAL + blob files) agrees with RocksDB's own iterator via ldb
    const d0 = await digestStore(root);
    for (const cf of d0.columnFamilies) {
      const oracle = digestOfLdbScan(scansBefore.get(cf.cf)!);
      expect({ cf: cf.displayName, keys: cf.keys, sha: cf.sha256 }).toEqual({
        cf: cf.displayName,
        keys: oracle.keys,
        sha: oracle.sha256,
      });
    }
    expect(d0.columnFamilies.find((c) => c.cf === "06")!.keys).toBe(4000);
    expect(d0.columnFamilies.find((c) => c.cf === "0a")!.blobValues).toBeGreaterThan(0);

    const check0 = await runCheck(root);
    expect(check0.findings.some((f) => f.rule === "placement-overlay")).toBe(true);

    const plan = await planCompaction(root);
    expect(plan.refusals).toEqual([]);
    expect(plan.optionsSource.kind).toBe("store");
    const acc = plan.columnFamilies.find((c) => c.nameHex === "06")!;
    expect(acc.targetLevel).toBe(6);
    expect(acc.levelsBefore.filter((l) => l.files > 0).map((l) => l.level)).toEqual([0, 6]);
    expect(acc.unflushedWrites).toBe(80);
    expect(acc.changes).toEqual([]);
    const row = (k: string) => acc.knobs.find((r) => r.knob === k)!;
    expect(row("filter").intended).toBe("fastbloom");
    expect(row("compression").intended).toBe("LZ4");
    expect(row("format-version").intended).toBe("5");
    expect(row("filter-bits").how).toBe("exact size");
    expect(renderPlanText(plan)).toContain("ready: run again with --yes");
    // CODE_STORAGE sits in L6 alone with the intended knobs: left as it is
    const code = plan.columnFamilies.find((c) => c.nameHex === "07")!;
    expect([code.nothingToDo, code.compact, code.estimatedReadBytes]).toEqual([true, false, 0]);
    expect([acc.nothingToDo, acc.compact, plan.nothingToDo]).toEqual([false, true, false]);

    const progress: number[] = [];
    const out = await compactStore(root, { plan, onProgress: (p) => progress.push(p.writtenBytes) });
    expect(out.run.status).toBe("done");
    expect(out.verify.problems).toEqual([]);
    expect(out.verify.ok).toBe(true);
    for (const v of out.verify.columnFamilies) {
      expect(v.placementOk).toBe(true);
      expect(v.digestEqual).toBe(true);
      const cp = plan.columnFamilies.find((c) => c.nameHex === v.nameHex)!;
      expect(v.filesNotRewritten).toBe(cp.compact ? 0 : cp.files);
      if (v.files > 0) expect(v.levelsAfter.filter((l) => l.files > 0).map((l) => l.level)).toEqual([6]);
    }
    expect(progress.at(-1)).toBe(out.run.compactWriteBytes);
    // the plan's written-bytes estimate is within 25 % of what RocksDB reports it wrote
    expect(out.run.compactWriteBytes / plan.totals.estimatedWriteBytes).toBeGreaterThan(0.75);
    expect(out.run.compactWriteBytes / plan.totals.estimatedWriteBytes).toBeLessThan(1.25);
    expect(out.run.compactReadBytes / plan.totals.estimatedReadBytes).toBeGreaterThan(0.85);
    expect(out.run.compactReadBytes / plan.totals.estimatedReadBytes).toBeLessThan(1.15);

    // right after a successful run: nothing to do, unless forced
    const again = await planCompaction(root);
    expect(again.nothingToDo).toBe(true);
    expect(again.columnFamilies.every((c) => c.nothingToDo && !c.compact)).toBe(true);
    expect(renderPlanText(again)).toMatch(/\nnothing to do: every column family sits in its bottom level/);
    const forced = await planCompaction(root, { force: true });
    expect(forced.columnFamilies.filter((c) => !c.empty).every((c) => c.compact)).toBe(true);
    expect(renderPlanText(forced)).toContain("ready: run again with --yes");

    const scansAfter = ldbScanAll(store);
    expect([...scansAfter.keys()]).toEqual([...scansBefore.keys()]);
    for (const [cf, dump] of scansBefore)
      expect(scansAfter.get(cf) === dump, `ldb scan of CF ${cf}`).toBe(true);

    const check1 = await runCheck(root);
    expect(check1.findings.filter((f) => f.rule === "placement-overlay")).toEqual([]);
  });

  it("OPTIONS without the filter the files carry: refused, nothing written; --options-from the other arm keeps the filters", async () => {
    const root = copySample("besu-snapshot");
    const store = join(root, "database");
    editOptions(store, /filter_policy=bloomfilter:10:false/, "filter_policy=nullptr");
    const snap = snapshotTree(root);

    const plan = await planCompaction(root);
    const codes = plan.refusals.map((r) => r.code);
    expect(codes).toContain("option-change");
    expect(plan.refusals.find((r) => r.code === "option-change")!.message).toMatch(
      /filter would change: files carry fastbloom/,
    );
    await expect(compactStore(root)).rejects.toBeInstanceOf(CompactRefusedError);
    const err = await compactStore(root).catch((e: CompactRefusedError) => e);
    expect((err as CompactRefusedError).oneLine()).not.toContain("\n");
    expect(snapshotTree(root)).toEqual(snap);

    // the reference arm: the committed sample (read only), matched per CF by name; a lone OPTIONS file
    // of it gives the same plan
    const refDir = join(import.meta.dirname, "..", "..", "samples", "besu-snapshot");
    const ref = await planCompaction(root, { optionsFrom: refDir });
    const refFile = await planCompaction(root, {
      optionsFrom: join(refDir, "database", findOptionsFiles(join(refDir, "database")).newest!),
    });
    expect(refFile.refusals).toEqual([]);
    expect(refFile.columnFamilies.map((c) => c.optionString)).toEqual(
      ref.columnFamilies.map((c) => c.optionString),
    );
    expect(ref.refusals).toEqual([]);
    expect(ref.optionsSource.kind).toBe("reference");
    expect(ref.columnFamilies[1]!.optionString).toContain("filter_policy=bloomfilter:10:false");
    const out = await compactStore(root, { plan: ref });
    expect(out.verify.ok).toBe(true);
    for (const v of out.verify.columnFamilies.filter((c) => c.files > 0)) {
      const f = v.knobs.find((k) => k.knob === "filter")!;
      expect(f.carried).toBe(`fastbloom ×${v.files}`);
      expect(v.knobs.find((k) => k.knob === "filter-bits")!.differing).toBe(0);
    }
  });

  it("--accept-option-change filter: the change is applied and verified (files lose the filter)", async () => {
    const root = copySample("besu-snapshot");
    editOptions(join(root, "database"), /filter_policy=bloomfilter:10:false/, "filter_policy=nullptr");
    const plan = await planCompaction(root, { cfs: ["cf06"], acceptOptionChange: ["filter"] });
    expect(plan.refusals).toEqual([]);
    expect(plan.accepted[0]).toMatch(/cf06 .*filter fastbloom ×2 → none/);
    expect(plan.untouched.length).toBe(7);
    const out = await compactStore(root, { plan });
    expect(out.verify.ok).toBe(true);
    const v = out.verify.columnFamilies[0]!;
    expect(v.knobs.find((k) => k.knob === "filter")!.carried).toBe("none ×1");
    expect(v.digestEqual).toBe(true);
  });

  it("partition_filters without a two-level index is normalised, shown in the plan, and the run survives", async () => {
    const root = copySample("besu-snapshot");
    editOptions(join(root, "database"), /partition_filters=false/, "partition_filters=true");
    const plan = await planCompaction(root, { cfs: ["0b"] });
    expect(plan.normalisations.length).toBe(1);
    expect(plan.normalisations[0]).toMatch(
      /cf0b VARIABLES: partition_filters=true without index_type=kTwoLevelIndexSearch/,
    );
    expect(plan.columnFamilies[0]!.optionString).toBe("block_based_table_factory={partition_filters=false}");
    expect(renderPlanText(plan)).toContain("normalised: partition_filters=true");
    const out = await compactStore(root, { plan });
    expect(out.verify.ok).toBe(true);
    expect(out.verify.columnFamilies[0]!.knobs.find((k) => k.knob === "filter-partitioned")!.carried).toBe(
      "false ×1",
    );
  });

  it("Nethermind state (optimize_filters_for_hits, two-level index): filters dropped at L6 by design, not refused", async () => {
    const root = copySample("nethermind");
    const state = join(root, "nethermind_db", "mainnet", "state");
    const dump = ldbScanAll(state);
    const plan = await planCompaction(state);
    expect(plan.refusals).toEqual([]);
    const cf = plan.columnFamilies[0]!;
    expect(cf.intended.filter.why).toMatch(/optimize_filters_for_hits/);
    expect(cf.consequences.join("\n")).toMatch(
      /^filter: 3 of 7 files carry fastbloom and get none at L6, as the options prescribe for the bottom level$/,
    );
    const out = await compactStore(state, { plan });
    expect(out.verify.ok).toBe(true);
    const v = out.verify.columnFamilies[0]!;
    expect(v.knobs.find((k) => k.knob === "index-type")!.carried).toBe(`two-level ×${v.files}`);
    expect(v.knobs.find((k) => k.knob === "filter")!.carried).toBe(`none ×${v.files}`);
    const after = ldbScanAll(state);
    for (const [name, d] of dump) {
      expect(after.get(name) === d).toBe(true);
      expect(digestOfLdbScan(d).sha256).toBe(
        out.digestBefore.columnFamilies.find((c) => c.cf === name)!.sha256,
      );
    }
  });

  it("range deletions (db_bench store, L0 only): digest agrees with ldb before and after; all in L6", async () => {
    const store = join(tempDir(), "rangedel");
    execFileSync(
      "db_bench",
      [
        "--benchmarks=fillrandom",
        `--db=${store}`,
        "--num=20000",
        "--writes_per_range_tombstone=50",
        "--max_num_range_tombstones=200",
        "--range_tombstone_width=100",
        "--compression_type=lz4",
        "--value_size=50",
        "--key_size=16",
        "--write_buffer_size=262144",
        "--disable_auto_compactions=true",
      ],
      { stdio: "pipe" },
    );
    const before = ldbScanAll(store).get("64656661756c74")!;
    const d0 = await digestStore(store);
    const oracle = digestOfLdbScan(before);
    expect(oracle.keys).toBeLessThan(20000); // the tombstones hide keys
    expect(d0.columnFamilies[0]!.sha256).toBe(oracle.sha256);
    // L0 only, a third of the keys overwritten: read once (what the files and the WAL hold, the WAL at
    // the files' compression); written is less by the dropped versions, and a Ctrl-C that arrives after
    // the last compaction finished (the timer never fires: the only progress call follows the
    // compaction) cancels nothing
    const plan = await planCompaction(store);
    const abort = new AbortController();
    const out = await compactStore(store, {
      plan,
      signal: abort.signal,
      pollMs: 1e9,
      onProgress: () => abort.abort(),
    });
    expect(abort.signal.aborted).toBe(true);
    expect(out.run.status).toBe("done");
    expect(out.run.columnFamilies[0]!.status).toBe("done");
    expect(out.run.compactReadBytes / plan.totals.estimatedReadBytes).toBeGreaterThan(0.9);
    expect(out.run.compactReadBytes / plan.totals.estimatedReadBytes).toBeLessThan(1.1);
    expect(out.run.compactWriteBytes).toBeLessThanOrEqual(plan.totals.estimatedWriteBytes);
    expect(out.verify.ok).toBe(true);
    expect(out.verify.columnFamilies[0]!.levelsAfter.filter((l) => l.files > 0).map((l) => l.level)).toEqual([
      6,
    ]);
    expect(ldbScanAll(store).get("64656661756c74") === before).toBe(true);
  });

  it("format_version 6 files (RocksDB 9.7 sample): refused, nothing written", async () => {
    const root = copySample("modern");
    const snap = snapshotTree(root);
    const plan = await planCompaction(root);
    expect(plan.refusals.some((r) => r.code === "format-version" && /format_version 6/.test(r.message))).toBe(
      true,
    );
    await expect(compactStore(root, { plan })).rejects.toThrow(/format_version 6/);
    expect(snapshotTree(root)).toEqual(snap);
  });

  it("--options-from a RocksDB 9.7 store (format_version 6): refused, the engine could not write it", async () => {
    const store = join(tempDir(), "fv5");
    const db = engine.openDb(store, {
      createIfMissing: true,
      columnFamilies: [
        { name: "accounts", options: "compression=kZSTD;block_based_table_factory={format_version=5}" },
      ],
    });
    for (let i = 0; i < 100; i++) db.put("accounts", Buffer.from(`k${i}`), Buffer.from(`v${i}`));
    db.flush("accounts");
    db.close();
    const plan = await planCompaction(store, {
      cfs: ["accounts"],
      optionsFrom: join(import.meta.dirname, "..", "..", "samples", "modern"),
    });
    expect(plan.refusals.map((r) => r.code)).toContain("format-version");
    expect(plan.refusals.find((r) => r.code === "format-version")!.message).toMatch(
      /accounts: the reference options ask for format_version 6; RocksDB 7\.8\.3 writes up to 5/,
    );
  });

  it("a store held open by another process: refused from /proc/locks, nothing written", async () => {
    const root = copySample("besu-snapshot");
    const store = join(root, "database");
    const addonPath = join(import.meta.dirname, "..", "..", "build", "Release", "lsmscope_engine.node");
    const holder: ChildProcess = spawn(
      process.execPath,
      [
        "-e",
        `const e = require(${JSON.stringify(addonPath)});
         const db = new e.Db(process.argv[1], { useLatestOptionsFile: true });
         process.stdout.write("ready\\n");
         setInterval(() => {}, 1000);`,
        store,
      ],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    try {
      await new Promise<void>((resolve, reject) => {
        holder.stdout!.on("data", (d: Buffer) => d.toString().includes("ready") && resolve());
        holder.on("exit", (code) => reject(new Error(`holder exited with ${code}`)));
      });
      const snap = snapshotTree(root);
      const plan = await planCompaction(root);
      const lock = plan.refusals.find((r) => r.code === "lock-held");
      expect(lock?.message).toContain(`pid ${holder.pid}`);
      const err = await compactStore(root).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(CompactRefusedError);
      expect((err as CompactRefusedError).oneLine()).toMatch(
        /^.*: refused: the store is open in another process/,
      );
      expect(snapshotTree(root)).toEqual(snap);
    } finally {
      if (holder.exitCode === null && holder.signalCode === null) {
        const exited = new Promise((resolve) => holder.once("exit", resolve));
        holder.kill();
        await exited;
      }
    }
  });

  it("SIGKILL at random moments during compaction: the store opens and its digest is unchanged", async () => {
    const store = join(tempDir(), "big");
    writeOverlayStore(store, 60_000);
    const d0 = await digestStore(store);
    expect(d0.columnFamilies.find((c) => c.cf === "06")!.walEntries).toBe(200);
    const dist = join(import.meta.dirname, "..", "..", "dist", "src", "compact", "index.js");
    // a child that runs the whole compaction and says when RocksDB has started writing
    const child = () =>
      spawn(
        process.execPath,
        [
          "--input-type=module",
          "-e",
          `const m = await import(${JSON.stringify(dist)});
           let said = false;
           await m.compactStore(process.argv[1], { pollMs: 20, onProgress: (p) => {
             if (!said && p.writtenBytes > 0) { said = true; process.stdout.write("writing\\n"); } } });
           process.stdout.write("finished\\n");`,
          store,
        ],
        { stdio: ["ignore", "pipe", "inherit"] },
      );
    // deterministic "random" delays after the first bytes are written
    const delays = [5, 120, 40, 300];
    let killedMidway = 0;
    for (const delay of delays) {
      const p = child();
      let out = "";
      const exited = new Promise<NodeJS.Signals | null>((resolve) =>
        p.once("exit", (_c, sig) => resolve(sig)),
      );
      await new Promise<void>((resolve) => {
        p.stdout!.on("data", (d: Buffer) => {
          out += d.toString();
          if (out.includes("writing") || out.includes("finished")) resolve();
        });
        p.once("exit", () => resolve());
      });
      await new Promise((r) => setTimeout(r, delay));
      p.kill("SIGKILL");
      const sig = await exited;
      if (sig === "SIGKILL" && !out.includes("finished")) killedMidway++;
      // the store still opens (read-only, and read-write: recovery) and holds the same data
      const ro = engine.openDb(store, { readOnly: true, useLatestOptionsFile: true });
      ro.close();
      const d = await digestStore(store);
      expect(d.columnFamilies.map((c) => [c.cf, c.keys, c.sha256])).toEqual(
        d0.columnFamilies.map((c) => [c.cf, c.keys, c.sha256]),
      );
    }
    expect(killedMidway).toBeGreaterThanOrEqual(2);
    const leftovers = readdirSync(store).filter((n) => n.endsWith(".sst")).length;
    expect(leftovers).toBeGreaterThan(0);
    const out = await compactStore(store);
    expect(out.verify.ok).toBe(true);
    expect(out.digestBefore.columnFamilies.map((c) => c.sha256)).toEqual(
      d0.columnFamilies.map((c) => c.sha256),
    );
  });
});
