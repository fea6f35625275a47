/**
 * Acceptance audit of issue 14 ("damage always surfaces"): cases the other damage suites do not reach,
 * each on copies of stores db_bench wrote, damaged by hand. Every command that meets the damage exits 2
 * with one located line or an error finding (and, where it prints a report, says so on its last line),
 * never 0 or 1 with a normal report, never a stack trace; read-only commands change nothing.
 *
 * Targets are picked from each store's actual layout (db_bench's background flushes leave a different
 * shape each run). Oracles: `sst_dump --command=scan --verify_checksum` for tables; `ldb` (opened on a
 * private copy, as it may write) for blob records, blob headers and WALs; `ldb dump_wal` for sequence
 * numbers. No RocksDB tool checks key order inside a table (sst_dump reads the re-sealed table cleanly).
 */
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { spawnSync } from "node:child_process";
import {
  chmodSync,
  cpSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import { basename, join } from "node:path";
import { crc32c } from "@node-rs/crc32";
import { inspectDatadir } from "../../src/datadir/index.js";
import type { BlobFileModel, ColumnFamilyModel, DatadirModel } from "../../src/datadir/model.js";
import { scanLogFile } from "../../src/datadir/log_reader.js";
import { runInspect } from "../../src/report/deep.js";
import { planCompaction, runCompaction } from "../../src/compact/index.js";
import * as engine from "../../src/engine/index.js";
import { putVarint64 } from "../../src/util/coding.js";
import {
  dbBench,
  ldbManifest,
  ldbWal,
  removeDir,
  snapshotTree,
  tempDir,
  TWO_CF_BLOB_STORE,
} from "./helpers.js";
import { encodeEdit, encodeLog, internalKey } from "./synth.js";
import { computeSizes } from "../../src/sizes/compute.js";
import { diffDatadirs } from "../../src/diff/index.js";
import { verifyStore } from "../../src/lsm/verify.js";
import { LsmscopeError } from "../../src/util/errors.js";
import { SAMPLES } from "../helpers/index.js";

const bin = new URL("../../bin/lsmscope.js", import.meta.url).pathname;
const canDropPrivileges = process.getuid?.() === 0 && spawnSync("setpriv", ["--version"]).status === 0;
let dir: string;
/** 2 CFs, blob files, uncompressed (damage_commands' store). */
let blobStore: string;
/** fillseq: every key written once, so no table's key is shadowed by another's; crc32c, restart 1. */
let seqStore: string;

function fresh(from: string, name: string): string {
  const d = join(dir, name);
  cpSync(from, d, { recursive: true });
  return d;
}
function lsm(args: string[], opts: { asNobody?: boolean } = {}) {
  const cmd = opts.asNobody
    ? ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", process.execPath, bin, ...args]
    : [process.execPath, bin, ...args];
  return spawnSync(cmd[0]!, cmd.slice(1), { encoding: "utf8", timeout: 120_000 });
}
type Run = ReturnType<typeof lsm>;
const lastLine = (s: string) => s.trim().split("\n").at(-1) ?? "";
/** Text output is 80 columns wide off a terminal: long lines wrap, so match them with the lines joined. */
const squash = (s: string) => s.replace(/\s+/g, " ");
/** Exit `status`, no stack trace, the last stderr line names `where` and matches `cause`. */
function expectOneLine(r: Run, status: number, where: string, cause: RegExp = /\S/) {
  expect(r.stderr + r.stdout).not.toMatch(/internal error|\n\s+at /);
  expect(r.status, r.stderr.slice(0, 500)).toBe(status);
  expect(lastLine(r.stderr)).toContain(where);
  expect(lastLine(r.stderr)).toMatch(cause);
}
/** Exit 2, no stack trace, the report's last line (stdout, or stderr) says the picture is incomplete. */
function expectIncomplete(r: Run, where: string, stream: "stdout" | "stderr" = "stdout") {
  expect(r.stderr + r.stdout).not.toMatch(/internal error|\n\s+at /);
  expect(r.status, (r.stdout + r.stderr).slice(-800)).toBe(2);
  const last = lastLine(stream === "stdout" ? r.stdout : r.stderr);
  expect(last).toMatch(/^picture incomplete: /);
  expect(last).toContain(where);
}
/**
 * `n` bytes flipped at each offset of `at`, in order, the file read and written once: the bytes a
 * read and write per offset gave (the blob and block loops flip hundreds of places in one file).
 */
function flip(path: string, at: number | readonly number[], n = 4): void {
  const b = readFileSync(path);
  for (const o of typeof at === "number" ? [at] : at) for (let i = 0; i < n; i++) b[o + i]! ^= 0xa5;
  writeFileSync(path, b);
}
/** Every 4096th byte from 100 up to 64 bytes short of `end` (inside a table's data blocks). */
function everyPage(end: number): number[] {
  const out: number[] = [];
  for (let at = 100; at < end - 64; at += 4096) out.push(at);
  return out;
}
function sstDumpSaysCorrupt(table: string): boolean {
  const r = spawnSync("sst_dump", [`--file=${table}`, "--command=scan", "--verify_checksum"], {
    encoding: "utf8",
  });
  return /Corruption/.test(r.stdout + r.stderr);
}
/** `ldb scan` of every CF on a private copy (ldb may write): its stderr/stdout, and whether it failed. */
function ldbScanAllCfs(store: string): { failed: boolean; out: string } {
  const d = fresh(store, `ldb-${Math.random().toString(36).slice(2)}`);
  let out = "";
  let failed = false;
  for (const cf of ["default", "column_family_name_000001"]) {
    const r = spawnSync("ldb", [`--db=${d}`, `--column_family=${cf}`, "scan"], {
      encoding: "latin1",
      maxBuffer: 256 << 20,
    });
    if (/Invalid column family|Column family not found/i.test(r.stdout + r.stderr)) continue;
    out += r.stderr + r.stdout.slice(-2000);
    failed ||= r.status !== 0 || /Corruption|IO error/i.test(r.stderr + r.stdout);
  }
  removeDir(d);
  return { failed, out };
}
function liveTables(m: DatadirModel): string[] {
  return m.instances[0]!.columnFamilies.flatMap((c) => c.levels.flatMap((l) => l.files.map((f) => f.path)));
}
/**
 * The newest live blob file (highest number): written by the last flush, so its records are newest
 * versions but for the few writes since (left in the WAL), whatever shape db_bench left; and its CF.
 */
function newestBlob(m: DatadirModel): { blob: BlobFileModel; cf: ColumnFamilyModel } {
  const all = m.instances[0]!.columnFamilies.flatMap((cf) =>
    cf.blobFiles.filter((b) => b.present).map((blob) => ({ blob, cf })),
  );
  expect(all.length).toBeGreaterThan(0);
  return all.sort((a, b) => b.blob.fileNumber - a.blob.fileNumber)[0]!;
}
/** Every record of a blob file: its offset, user key and value range. */
function blobRecords(path: string): { at: number; key: Buffer; valueAt: number; valueLength: number }[] {
  const b = readFileSync(path);
  const out = [];
  let pos = 30;
  while (pos + 32 <= b.length - 32) {
    const kl = Number(b.readBigUInt64LE(pos));
    const vl = Number(b.readBigUInt64LE(pos + 8));
    out.push({ at: pos, key: b.subarray(pos + 32, pos + 32 + kl), valueAt: pos + 32 + kl, valueLength: vl });
    pos += 32 + kl + vl;
  }
  return out;
}
function sstJson(table: string): {
  footer: { index: { offset: number } };
  metaBlocks: { name: string; offset: number }[];
} {
  return JSON.parse(lsm(["sst", table, "--json"]).stdout);
}

beforeAll(() => {
  dir = tempDir("lsmscope-damage-audit-");
  chmodSync(dir, 0o755);
  blobStore = join(dir, "blobstore");
  dbBench(blobStore, TWO_CF_BLOB_STORE);
  seqStore = join(dir, "seqstore");
  dbBench(seqStore, [
    "--benchmarks=fillseq",
    "--num=4000",
    "--value_size=100",
    "--write_buffer_size=65536",
    "--compression_type=none",
    "--checksum_type=1",
    "--block_restart_interval=1",
  ]);
  if (!statSync(bin, { throwIfNoEntry: false })) throw new Error("run npm run build first");
}, 180_000);
afterAll(() => {
  spawnSync("chmod", ["-R", "u+rwX", dir]);
  removeDir(dir);
});

describe("table blocks that the default inspect does not read", () => {
  let table: string;
  let indexStore: string;
  let propsStore: string;
  beforeAll(async () => {
    table = liveTables(await inspectDatadir(blobStore))[0]!;
    const j = sstJson(table);
    const name = table.split("/").pop()!;
    indexStore = fresh(blobStore, "flip-index");
    flip(join(indexStore, name), j.footer.index.offset + 10);
    propsStore = fresh(blobStore, "flip-props");
    const props = j.metaBlocks.find((m) => m.name === "rocksdb.properties")!;
    flip(join(propsStore, name), props.offset + 10);
  });

  it("a flipped index block: inspect --deep exits 2 with an error finding naming the table (it exited 0)", () => {
    const name = table.split("/").pop()!;
    expect(sstDumpSaysCorrupt(join(indexStore, name))).toBe(true);
    const before = snapshotTree(indexStore);
    const r = lsm(["inspect", indexStore, "--deep"]);
    expect(r.status).toBe(2);
    expect(squash(r.stdout)).toMatch(new RegExp(`sst-unreadable: ${name}.*index block`));
    expect(lastLine(r.stdout)).toMatch(/picture incomplete/);
    const json = JSON.parse(lsm(["inspect", indexStore, "--deep", "--json"]).stdout);
    expect(json.complete).toBe(false);
    expect(snapshotTree(indexStore)).toEqual(before);
  });

  it("inspect's mode line says exactly what each mode checked (the filter's bits are not read but by --verify)", () => {
    const cheap = squash(lsm(["inspect", blobStore]).stdout);
    expect(cheap).toMatch(
      /mode: cheap: .*metaindex and properties \(checksums verified\).*filter's metadata bytes \(not checksummed\); index, data blocks and blob records not read/,
    );
    const deep = squash(lsm(["inspect", blobStore, "--deep"]).stdout);
    expect(deep).toMatch(
      /mode: deep: .*whole index \(checksums verified\).*filter's metadata bytes \(not checksummed\); data blocks, filter bits and blob records not read \(--verify reads and checks them\)/,
    );
  });

  it("a flipped properties block: inspect --summary ends with 'picture incomplete' (CSV: on stderr), exit 2", () => {
    const name = table.split("/").pop()!;
    expect(sstDumpSaysCorrupt(join(propsStore, name))).toBe(true);
    expectIncomplete(lsm(["inspect", propsStore, "--summary"]), name);
    const csv = lsm(["inspect", propsStore, "--summary", "--csv"]);
    expectIncomplete(csv, name, "stderr");
    expect(lastLine(csv.stdout)).toMatch(/^"?Total/);
  });
});

describe("sst --verify's report", () => {
  it("ends with its verdict, below the problems it counts (exit 2)", async () => {
    // the largest table: its first data block is a whole block (flipped at byte 100)
    const table = liveTables(await inspectDatadir(blobStore)).sort(
      (a, b) => statSync(b).size - statSync(a).size,
    )[0]!;
    const d = fresh(blobStore, "verify-last-line");
    const t = join(d, table.split("/").pop()!);
    flip(t, 100);
    const r = lsm(["sst", t, "--verify"]);
    expect(r.status).toBe(2);
    // what was checked stands in the verdict, or on the line above it when both do not fit in 80 columns
    expect(lastLine(r.stdout)).toMatch(/^ {2}verify: FAILED, 1 problem( \(.*\))?; exit 2$/);
    expect(r.stdout).toMatch(/verify problems:\n {4}data block @ 0: xxh3 checksum mismatch/);
  });

  it("a footer declaring a 1 TiB index: refused by the size cap, and the bytes checked are those read", async () => {
    const table = liveTables(await inspectDatadir(seqStore))[0]!;
    const d = fresh(seqStore, "huge-index");
    const t = join(d, table.split("/").pop()!);
    // format_version 5 footer: checksum type, metaindex handle, index handle (varints), padding,
    // version, magic — no checksum over it, so a handle can declare any size
    const b = readFileSync(t);
    const f = b.length - 53;
    const j = sstJson(t);
    const meta = readHandle(b, f + 1);
    const handles: number[] = [];
    putVarint64(handles, BigInt(meta.offset));
    putVarint64(handles, BigInt(meta.size));
    putVarint64(handles, BigInt(j.footer.index.offset));
    putVarint64(handles, 2n ** 40n);
    b.fill(0, f + 1, f + 41);
    Buffer.from(handles).copy(b, f + 1);
    writeFileSync(t, b);
    const r = lsm(["sst", t, "--verify", "--json"]);
    expect(r.status).toBe(2);
    const v = JSON.parse(r.stdout).verify as { bytesVerified: number; errors: { message: string }[] };
    expect(v.errors.map((e) => e.message)).toEqual([`declared size ${2 ** 40} exceeds the limit`]);
    expect(v.bytesVerified).toBeLessThan(b.length);
    expectOneLine(lsm(["sizes", d]), 2, t, /index block: declared size 1099511627776 exceeds the limit/);
  });
});

function readHandle(b: Buffer, at: number): { offset: number; size: number } {
  const v = (): number => {
    let r = 0;
    for (let s = 0; ; s += 7) {
      const x = b[at++]!;
      r += (x & 0x7f) * 2 ** s;
      if (!(x & 0x80)) return r;
    }
  };
  return { offset: v(), size: v() };
}

describe("keys out of order inside a table (checksums re-sealed)", () => {
  let d: string;
  let victim: string;
  beforeAll(async () => {
    d = fresh(seqStore, "out-of-order");
    victim = liveTables(await inspectDatadir(d))[0]!;
    // restart interval 1, uncompressed, one key size: entries 1 and 2 of the first block swap by bytes
    const b = readFileSync(victim);
    const first = sstJsonBlocks(victim)[0]!;
    const entry = (o: number) => {
      const v = (): number => {
        let r = 0;
        for (let s = 0; ; s += 7) {
          const x = b[o++]!;
          r += (x & 0x7f) * 2 ** s;
          if (!(x & 0x80)) return r;
        }
      };
      const start = o;
      const shared = v();
      const nonShared = v();
      const valueLength = v();
      return { start, shared, end: o + nonShared + valueLength };
    };
    const e0 = entry(first.offset);
    const e1 = entry(e0.end);
    const e2 = entry(e1.end);
    expect([e1.shared, e2.shared, e1.end - e1.start]).toEqual([0, 0, e2.end - e2.start]);
    const t = Buffer.from(b.subarray(e1.start, e1.end));
    b.copy(b, e1.start, e2.start, e2.end);
    t.copy(b, e2.start);
    const end = first.offset + first.size;
    const c = crc32c(b.subarray(first.offset, end + 1)) >>> 0;
    b.writeUInt32LE(((((c >>> 15) | (c << 17)) >>> 0) + 0xa282ead8) >>> 0, end + 1);
    writeFileSync(victim, b);
  });

  it("the oracle reads it with checksums verified (it does not check key order)", () => {
    expect(sstDumpSaysCorrupt(victim)).toBe(false);
  });

  it("inspect --verify: an error finding naming the table (it said every block was fine), exit 2", () => {
    const r = lsm(["inspect", d, "--verify", "--json"]);
    expect(r.status).toBe(2);
    const f = (JSON.parse(r.stdout).findings as { code: string; file: string; message: string }[]).find(
      (x) => x.code === "verify-failed",
    )!;
    expect(f.file).toBe(victim);
    expect(f.message).toMatch(/key out of order/);
  });

  it("diff against the intact store: exit 2 with one line, never 'the stores differ'", () => {
    const r = lsm(["diff", d, seqStore]);
    expectOneLine(r, 2, d, /live keys do not ascend/);
    expect(r.stdout).not.toMatch(/the stores differ/);
  });

  it("diff by key sets (taken over many sorted runs) refuses it the same way, naming the store", async () => {
    // a key set alone would not notice: its check is each run's keys ascending as they are read
    for (const [a, b] of [
      [d, seqStore],
      [seqStore, d],
    ] as const) {
      const err = await diffDatadirs(a, b, { byHashMinRuns: 1 }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(LsmscopeError);
      expect((err as LsmscopeError).message).toMatch(/live keys do not ascend/);
      expect((err as LsmscopeError).file).toBe(d);
    }
  });

  it.skipIf(!engine.engineAvailable())("compact --yes: refused by the pre-flight, nothing written", () => {
    const before = snapshotTree(d);
    expectOneLine(lsm(["compact", d, "--yes"]), 2, d, /pre-flight \(nothing written\): .*key out of order/);
    expect(snapshotTree(d)).toEqual(before);
  });
});

function sstJsonBlocks(table: string): { offset: number; size: number }[] {
  return JSON.parse(lsm(["sst", table, "--json", "--blocks"]).stdout).blocks;
}

describe("blob records with a damaged value (every record of every blob file of one column family)", () => {
  let d: string;
  let cf: string;
  let blobs: string[];
  let keysFile: string;
  let keys: number;
  /** The line names one of the damaged blob files, at a record, as a checksum mismatch. */
  const namesABlob = (line: string) =>
    expect(
      blobs.some((b) => line.includes(`${b} @ offset `)) && /blob record checksum mismatch/.test(line),
      line,
    ).toBe(true);
  beforeAll(async () => {
    d = fresh(blobStore, "blob-values");
    // every blob file of the CF that holds the newest one: any blob-indexed live value of it is damaged
    const target = newestBlob(await inspectDatadir(d)).cf;
    cf = target.name;
    blobs = target.blobFiles.filter((b) => b.present).map((b) => b.path);
    const all = [];
    for (const blob of blobs) {
      const recs = blobRecords(blob);
      flip(
        blob,
        recs.map((r) => r.valueAt + r.valueLength - 1),
        1,
      );
      all.push(...recs);
    }
    keysFile = join(dir, "blob-keys.txt");
    writeFileSync(keysFile, [...new Set(all.map((r) => r.key.toString("hex")))].join("\n") + "\n");
    keys = new Set(all.map((r) => r.key.toString("hex"))).size;
  });

  it("is damage by RocksDB's account (ldb scan on a copy)", () => {
    const r = ldbScanAllCfs(d);
    expect(r.failed, r.out.slice(0, 500)).toBe(true);
  });

  it("diff: exit 2 naming a blob file and offset (it said 'the stores differ', exit 1)", () => {
    const r = lsm(["diff", d, blobStore]);
    expect(r.stderr + r.stdout).not.toMatch(/internal error|\n\s+at /);
    expect(r.status).toBe(2);
    namesABlob(lastLine(r.stderr));
  });

  it("sizes (full): exit 2, the last line names a blob file (it exited 0)", () => {
    const r = lsm(["sizes", d]);
    expect(r.status).toBe(2);
    expect(lastLine(r.stdout)).toMatch(/^picture incomplete: /);
    namesABlob(lastLine(r.stdout));
  });

  it("probe, reader path, over those files' keys: exit 2 naming a blob file", () => {
    const r = lsm(["probe", d, "--cf", cf, "--keys", keysFile, "--count", String(keys)]);
    expect(r.stderr + r.stdout).not.toMatch(/internal error|\n\s+at /);
    expect(r.status).toBe(2);
    namesABlob(lastLine(r.stderr));
  });
});

describe("blob file headers and tails RocksDB refuses", () => {
  let target: BlobFileModel;
  let cf: string;
  beforeAll(async () => {
    ({
      blob: target,
      cf: { name: cf },
    } = newestBlob(await inspectDatadir(blobStore)));
  });
  // the last field: run diff and probe too (one header case and one footer case: the gate they pass
  // judges every case by the rules inspect's findings come from, blobFileRefusals)
  const cases: [string, (p: string) => void, RegExp, boolean][] = [
    [
      "a damaged magic",
      (p) => flip(p, 0),
      /blob-bad: \d+\.blob@0: blob header magic 0x[0-9a-f]+ is not 0x248f37/,
      false,
    ],
    ["an unknown version", (p) => flip(p, 4), /blob-bad: \d+\.blob@4: blob file version \d+/, false],
    ["another column family's id", (p) => flip(p, 8), /blob-cf-mismatch: \d+\.blob@8/, true],
    [
      "no footer (cut short)",
      (p) => truncateSync(p, statSync(p).size - 100),
      /blob-no-footer: .*cut short/,
      false,
    ],
    // RocksDB: "Malformed blob file" (ReadFooter); until session 52 no finding at all, exit 0
    [
      "cut to 45 bytes, a header and no room for a footer",
      (p) => truncateSync(p, 45),
      /blob-no-footer: \d+\.blob@30: .*cut short/,
      true,
    ],
  ];
  it.each(cases)(
    "%s: inspect exits 2 with an error finding (it was a warning, exit 0); sizes (diff, probe) read none of its values",
    (_what, damage, finding, readers) => {
      const d = fresh(blobStore, `blob-head-${_what.replace(/\W+/g, "-")}`);
      const p = join(d, target.fileName);
      const keys = [...new Set(blobRecords(p).map((r) => r.key.toString("hex")))];
      damage(p);
      expect(ldbScanAllCfs(d).failed).toBe(true);
      const r = lsm(["inspect", d]);
      expect(r.status).toBe(2);
      expect(squash(r.stdout)).toMatch(finding);
      expect(lastLine(r.stdout)).toMatch(/picture incomplete/);
      // the file's values are not sized as if RocksDB could read them, in full mode or sampled (until
      // session 51 `sizes` read their lengths from the file's records all the same)
      for (const mode of [["--full"], ["--sample", "100000"]]) {
        const s = lsm(["sizes", d, ...mode]);
        expect(s.status).toBe(2);
        expect(squash(s.stdout)).toMatch(/\d+ blob records? unreadable, left out of value bytes/);
      }
      // diff and probe's reader path stop at the file as a Get does, naming it (until session 52 they
      // read its records all the same: diff said "identical", probe measured the lookups)
      const keysFile = join(d, "..", `${basename(d)}-keys.txt`);
      writeFileSync(keysFile, keys.join("\n") + "\n");
      const readerRuns = [
        ["diff", blobStore, d],
        ["probe", d, "--cf", cf, "--keys", keysFile, "--count", String(keys.length)],
      ];
      for (const args of readers ? readerRuns : []) {
        const r = lsm(args);
        expect(r.stderr + r.stdout).not.toMatch(/internal error|\n\s+at |identical/);
        expect(r.status, args[0]).toBe(2);
        expect(lastLine(r.stderr)).toContain(target.fileName);
      }
      if (engine.engineAvailable()) {
        const plan = lsm(["compact", d]);
        expect(plan.status).toBe(2);
        expect(plan.stdout).not.toMatch(/^ready/m);
      }
    },
  );
});

describe("a live WAL cut short before writes the next WAL does not continue", () => {
  it("is an error finding; at the end of the newest WAL a tear stays normal (ldb dump_wal's sequences)", async () => {
    const m = await inspectDatadir(blobStore);
    const wals = m.instances[0]!.wal.filter((w) => w.live && w.records > 1).sort(
      (a, b) => a.logNumber - b.logNumber,
    );
    expect(wals.length).toBeGreaterThan(0);
    // the oldest live WAL with writes: a newer one holding writes follows it, or it is the newest
    const victim = wals[0]!;
    const next = wals[1];
    const d = fresh(blobStore, "wal-torn");
    const p = join(d, victim.file);
    const offsets: number[] = [];
    scanLogFile(p, (r) => offsets.push(r.offset));
    const cutAt = offsets[Math.floor(offsets.length / 2)]! + 20; // inside a record
    truncateSync(p, cutAt);
    const kept = ldbWal(p);
    const lastKept = kept.at(-1)!;
    const r = lsm(["inspect", d, "--json"]);
    const findings = JSON.parse(r.stdout).findings as { code: string; file: string; severity: string }[];
    const torn = findings.find((f) => f.code === "wal-torn-not-last");
    if (next) {
      const nextFirst = ldbWal(join(d, next.file))[0]!.seq;
      expect(nextFirst).not.toBe(lastKept.seq + lastKept.count); // writes lost between the two
      expect(torn?.file).toBe(p);
      expect(torn?.severity).toBe("error");
      expect(r.status).toBe(2);
    } else {
      expect(torn).toBeUndefined();
      expect(findings.some((f) => f.code === "wal-torn-tail" && f.severity === "info")).toBe(true);
    }
  });
});

describe("diff and report --html over an incomplete picture (a WAL record flipped)", () => {
  let d: string;
  let wal: string;
  beforeAll(async () => {
    d = fresh(blobStore, "wal-flip");
    const m = await inspectDatadir(d);
    const w = m.instances[0]!.wal.filter((x) => x.records > 3).sort((a, b) => b.records - a.records)[0]!;
    wal = w.path;
    const offsets: number[] = [];
    scanLogFile(wal, (r) => offsets.push(r.offset));
    flip(wal, offsets[2]! + 20, 1);
  });

  it("diff: exit 2, its last line names the WAL (it exited 1: 'the stores differ')", () => {
    expectIncomplete(lsm(["diff", d, blobStore]), wal);
  });

  it("report --html: the page is written, exit 2, the last line names the WAL (it exited 0)", () => {
    const out = join(dir, "wal-flip.html");
    expectIncomplete(lsm(["report", d, "--html", out]), wal, "stderr");
    expect(statSync(out).size).toBeGreaterThan(1000);
  });
});

describe("a MANIFEST of garbage: diff and report --html name it", () => {
  it("diff exits 2 naming the MANIFEST file; report exits 3 (check's 'could not run') naming it", () => {
    const d = fresh(blobStore, "manifest-garbage");
    const cur = readFileSync(join(d, "CURRENT"), "latin1").trim();
    writeFileSync(join(d, cur), Buffer.alloc(statSync(join(d, cur)).size, 0x5a));
    expectOneLine(lsm(["diff", d, blobStore]), 2, join(d, cur), /store cannot be read/);
    expectOneLine(lsm(["report", d, "--html", join(dir, "m.html")]), 3, join(d, cur), /store cannot be read/);
  });
});

describe.skipIf(!canDropPrivileges)("files the user may not read (mode 000, run as nobody)", () => {
  let d: string;
  let table: string;
  let cf: string;
  let blob: string;
  beforeAll(async () => {
    d = fresh(blobStore, "mode000");
    const m = await inspectDatadir(d);
    table = liveTables(m)[0]!;
    cf = m.instances[0]!.columnFamilies.find((c) =>
      c.levels.some((l) => l.files.some((f) => f.path === table)),
    )!.name;
    blob = newestBlob(m).blob.path;
    spawnSync("chmod", ["-R", "a+rX", dir]);
    chmodSync(table, 0o000);
  });

  it.each([
    ["inspect", () => ["inspect", d]],
    ["sst", () => ["sst", table]],
    ["probe", () => ["probe", d, "--cf", cf, "--keys", "absent", "--count", "20"]],
    ["diff", () => ["diff", d, blobStore]],
  ])("%s: exit 2 naming the table and EACCES", (cmd, args) => {
    const r = lsm(args(), { asNobody: true });
    expect(r.stderr + r.stdout).not.toMatch(/internal error|\n\s+at /);
    expect(r.status).toBe(2);
    if (cmd === "inspect") expect(r.stdout).toMatch(/permission denied \(EACCES\)/);
    else expectOneLine(r, 2, table, /permission denied \(EACCES\)/);
  });

  it("a blob file: sizes and diff exit 2 naming it", () => {
    chmodSync(table, 0o644);
    chmodSync(blob, 0o000);
    try {
      expectOneLine(lsm(["diff", d, blobStore], { asNobody: true }), 2, blob, /EACCES/);
      const s = lsm(["sizes", d], { asNobody: true });
      expect(s.status).toBe(2);
      expect(s.stdout + s.stderr).toContain(blob.split("/").pop()!);
    } finally {
      chmodSync(blob, 0o644);
    }
  });

  it("'no store found' says why in check, compact and diff (a directory without read permission)", () => {
    const parent = join(dir, "noperm-audit");
    mkdirSync(join(parent, "inner"), { recursive: true });
    cpSync(blobStore, join(parent, "inner", "db"), { recursive: true });
    chmodSync(parent, 0o755);
    chmodSync(join(parent, "inner"), 0o000);
    try {
      for (const args of [
        ["check", parent],
        ["diff", parent, blobStore],
        ...(engine.engineAvailable() ? [["compact", parent]] : []),
      ]) {
        const r = lsm(args, { asNobody: true });
        expect(r.status, args[0]).toBe(args[0] === "check" ? 3 : 2);
        expect(r.stderr, args[0]).toMatch(/permission denied \(EACCES\)/);
      }
    } finally {
      chmodSync(join(parent, "inner"), 0o755);
    }
  });
});

describe("the walk's depth limit", () => {
  it("check, compact, probe and diff say the limit was hit and what to do", () => {
    const deep = join(dir, "deep-audit");
    cpSync(blobStore, join(deep, "a", "b", "c", "d", "e", "db"), { recursive: true });
    const runs: [string[], number][] = [
      [["check", deep], 3],
      [["probe", deep, "--cf", "x", "--keys", "present", "--count", "1"], 2],
      [["diff", deep, blobStore], 2],
    ];
    if (engine.engineAvailable()) runs.push([["compact", deep], 2]);
    for (const [args, status] of runs) {
      const r = lsm(args);
      expect(r.status, args[0]).toBe(status);
      expect(r.stderr, args[0]).toMatch(/depth limit.*name the store directory itself/);
    }
  });
});

describe.skipIf(!engine.engineAvailable())(
  "compact: the engine fails part-way (damage after the pre-flight)",
  () => {
    it("the message lists the column families already rewritten; inspect shows them in their bottom level", async () => {
      const d = fresh(blobStore, "midway");
      const plan = await planCompaction(d, { force: true });
      expect(plan.refusals).toEqual([]);
      expect(plan.columnFamilies.length).toBe(2);
      const [first, last] = plan.columnFamilies as [
        (typeof plan.columnFamilies)[0],
        (typeof plan.columnFamilies)[0],
      ];
      // every data block of the last column family's tables, after the plan (the pre-flight would refuse it)
      const m = await inspectDatadir(d);
      const lastCf = m.instances[0]!.columnFamilies.find((c) => c.nameHex === last.nameHex)!;
      const tables = lastCf.levels.flatMap((l) => l.files.map((f) => f.path));
      expect(tables.length).toBeGreaterThan(0);
      // data blocks only: RocksDB reads the tables' metadata when it opens the store (a flipped index or
      // filter would fail the open, before any column family is compacted)
      for (const t of tables) {
        const j = sstJson(t);
        const end = Math.min(j.footer.index.offset, ...j.metaBlocks.map((b) => b.offset));
        flip(t, everyPage(end));
      }
      const err = await runCompaction(plan).then(
        () => undefined,
        (e: Error) => e,
      );
      // RocksDB may meet the damage first in a background compaction of the damaged column family
      // (auto-compactions run while the store is open; whether one is due depends on the layout
      // db_bench left), and a background error fails the manual compaction running at that moment:
      // then the message names the first column family and says none was rewritten
      const failedFirst = new RegExp(
        `the engine failed compacting ${first.displayName}: .*no column family was rewritten; the store is consistent`,
      );
      const failedLast = new RegExp(
        `the engine failed compacting ${last.displayName}: .*already rewritten: ${first.displayName}; the store is consistent`,
      );
      expect(err?.message).toMatch(new RegExp(`${failedFirst.source}|${failedLast.source}`));
      const after = await runInspect(d, {});
      const firstCf = after.model.instances[0]!.columnFamilies.find((c) => c.nameHex === first.nameHex)!;
      if (failedLast.test(err!.message)) expect(firstCf.placement?.filesAboveBottom).toBe(0);
      expect(readdirSync(d).some((n) => n.startsWith("MANIFEST-"))).toBe(true);
    }, 180_000);
  },
);

describe("identity: the chain head's keys in damaged data blocks (besu-generated sample, a copy)", () => {
  it("an error finding naming the table and offset, exit 2 (it was a note, exit 0); check exits 2", () => {
    // besu-generated holds nothing in its WAL: the head's keys (VARIABLES, BLOCKCHAIN) are read from tables
    const d = join(dir, "besu-identity");
    cpSync(join(SAMPLES, "besu-generated"), d, { recursive: true });
    const db = join(d, "database");
    for (const n of readdirSync(db).filter((x) => x.endsWith(".sst"))) {
      const t = join(db, n);
      // every data block (a lookup reads only the block its key is in); the metadata stays intact
      flip(
        t,
        sstJsonBlocks(t).map((b) => b.offset + Math.min(8, b.size - 4)),
      );
    }
    const before = snapshotTree(d);
    const r = lsm(["inspect", d]);
    expect(r.status).toBe(2);
    expect(squash(r.stdout)).toMatch(
      /identity-unreadable: database\/\d+\.sst@\d+: chain head unreadable: data block: xxh3 checksum mismatch/,
    );
    expect(lastLine(r.stdout)).toMatch(/picture incomplete/);
    expect(lsm(["check", d]).status).toBe(2);
    expect(snapshotTree(d)).toEqual(before);
  });
});

describe("files that vanish between the MANIFEST read and the table read", () => {
  it("sizes and inspect --verify name the vanished table, never anything but one LsmscopeError", async () => {
    const d = fresh(blobStore, "vanish");
    const model = await inspectDatadir(d);
    const victim = liveTables(model)[0]!;
    rmSync(victim);
    // the MANIFEST still lists it: damage, left out of the figures and named (sizes' incomplete list)
    const report = await computeSizes(d, { model, mode: "full" }).catch((e: unknown) => {
      expect(e).toBeInstanceOf(LsmscopeError);
      return { incomplete: [(e as LsmscopeError).oneLine()] };
    });
    const reasons = report.incomplete ?? [];
    expect(
      reasons.some((x) => x.includes(victim)),
      reasons.join("\n"),
    ).toBe(true);
    const v = await verifyStore(model, { threads: 1 });
    expect(v.failed).toBe(1);
    const f = model.findings.find((x) => x.code === "verify-failed")!;
    expect(f.file).toBe(victim);
    expect(f.message).toMatch(/no such file|ENOENT/);
    expect(model.complete).toBe(false);
  });
});

describe("a MANIFEST declaring a table of 2^50 bytes (a synthetic MANIFEST over db_bench's tables)", () => {
  it("the size is not believed: an error finding, sizes and check exit 2, nothing allocated for it", async () => {
    const d = fresh(seqStore, "huge-declared");
    const m = await inspectDatadir(d);
    const cf = m.instances[0]!.columnFamilies[0]!;
    const files = cf.levels.flatMap((l) => l.files);
    const big = files[0]!;
    const man = encodeLog([
      encodeEdit({ comparator: "leveldb.BytewiseComparator" }),
      encodeEdit({
        logNumber: m.instances[0]!.manifest!.logNumber,
        nextFile: m.instances[0]!.manifest!.nextFileNumber,
        lastSeq: m.instances[0]!.manifest!.lastSequence,
        added: files.map((f) => ({
          level: f.level,
          number: f.fileNumber,
          size: f === big ? 2 ** 50 : f.fileSize,
          smallest: internalKey(Buffer.from(f.smallest.userKey, "hex"), f.smallest.seqno, f.smallest.type),
          largest: internalKey(Buffer.from(f.largest.userKey, "hex"), f.largest.seqno, f.largest.type),
          smallestSeqno: f.smallestSeqno!,
          largestSeqno: f.largestSeqno!,
        })),
      }),
    ]);
    for (const n of readdirSync(d)) if (n.startsWith("MANIFEST-")) rmSync(join(d, n));
    writeFileSync(join(d, "MANIFEST-000999"), man);
    writeFileSync(join(d, "CURRENT"), "MANIFEST-000999\n");
    // RocksDB's own reading of the synthetic MANIFEST: the declared size is taken as written
    expect(ldbManifest({ path: join(d, "MANIFEST-000999") }).cfs[0]!.files.map((f) => f.fileSize)).toContain(
      2 ** 50,
    );
    const r = lsm(["inspect", d, "--json"]);
    expect(r.status).toBe(2);
    const f = (JSON.parse(r.stdout).findings as { code: string; file: string }[]).find(
      (x) => x.code === "sst-size-mismatch",
    );
    expect(f?.file).toBe(big.path);
    for (const args of [
      ["sizes", d],
      ["check", d],
    ]) {
      const x = lsm(args);
      expect(x.stderr + x.stdout, args[0]).not.toMatch(/internal error|\n\s+at /);
      expect(x.status, args[0]).toBe(2);
    }
  });
});

describe.skipIf(!engine.engineAvailable())("probe's engine path over a damaged table", () => {
  it("RocksDB's own corruption error becomes one line naming the table, exit 2", async () => {
    const d = fresh(seqStore, "engine-path");
    const table = liveTables(await inspectDatadir(d))[0]!;
    // the table's own keys (sst_dump, before the damage); fillseq writes each key once, so every
    // lookup of them reaches this table
    const dump = spawnSync("sst_dump", [`--file=${table}`, "--command=scan", "--output_hex"], {
      encoding: "latin1",
      maxBuffer: 64 << 20,
    }).stdout;
    const keys = [...dump.matchAll(/^'([0-9A-F]+)' seq:/gm)].map((m) => m[1]!.toLowerCase());
    expect(keys.length).toBeGreaterThan(10);
    const keysFile = join(dir, "engine-keys.txt");
    writeFileSync(keysFile, keys.join("\n") + "\n");
    const j = sstJson(table);
    const end = Math.min(j.footer.index.offset, ...j.metaBlocks.map((m) => m.offset));
    flip(table, everyPage(end));
    const r = lsm([
      "probe",
      d,
      "--cf",
      "default",
      "--keys",
      keysFile,
      "--count",
      String(keys.length),
      "--path",
      "engine",
    ]);
    expectOneLine(r, 2, table, /Corruption: block checksum mismatch/);
  });
});

describe("a MANIFEST edit with a tag RocksDB does not know (a synthetic MANIFEST, ldb's verdict beside ours)", () => {
  /** The store's own version rewritten as one edit, with `extra` bytes appended to it. */
  async function withTag(name: string, extra: number[]): Promise<string> {
    const d = fresh(seqStore, name);
    const m = await inspectDatadir(d);
    const inst = m.instances[0]!;
    const files = inst.columnFamilies[0]!.levels.flatMap((l) => l.files);
    const edit = encodeEdit({
      comparator: "leveldb.BytewiseComparator",
      logNumber: inst.manifest!.logNumber,
      nextFile: inst.manifest!.nextFileNumber,
      lastSeq: inst.manifest!.lastSequence,
      added: files.map((f) => ({
        level: f.level,
        number: f.fileNumber,
        size: f.fileSize,
        smallest: internalKey(Buffer.from(f.smallest.userKey, "hex"), f.smallest.seqno, f.smallest.type),
        largest: internalKey(Buffer.from(f.largest.userKey, "hex"), f.largest.seqno, f.largest.type),
        smallestSeqno: f.smallestSeqno!,
        largestSeqno: f.largestSeqno!,
      })),
    });
    for (const n of readdirSync(d)) if (n.startsWith("MANIFEST-")) rmSync(join(d, n));
    writeFileSync(join(d, "MANIFEST-000999"), encodeLog([Buffer.concat([edit, Buffer.from(extra)])]));
    writeFileSync(join(d, "CURRENT"), "MANIFEST-000999\n");
    return d;
  }
  const ldbReads = (d: string) =>
    spawnSync("ldb", ["manifest_dump", `--path=${join(d, "MANIFEST-000999")}`], { encoding: "utf8" });

  it("a required tag (99): the store is unreadable, an error finding, exit 2 — as ldb refuses it", async () => {
    const d = await withTag("tag-required", [99, 3, 1, 2, 3]);
    const oracle = ldbReads(d);
    expect(oracle.stdout + oracle.stderr).toMatch(/Corruption|unknown tag/i);
    const m = await inspectDatadir(d);
    expect(m.instances[0]!.readable).toBe(false);
    expect(m.findings.some((f) => f.severity === "error" && f.file === join(d, "MANIFEST-000999"))).toBe(
      true,
    );
    expect(lsm(["inspect", d]).status).toBe(2);
    expectOneLine(lsm(["sizes", d]), 2, "MANIFEST-000999", /store cannot be read/);
  });

  it("a safe-to-ignore tag (kTagSafeIgnoreMask | 50): skipped, as ldb skips it; the picture is whole", async () => {
    const d = await withTag("tag-safe", [0xb2, 0x40, 3, 1, 2, 3]); // varint 8242 (unassigned), 3 bytes
    const oracle = ldbReads(d);
    expect(oracle.status).toBe(0);
    expect(oracle.stdout + oracle.stderr).not.toMatch(/Corruption|error/i);
    expect(oracle.stdout).toMatch(/next_file_number/);
    const m = await inspectDatadir(d);
    expect(m.instances[0]!.readable).toBe(true);
    expect(m.findings.filter((f) => f.severity === "error")).toEqual([]);
  });
});

const hasTmux = spawnSync("tmux", ["-V"]).status === 0;
describe.skipIf(!hasTmux)("the TUI over a damaged table (tmux, 80×24)", () => {
  const session = `lsmscope-damage-${process.pid}`;
  const capture = () => spawnSync("tmux", ["capture-pane", "-t", session, "-p"], { encoding: "utf8" }).stdout;
  async function waitFor(pred: (s: string) => boolean): Promise<string> {
    let s = "";
    for (let i = 0; i < 150; i++) {
      s = capture();
      if (pred(s)) return s;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`screen never matched:\n${s}`);
  }
  afterAll(() => {
    spawnSync("tmux", ["kill-session", "-t", session]);
  });

  it("counts the error in its header; on q the terminal keeps a 'picture incomplete' line, exit 2", async () => {
    const table = liveTables(await inspectDatadir(blobStore))[0]!;
    const d = fresh(blobStore, "tui-props");
    const t = join(d, table.split("/").pop()!);
    flip(t, sstJson(t).metaBlocks.find((m) => m.name === "rocksdb.properties")!.offset + 10);
    const cmd = `${process.execPath} ${bin} ${d}; echo "EXITED rc=$?"; sleep 60`;
    // a new-session meeting a tmux server that is exiting (another test killed its last session) fails
    for (let i = 0; i < 10; i++) {
      if (spawnSync("tmux", ["new-session", "-d", "-s", session, "-x", "80", "-y", "24", cmd]).status === 0)
        break;
      await new Promise((r) => setTimeout(r, 200));
    }
    const s = await waitFor((x) => x.includes("[1l Layout]"));
    expect(s).toMatch(/flags 1E/);
    // a key that arrives while Ink is busy drawing can be lost: q again until the TUI is gone
    let after = "";
    for (let i = 0; i < 5 && !after.includes("EXITED rc="); i++) {
      spawnSync("tmux", ["send-keys", "-t", session, "q"]);
      after = await waitFor((x) => x.includes("EXITED rc=")).catch(() => "");
    }
    expect(after).toContain("EXITED rc=2");
    expect(after.replace(/\n/g, "")).toMatch(
      /picture incomplete: 1 error .*properties block: xxh3 checksum mismatch/,
    );
  });
});
