/**
 * Damaged stores still give a report with findings naming file and offset, and the CLI exits non-zero
 * when the picture is incomplete. Read-only: nothing in the datadir changes (content and mtime), on a
 * read-only copy and while another process holds the LOCK.
 */
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { readdirSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync, chmodSync } from "node:fs";
import { join } from "node:path";
import { inspectDatadir } from "../../src/datadir/index.js";
import { scanLogFile } from "../../src/datadir/log_reader.js";
import { copyInto, dbBench, snapshotTree, removeDir, tempDir } from "./helpers.js";

const bin = new URL("../../bin/lsmscope.js", import.meta.url).pathname;
let dir: string;
let base: string;

/** A private copy of the db_bench store to damage. */
const copy = (name: string): string => copyInto(base, dir, name);
/** The newest OPTIONS file of store `d` (the one RocksDB and lsmscope read). */
const latestOptions = (d: string): string =>
  readdirSync(d)
    .filter((n) => n.startsWith("OPTIONS-"))
    .sort()
    .pop()!;
function manifestOf(d: string): string {
  return join(d, readFileSync(join(d, "CURRENT"), "latin1").trim());
}
function cli(d: string, json = true) {
  return spawnSync(process.execPath, [bin, "inspect", d, ...(json ? ["--json"] : [])], { encoding: "utf8" });
}

beforeAll(() => {
  dir = tempDir();
  base = join(dir, "base");
  dbBench(base, [
    "--benchmarks=fillrandom",
    "--num=6000",
    "--value_size=100",
    "--num_column_families=2",
    "--write_buffer_size=65536",
    "--target_file_size_base=65536",
    "--compression_type=none",
  ]);
  // the built CLI must exist for the exit-code checks
  if (!statSync(bin, { throwIfNoEntry: false })) throw new Error("run npm run build first");
});
afterAll(() => {
  spawnSync("chmod", ["-R", "u+w", dir]);
  removeDir(dir);
});

describe("damaged stores", () => {
  it("the healthy copy is complete and exits 0", async () => {
    const m = await inspectDatadir(base);
    expect(m.complete).toBe(true);
    expect(cli(base).status).toBe(0);
  });

  it("a corrupted MANIFEST record: finding with the record's offset, nothing reported as known, exit 2", async () => {
    const d = copy("corrupt");
    const mp = manifestOf(d);
    // find the offset of the 4th record and flip a payload byte
    const offsets: number[] = [];
    scanLogFile(mp, (r) => offsets.push(r.offset));
    expect(offsets.length).toBeGreaterThan(6);
    const buf = readFileSync(mp);
    buf[offsets[3]! + 9]! ^= 0xff;
    writeFileSync(mp, buf);
    const m = await inspectDatadir(d);
    const f = m.findings.find((x) => x.code === "manifest-corrupt")!;
    expect(f.severity).toBe("error");
    expect(f.file).toBe(mp);
    expect(f.offset).toBe(offsets[3]);
    expect(m.complete).toBe(false);
    // RocksDB refuses such a MANIFEST: no levels, no files, no WAL called inert or live
    const inst = m.instances[0]!;
    expect(inst.readable).toBe(false);
    expect(inst.columnFamilies).toHaveLength(0);
    expect(m.findings.some((x) => x.code === "manifest-incomplete")).toBe(true);
    for (const w of inst.wal) {
      expect(w.livenessUnknown).toBe(true);
      expect(w.summary).not.toMatch(/inert/);
    }
    const r = cli(d);
    expect(r.status).toBe(2);
    const json = JSON.parse(r.stdout);
    expect(json.findings.some((x: { offset?: number }) => x.offset === offsets[3])).toBe(true);
  });

  it("a truncated MANIFEST: torn tail reported, edits before it applied", async () => {
    const d = copy("truncated");
    const mp = manifestOf(d);
    const size = statSync(mp).size;
    truncateSync(mp, size - 5);
    const m = await inspectDatadir(d);
    const torn = m.findings.find((x) => x.code === "manifest-torn-tail")!;
    expect(torn.file).toBe(mp);
    expect(torn.offset).toBeLessThan(size);
    // the last edit is lost: its new files are then unreferenced, or its deletions not applied
    expect(m.instances[0]!.manifest!.tornTailAt).toBe(torn.offset);
  });

  it("a MANIFEST naming a table that is gone", async () => {
    const d = copy("missing");
    const m0 = await inspectDatadir(d);
    const victim = m0.instances[0]!.columnFamilies.flatMap((c) => c.levels.flatMap((l) => l.files))[0]!;
    rmSync(victim.path);
    const m = await inspectDatadir(d);
    const f = m.findings.find((x) => x.code === "sst-missing")!;
    expect(f.file).toBe(victim.path);
    expect(f.message).toContain(String(victim.fileNumber));
    expect(m.complete).toBe(false);
    expect(cli(d).status).toBe(2);
  });

  it("CURRENT pointing nowhere: finding, then the newest MANIFEST present is read and flagged", async () => {
    const d = copy("dangling");
    writeFileSync(join(d, "CURRENT"), "MANIFEST-999999\n");
    const m = await inspectDatadir(d);
    expect(m.findings.find((x) => x.code === "current-dangling")?.file).toBe(join(d, "CURRENT"));
    expect(m.findings.some((x) => x.code === "manifest-fallback")).toBe(true);
    expect(m.instances[0]!.columnFamilies.length).toBe(2);
    expect(m.complete).toBe(false);
    const r = cli(d, false);
    expect(r.status).toBe(2);
    // the human report (src/report/) names the finding and says the picture is incomplete
    expect(r.stdout).toContain("current-dangling");
    expect(r.stdout).toMatch(/incomplete/i);
  });

  it("CURRENT with garbage and no MANIFEST at all", async () => {
    const d = copy("nomanifest");
    writeFileSync(join(d, "CURRENT"), "\x00\x01garbage");
    for (const n of readdirSync(d)) if (n.startsWith("MANIFEST-")) rmSync(join(d, n));
    const m = await inspectDatadir(d);
    expect(m.findings.find((x) => x.code === "current-bad")?.offset).toBe(0);
    expect(m.instances[0]!.readable).toBe(false);
    expect(cli(d).status).toBe(2);
  });

  it("an unparsable OPTIONS file: finding with the line's offset, the rest still read", async () => {
    const d = copy("badoptions");
    const opt = latestOptions(d);
    const text = readFileSync(join(d, opt), "latin1");
    const at = text.indexOf("[CFOptions");
    writeFileSync(
      join(d, opt),
      text.slice(0, at) + "this line is not an option\n[Bogus section]\n" + text.slice(at),
    );
    const m = await inspectDatadir(d);
    const bad = m.findings.filter((x) => x.code === "options-bad");
    expect(bad.map((x) => x.offset)).toContain(at);
    expect(bad.every((x) => x.file === join(d, opt))).toBe(true);
    expect(m.instances[0]!.options!.columnFamilies.length).toBe(2);
    expect(m.complete).toBe(false);
  });

  it("OPTIONS and CURRENT larger than a text file may be: a finding naming the size, not read whole", async () => {
    const d = copy("hugeoptions");
    const opt = latestOptions(d);
    // sparse: 20 MiB on disk's books, a few blocks in fact (the cap is 16 MiB, util/limits.ts)
    truncateSync(join(d, opt), 20 * 1024 * 1024);
    const m = await inspectDatadir(d);
    const bad = m.findings.filter((x) => x.code === "options-bad");
    expect(bad.map((x) => x.message)).toContain(`OPTIONS file is ${20 * 1024 * 1024} bytes`);
    const c = copy("hugecurrent");
    writeFileSync(join(c, "CURRENT"), Buffer.alloc(0));
    truncateSync(join(c, "CURRENT"), 17 * 1024 * 1024);
    const mc = await inspectDatadir(c);
    expect(mc.findings.find((x) => x.code === "current-bad")?.message).toBe(
      `CURRENT is ${17 * 1024 * 1024} bytes`,
    );
    expect(cli(c).status).toBe(2);
  });

  it("a WAL with a corrupted record in the middle: error finding at that record", async () => {
    const d = copy("walcorrupt");
    const wal = readdirSync(d).find((n) => n.endsWith(".log") && statSync(join(d, n)).size > 2000)!;
    const p = join(d, wal);
    const offsets: number[] = [];
    scanLogFile(p, (r) => offsets.push(r.offset));
    const buf = readFileSync(p);
    buf[offsets[2]! + 20]! ^= 0x55;
    writeFileSync(p, buf);
    const m = await inspectDatadir(d);
    const f = m.findings.find((x) => x.code === "wal-corrupt")!;
    expect(f.file).toBe(p);
    expect(f.offset).toBe(offsets[2]);
    expect(m.complete).toBe(false);
  });
});

describe("read-only", () => {
  it("changes nothing: content and mtime of every file are the same after inspect (CLI and --tables)", async () => {
    const before = snapshotTree(base);
    await inspectDatadir(base, { tableDetails: "cheap" });
    expect(cli(base).status).toBe(0);
    expect(spawnSync(process.execPath, [bin, "inspect", base, "--tables"]).status).toBe(0);
    expect(snapshotTree(base)).toEqual(before);
  });

  it("works on a read-only copy", async () => {
    const d = copy("readonly");
    spawnSync("chmod", ["-R", "a-w", d]);
    expect(statSync(join(d, "CURRENT")).mode & 0o222).toBe(0);
    const before = snapshotTree(d);
    const m = await inspectDatadir(d);
    expect(m.complete).toBe(true);
    expect(snapshotTree(d)).toEqual(before);
    chmodSync(d, 0o755);
  });

  it("works while another process holds the LOCK", async () => {
    const d = copy("locked");
    // db_bench keeps the store open (LOCK held) while it reads for a few seconds
    const child: ChildProcess = spawn(
      "db_bench",
      [
        `--db=${d}`,
        "--use_existing_db=1",
        "--benchmarks=readrandom",
        "--num=6000",
        "--duration=20",
        "--num_column_families=2",
        "--statistics=0",
      ],
      { stdio: "ignore" },
    );
    try {
      // wait until the LOCK is taken (fcntl lock visible to python's lockf as EAGAIN)
      const held = () =>
        spawnSync("python3", [
          "-c",
          `import fcntl,sys\nf=open(${JSON.stringify(join(d, "LOCK"))},'r+')\ntry:\n  fcntl.lockf(f, fcntl.LOCK_EX|fcntl.LOCK_NB); sys.exit(1)\nexcept OSError: sys.exit(0)`,
        ]).status === 0;
      const until = Date.now() + 10_000;
      while (!held() && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
      expect(held()).toBe(true);
      const m = await inspectDatadir(d);
      expect(m.complete).toBe(true);
      expect(m.instances[0]!.columnFamilies).toHaveLength(2);
      expect(cli(d).status).toBe(0);
      expect(held()).toBe(true);
    } finally {
      child.kill("SIGKILL");
    }
  });
});
