/**
 * The `compact` command end to end (built binary): plan mode writes nothing, a refusal is one line with
 * exit 2, Ctrl-C during the run cancels the manual compaction and leaves a valid store with the same
 * digest; and the free-disk refusal on a real small filesystem (tmpfs, when this process may mount).
 */
import { afterAll, describe, expect, it } from "vitest";
import { spawn, spawnSync } from "node:child_process";
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as engine from "../../src/engine/index.js";
import { digestStore, planCompaction } from "../../src/compact/index.js";
import { findOptionsFiles } from "../../src/datadir/options_file.js";
import { cleanupTemps, copySample, SAMPLES, snapshotTree, tempDir, writeOverlayStore } from "./helpers.js";

afterAll(cleanupTemps);

const BIN = join(import.meta.dirname, "..", "..", "bin", "lsmscope.js");
const available = engine.engineAvailable();

function cli(args: string[]) {
  return spawnSync(process.execPath, [BIN, ...args], { encoding: "utf8" });
}

function canMountTmpfs(): boolean {
  if (process.getuid?.() !== 0) return false;
  const d = join(tempDir(), "probe");
  mkdirSync(d);
  const ok = spawnSync("mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", d]).status === 0;
  if (ok) spawnSync("umount", [d]);
  return ok;
}

describe.skipIf(!available)("compact command", () => {
  it("plan mode prints the plan, exits 0 and writes nothing; --json gives the plan object", () => {
    const root = copySample("besu-snapshot");
    const snap = snapshotTree(root);
    const r = cli(["compact", root]);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("cf06 ACCOUNT_INFO_STATE → L6");
    // 80 columns off a terminal: the knob table's cells wrap under their column
    expect(r.stdout.replace(/\s+/g, " ")).toMatch(
      /filter-bits 10\.\d\d bits\/key ×1, 10\.\d\d bits\/key ×1 10 bits\/key \[exact size\]/,
    );
    expect(r.stdout).toContain("estimated duration: ~");
    expect(r.stdout).toContain("ready: run again with --yes");
    const j = cli(["compact", root, "--json", "--cf", "cf08"]);
    const plan = JSON.parse(j.stdout) as { columnFamilies: { displayName: string }[]; untouched: string[] };
    expect(plan.columnFamilies.map((c) => c.displayName)).toEqual(["cf08 ACCOUNT_STORAGE_STORAGE"]);
    expect(plan.untouched).toHaveLength(7);
    expect(snapshotTree(root)).toEqual(snap);
  });

  it("besu-generated (each CF one bottom-level file, as intended): nothing to do, exit 0, nothing written; --force rewrites", () => {
    const root = copySample("besu-generated");
    const snap = snapshotTree(root);
    const r = cli(["compact", root]);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(
      "cf06 ACCOUNT_INFO_STATE → L6  (nothing to do: all in L6 with the intended knobs)",
    );
    expect(r.stdout).toMatch(/\nnothing to do: every column family sits in its bottom level [^]*\n$/);
    expect(r.stdout).not.toContain("ready: run again");
    const j = JSON.parse(cli(["compact", root, "--json"]).stdout) as {
      nothingToDo: boolean;
      columnFamilies: { nothingToDo: boolean; compact: boolean }[];
    };
    expect(j.nothingToDo).toBe(true);
    expect(j.columnFamilies.every((c) => c.nothingToDo && !c.compact)).toBe(true);
    const y = cli(["compact", root, "--yes"]);
    expect(y.status).toBe(0);
    expect(y.stdout).toContain("nothing to do:");
    expect(y.stderr).toBe("");
    expect(snapshotTree(root)).toEqual(snap);
    const f = cli(["compact", root, "--yes", "--force"]);
    expect(f.status).toBe(0);
    expect(f.stdout.replace(/\s+/g, " ")).toContain(
      "(already all in L6 with the intended knobs; rewritten: --force)",
    );
    expect(f.stdout).toMatch(/run: done/);
    expect(f.stdout).toContain("verification: OK");
    expect(f.stdout).not.toMatch(/cancelled/);
    expect(snapshotTree(root)).not.toEqual(snap);
  });

  it("--yes with an option change: one line, exit 2, nothing written", () => {
    const root = copySample("besu-snapshot");
    const store = join(root, "database");
    const p = join(store, findOptionsFiles(store).newest!);
    writeFileSync(
      p,
      readFileSync(p, "latin1").replace(/compression=kLZ4Compression/g, "compression=kSnappyCompression"),
      "latin1",
    );
    const snap = snapshotTree(root);
    const r = cli(["compact", root, "--yes"]);
    expect(r.status).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toMatch(
      /refused: .*compression would change: files carry LZ4 ×\d+, the store's OPTIONS gives Snappy/,
    );
    expect(snapshotTree(root)).toEqual(snap);
  });

  it("Ctrl-C during the run cancels the manual compaction; the store stays valid with the same digest", async () => {
    const store = join(tempDir(), "big");
    writeOverlayStore(store, 60_000);
    const d0 = await digestStore(store);
    const child = spawn(process.execPath, [BIN, "compact", store, "--yes"], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    let stdout = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    const code = await new Promise<number | null>((resolve) => {
      child.stderr.on("data", (d: Buffer) => {
        const first = !stderr.includes("compacting:");
        stderr += d.toString();
        if (first && stderr.includes("compacting:")) child.kill("SIGINT");
      });
      child.once("exit", (c) => resolve(c));
    });
    expect(stderr).toContain("cancelling the manual compaction");
    expect(code).toBe(130);
    expect(stdout).toMatch(/run: cancelled/);
    const ro = engine.openDb(store, { readOnly: true, useLatestOptionsFile: true });
    ro.close();
    const d1 = await digestStore(store);
    expect(d1.columnFamilies.map((c) => c.sha256)).toEqual(d0.columnFamilies.map((c) => c.sha256));
  });

  it.skipIf(!canMountTmpfs())("too little free disk (a 3 MiB tmpfs): refused, nothing written", async () => {
    const mnt = join(tempDir(), "small");
    mkdirSync(mnt);
    expect(spawnSync("mount", ["-t", "tmpfs", "-o", "size=3m", "tmpfs", mnt]).status).toBe(0);
    try {
      const root = join(mnt, "besu");
      cpSync(join(SAMPLES, "besu-snapshot"), root, { recursive: true });
      const snap = snapshotTree(root);
      const plan = await planCompaction(root);
      const r = plan.refusals.find((x) => x.code === "disk-space");
      expect(r?.message).toMatch(/free disk .* is below the .* the rewrite needs/);
      expect(plan.disk.free).toBeLessThan(3 * 1024 * 1024);
      const c = cli(["compact", root, "--yes"]);
      expect(c.status).toBe(2);
      expect(c.stderr).toMatch(/refused: free disk/);
      expect(snapshotTree(root)).toEqual(snap);
    } finally {
      spawnSync("umount", [mnt]);
      rmSync(mnt, { recursive: true, force: true });
    }
  });
});
