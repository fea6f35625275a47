/**
 * Damage surfaces in every command, on copies of a store db_bench wrote (tables, blob files, WALs): a
 * corrupt block, a MANIFEST of garbage, a table the user may not read, OS errors on path arguments.
 * Each command exits 2 with a located line or an error finding, never 0 with a normal report, never a
 * stack trace. Oracle for the damage itself: sst_dump --command=scan --verify_checksum.
 */
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { spawnSync } from "node:child_process";
import {
  chmodSync,
  cpSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { inspectDatadir } from "../../src/datadir/index.js";
import { verifyBlobRecords } from "../../src/datadir/blob_file.js";
import { runInspect } from "../../src/report/deep.js";
import * as engine from "../../src/engine/index.js";
import { computeSizes } from "../../src/sizes/compute.js";
import { CorruptionError } from "../../src/util/errors.js";
import { copyInto, dbBench, removeDir, snapshotTree, tempDir, TWO_CF_BLOB_STORE } from "./helpers.js";

const bin = new URL("../../bin/lsmscope.js", import.meta.url).pathname;
let dir: string;
let base: string;

/** A private copy of the db_bench store to damage. */
const copy = (name: string): string => copyInto(base, dir, name);
function lsm(args: string[], opts: { asNobody?: boolean } = {}) {
  const cmd = opts.asNobody
    ? ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", process.execPath, bin, ...args]
    : [process.execPath, bin, ...args];
  return spawnSync(cmd[0]!, cmd.slice(1), { encoding: "utf8", timeout: 120_000 });
}
/** The one-line error contract: exit `status`, one stderr line naming `path`, no stack trace. */
function expectOneLine(r: ReturnType<typeof lsm>, status: number, path: string, cause: RegExp) {
  expect(r.stderr).not.toMatch(/internal error|\n\s+at /);
  expect(r.status).toBe(status);
  const lines = r.stderr.trim().split("\n");
  expect(lines.at(-1)).toContain(path);
  expect(lines.at(-1)).toMatch(cause);
}
function largestTable(paths: string[]): string {
  return paths.sort((a, b) => statSync(b).size - statSync(a).size)[0]!;
}
function flip(path: string, at: number): void {
  const b = readFileSync(path);
  for (let i = 0; i < 4; i++) b[at + i]! ^= 0xa5;
  writeFileSync(path, b);
}
const canDropPrivileges = process.getuid?.() === 0 && spawnSync("setpriv", ["--version"]).status === 0;

beforeAll(() => {
  dir = tempDir("lsmscope-damage-cmd-");
  chmodSync(dir, 0o755);
  base = join(dir, "base");
  dbBench(base, TWO_CF_BLOB_STORE);
  // one more flush of overwrites in every column family, auto-compactions off: whatever layout the
  // background work left, each column family then holds a table above its bottom level (check reads
  // a column family only where one is)
  dbBench(base, [
    "--use_existing_db=1",
    "--benchmarks=overwrite,flush",
    "--num=6000",
    "--writes=600",
    "--value_size=200",
    "--num_column_families=2",
    "--disable_auto_compactions=1",
    "--compression_type=none",
    "--enable_blob_files=true",
    "--min_blob_size=150",
    "--blob_file_size=100000",
  ]);
  if (!statSync(bin, { throwIfNoEntry: false })) throw new Error("run npm run build first");
}, 120_000);
afterAll(() => removeDir(dir));

describe("corrupt blocks (4 bytes flipped every 4 KiB of the largest table, footer spared)", () => {
  let d: string;
  let table: string;
  let cf: string;
  beforeAll(async () => {
    d = copy("flip");
    // check reads a column family only where files sit above its bottom level (it looks their keys
    // up below), and db_bench's background work leaves a different shape each run: the largest table
    // of such a column family, so that every command here must meet the damage
    const m = await inspectDatadir(d);
    const layered = m.instances[0]!.columnFamilies.filter(
      (c) => c.levels.filter((l) => l.files.length > 0).length > 1 || (c.levels[0]?.files.length ?? 0) > 1,
    );
    expect(layered.length).toBeGreaterThan(0);
    table = largestTable(layered.flatMap((c) => c.levels.flatMap((l) => l.files.map((f) => f.path))));
    cf = layered.find((c) => c.levels.some((l) => l.files.some((f) => f.path === table)))!.name;
    // data blocks start at offset 0 and are ~4 KiB uncompressed: every block is hit, so any lookup
    // into the table meets one whatever level db_bench's background work left it in
    for (let at = 100; at < statSync(table).size - 64; at += 4096) flip(table, at);
  });

  it("is damage by the oracle's account (sst_dump --command=scan --verify_checksum)", () => {
    const r = spawnSync("sst_dump", [`--file=${table}`, "--command=scan", "--verify_checksum"], {
      encoding: "utf8",
    });
    expect(r.stdout + r.stderr).toMatch(/Corruption/);
  });

  it("inspect --verify: an error finding naming the table and the block's offset, exit 2", () => {
    const r = lsm(["inspect", d, "--verify", "--json"]);
    expect(r.status).toBe(2);
    const out = JSON.parse(r.stdout) as {
      findings: { code: string; file: string; offset?: number }[];
      verify: { failed: number; tables: { files: number } };
    };
    const f = out.findings.find((x) => x.code === "verify-failed")!;
    expect(f.file).toBe(table);
    expect(typeof f.offset).toBe("number");
    expect(out.verify.failed).toBe(1);
    const text = lsm(["inspect", d, "--verify"]);
    expect(text.stdout.replace(/\s+/g, " ")).toMatch(/verified: every block of \d+ tables .* 1 failed/);
  });

  it("inspect --deep says it did not read data blocks (and so stays silent about this one)", () => {
    const r = lsm(["inspect", d, "--deep"]);
    expect(r.stdout.replace(/\s+/g, " ")).toMatch(
      /data blocks, filter bits and blob records not read \(--verify reads and checks them\)/,
    );
  });

  it("sizes, probe (reader path) and check exit 2 naming the table", () => {
    expectOneLine(lsm(["sizes", d]), 2, table, /\S/);
    expectOneLine(lsm(["sizes", d, "--workers", "2"]), 2, table, /checksum mismatch/);
    const probe = lsm(["probe", d, "--cf", cf, "--keys", "present", "--count", "200"]);
    expectOneLine(probe, 2, table, /\S/);
    const check = lsm(["check", d, "--json"]);
    expect(check.status, check.stdout.slice(0, 3000)).toBe(2);
    expect(check.stdout).toContain(table.split("/").pop()!);
  });

  it("sizes --full in a worker thread only: the located CorruptionError this thread would throw", async () => {
    // a worker posts its error as plain data: a damaged block (BlockCorruptionError) came back as an
    // internal error with a stack trace (exit 70) until session 8
    const here = await computeSizes(d, { mode: "full", workers: 1 }).catch((e: unknown) => e);
    const there = await computeSizes(d, { mode: "full", workers: 1, mainThreadScans: false }).catch(
      (e: unknown) => e,
    );
    expect(here).toBeInstanceOf(CorruptionError);
    expect(there).toBeInstanceOf(CorruptionError);
    const { file, offset, message } = there as CorruptionError;
    expect(file).toBe(table);
    expect({ file, offset, message }).toEqual({
      file: (here as CorruptionError).file,
      offset: (here as CorruptionError).offset,
      message: (here as CorruptionError).message,
    });
  });

  it.skipIf(!engine.engineAvailable())(
    "compact --yes: refused by the plan or the pre-flight with exit 2, not one byte written",
    () => {
      const before = snapshotTree(d);
      const r = lsm(["compact", d, "--yes"]);
      // the pre-flight refuses over a damaged data block; where db_bench's layout puts the table's
      // properties block under one of the flips, the plan (which reads them) refuses first
      expectOneLine(r, 2, d, /refused( by the pre-flight \(nothing written\))?: .*checksum mismatch/);
      expect(snapshotTree(d)).toEqual(before);
    },
  );
});

describe("a blob file with a damaged record", () => {
  it("verifyBlobRecords reads every record of the clean files (count = footer), and fails at the damaged one", async () => {
    const d = copy("blobflip");
    const blobs = readdirSync(d).filter((n) => n.endsWith(".blob"));
    expect(blobs.length).toBeGreaterThan(2);
    const m = await inspectDatadir(d);
    const live = m.instances[0]!.columnFamilies.flatMap((c) => c.blobFiles).filter((b) => b.present);
    for (const b of live) {
      const v = verifyBlobRecords(b.path);
      expect(v.error).toBeUndefined();
      expect(v.records).toBe(b.footer?.blobCount ?? b.totalBlobCount);
    }
    const victim = live[0]!.path;
    flip(victim, 30 + 32 + 20); // inside the first record's key/value
    const r = await runInspect(d, { verify: { threads: 2 } });
    const f = r.model.findings.find((x) => x.code === "verify-failed")!;
    expect(f.file).toBe(victim);
    expect(f.offset).toBe(30);
    expect(f.message).toMatch(/blob record checksum mismatch/);
    expect(r.model.complete).toBe(false);
  });
});

describe("a MANIFEST of random bytes (CURRENT still naming it)", () => {
  let d: string;
  beforeAll(() => {
    d = copy("randmanifest");
    const cur = readFileSync(join(d, "CURRENT"), "latin1").trim();
    let x = 12345;
    const junk = Buffer.alloc(statSync(join(d, cur)).size);
    for (let i = 0; i < junk.length; i++) junk[i] = (x = (x * 1103515245 + 12345) >>> 0) >>> 24;
    writeFileSync(join(d, cur), junk);
  });

  it("inspect: error finding, no levels, no WAL called inert; exit 2", async () => {
    const m = await inspectDatadir(d);
    const inst = m.instances[0]!;
    expect(inst.readable).toBe(false);
    expect(inst.columnFamilies).toHaveLength(0);
    expect(m.findings.some((f) => f.severity === "error" && f.file.includes("MANIFEST"))).toBe(true);
    expect(inst.wal.length).toBeGreaterThan(0);
    for (const w of inst.wal) {
      expect(w.livenessUnknown).toBe(true);
      expect(w.summary).not.toMatch(/inert/);
    }
    const r = lsm(["inspect", d]);
    expect(r.status).toBe(2);
    expect(r.stdout).toMatch(/not readable: MANIFEST-\d+ does not decode/);
    expect(r.stdout).not.toMatch(/inert/);
  });

  it("sizes and probe exit 2 naming the MANIFEST, never 'empty: default'", () => {
    for (const args of [
      ["sizes", d],
      ["probe", d, "--cf", "default", "--keys", "present", "--count", "5"],
    ]) {
      const r = lsm(args);
      expectOneLine(r, 2, "MANIFEST-", /store cannot be read/);
      expect(r.stdout).not.toMatch(/empty/);
    }
  });

  it.skipIf(!engine.engineAvailable())("the compact plan is not 'ready': exit 2 naming the MANIFEST", () => {
    const r = lsm(["compact", d]);
    expectOneLine(r, 2, "MANIFEST-", /store cannot be read/);
    expect(r.stdout).not.toMatch(/ready/);
  });
});

describe("a dangling CURRENT", () => {
  it.skipIf(!engine.engineAvailable())("compact names it, refuses, writes nothing", () => {
    const d = copy("dangling");
    writeFileSync(join(d, "CURRENT"), "MANIFEST-999999\n");
    const before = snapshotTree(d);
    const r = lsm(["compact", d, "--yes"]);
    expectOneLine(r, 2, d, /dangling CURRENT: CURRENT names MANIFEST-999999/);
    expect(snapshotTree(d)).toEqual(before);
    const sizes = lsm(["sizes", d]);
    expect(sizes.status).toBe(2);
    expect(sizes.stdout.trim().split("\n").at(-1)).toMatch(/^picture incomplete: .*MANIFEST-999999/);
  });
});

describe.skipIf(!canDropPrivileges)(
  "a table the user may not read (mode 000, run as nobody via setpriv)",
  () => {
    it("check: an error finding and exit 2, never '~0 of N entries shadow'", async () => {
      const d = copy("mode000");
      spawnSync("chmod", ["-R", "a+rX", dir]);
      // a table above the bottom level, so the overlay measurement needs it
      const m = await inspectDatadir(d);
      const upper = m.instances[0]!.columnFamilies.flatMap((c) => {
        const bottom = Math.max(...c.levels.filter((l) => l.files.length > 0).map((l) => l.level));
        return c.levels.filter((l) => l.level < bottom || l.level === 0).flatMap((l) => l.files);
      }).find((f) => f.present);
      expect(upper).toBeDefined();
      const victim = upper!.path;
      chmodSync(victim, 0o000);
      const r = lsm(["check", d, "--json"], { asNobody: true });
      expect(r.status).toBe(2);
      const out = JSON.parse(r.stdout) as { findings: { severity: string; message: string }[] };
      const errs = out.findings.filter((f) => f.severity === "error");
      expect(errs.some((f) => f.message.includes(victim.split("/").pop()!))).toBe(true);
      expect(out.findings.some((f) => /^DIR: .*~0 of \d+ entries above shadow/.test(f.message))).toBe(false);
      const sizes = lsm(["sizes", d], { asNobody: true });
      expect(sizes.status).toBe(2);
    });

    it("no store found says why: a directory without read permission", () => {
      const parent = join(dir, "noperm");
      mkdirSync(join(parent, "inner"), { recursive: true });
      cpSync(base, join(parent, "inner", "db"), { recursive: true });
      chmodSync(parent, 0o755);
      chmodSync(join(parent, "inner"), 0o000);
      try {
        for (const cmd of ["sizes", "probe", "inspect"]) {
          const args =
            cmd === "probe" ? [cmd, parent, "--cf", "x", "--keys", "present", "--count", "1"] : [cmd, parent];
          const r = lsm(args, { asNobody: true });
          expect(r.status).toBe(2);
          expect(r.stdout + r.stderr).toMatch(/permission denied \(EACCES\)/);
        }
      } finally {
        chmodSync(join(parent, "inner"), 0o755);
      }
    });
  },
);

describe("OS errors on path arguments: one line naming the path and cause, never a stack trace", () => {
  let loop: string;
  let long: string;
  beforeAll(() => {
    loop = join(dir, "loop-a");
    symlinkSync(join(dir, "loop-b"), loop);
    symlinkSync(loop, join(dir, "loop-b"));
    long = join(dir, "x".repeat(300) + ".sst");
  });

  // one test per argument: a test's spawnSync calls block vitest's worker, keep each short
  it("sst FILE (a symlink loop, a 300-character name)", () => {
    expectOneLine(lsm(["sst", loop]), 2, loop, /symbolic links.*ELOOP/);
    expectOneLine(lsm(["sst", long]), 2, long, /name too long.*ENAMETOOLONG/);
  });
  it("sizes --svg FILE", () => {
    expectOneLine(lsm(["sizes", base, "--svg", loop]), 2, loop, /ELOOP/);
  });
  it("check --report FILE (exit 3: the check could not run)", () => {
    expectOneLine(lsm(["check", base, "--report", loop]), 3, loop, /ELOOP/);
  });
  it("probe --keys DIR names the directory", () => {
    const r = lsm(["probe", base, "--cf", "default", "--keys", dir, "--count", "3"]);
    expectOneLine(r, 2, dir, /is a directory.*EISDIR/);
  });
  it.each(["inspect", "sizes", "probe", "check"])("%s DIR", (cmd) => {
    const args =
      cmd === "probe" ? [cmd, loop, "--cf", "x", "--keys", "present", "--count", "1"] : [cmd, loop];
    expectOneLine(lsm(args), cmd === "check" ? 3 : 2, "loop-a", /ELOOP/);
  });

  it.skipIf(!engine.engineAvailable())("compact --options-from", () => {
    expectOneLine(lsm(["compact", base, "--options-from", loop]), 2, loop, /ELOOP/);
  });

  it("a store below the walk's depth limit: 'no store found' says the limit was hit and what to do", () => {
    const deep = join(dir, "deep");
    cpSync(base, join(deep, "a", "b", "c", "d", "e", "db"), { recursive: true });
    for (const cmd of ["sizes", "inspect"]) {
      const r = lsm([cmd, deep]);
      expect(r.status).toBe(2);
      // the finding wraps at 80 columns: match it with the lines joined
      expect((r.stdout + r.stderr).replace(/\s+/g, " ")).toMatch(
        /depth limit.*name the store directory itself/,
      );
    }
  });
});
