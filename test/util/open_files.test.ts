/**
 * Bounded file descriptors: a db_bench store of ~500 blob files (4 KiB each, every value in a blob),
 * every command run in a child whose descriptor limit (128) is far below the file count. Before the
 * bounds, the compact verification's blob reader and the engine opened with max_open_files=-1 failed
 * with "Too many open files". And the blob reader's descriptors, counted in /proc/self/fd, stay at
 * its capacity while it reads every blob file. A second store's blobs are compressed: `sizes` in
 * sample mode reads the first bytes of each sampled compressed blob for its length, and until session
 * 51 kept every blob file it touched open (EMFILE under the limit).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { cpSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { dbBench, REPO, removeDir, snapshotTree, tempDir } from "../helpers/index.js";
import * as engine from "../../src/engine/index.js";
import { BlobFileReader, BlobValueSizer } from "../../src/format/blob.js";
import { openDescriptorCount, openFileCacheCapacity, openFileLimit } from "../../src/util/open_files.js";

const BIN = join(REPO, "bin", "lsmscope.js");
const LIMIT = 128;

let dir: string;
let db: string;
let compressed: string;
beforeAll(() => {
  dir = tempDir("lsmscope-fds-");
  db = join(dir, "blobs");
  compressed = join(dir, "compressed-blobs");
  dbBench(compressed, [
    "--benchmarks=fillrandom,flush",
    "--num=10000",
    "--value_size=200",
    "--compression_ratio=0.5",
    "--enable_blob_files=1",
    "--min_blob_size=0",
    "--blob_file_size=4096",
    "--blob_compression_type=lz4",
    "--write_buffer_size=1048576",
  ]);
  dbBench(db, [
    "--benchmarks=fillrandom,flush",
    "--num=10000",
    "--value_size=200",
    "--enable_blob_files=1",
    "--min_blob_size=0",
    "--blob_file_size=4096",
    "--write_buffer_size=1048576",
  ]);
});
afterAll(() => removeDir(dir));

const blobFiles = () => readdirSync(db).filter((f) => f.endsWith(".blob"));

/** Run the CLI in a shell whose soft and hard descriptor limits are LIMIT. */
function limited(args: string[]) {
  const quoted = args.map((a) => `'${a}'`).join(" ");
  return spawnSync("bash", ["-c", `ulimit -n ${LIMIT} && exec '${process.execPath}' '${BIN}' ${quoted}`], {
    encoding: "utf8",
  });
}

/** The capacity the blob caches are given below, far under the stores' blob file counts. */
const CAPACITY = 16;

/**
 * `read` every file of `files` through `cache` (a blob reader or sizer of CAPACITY): the process's
 * descriptors (/proc/self/fd) never exceed those before by more than CAPACITY, the cache holds CAPACITY
 * at the end, and none is left open once it closes. Nothing to count without /proc.
 */
function expectBoundedDescriptors(
  cache: { openFiles: number; close(): void },
  files: string[],
  read: (file: string) => void,
): void {
  const before = openDescriptorCount();
  if (before === undefined) {
    cache.close();
    return;
  }
  let peak = 0;
  try {
    for (const f of files) {
      read(f);
      peak = Math.max(peak, openDescriptorCount()! - before);
    }
    expect(cache.openFiles).toBe(CAPACITY);
    expect(peak).toBeLessThanOrEqual(CAPACITY);
  } finally {
    cache.close();
  }
  expect(openDescriptorCount()).toBe(before);
}

describe("bounded file descriptors", () => {
  it("the store has several times more blob files than the limit", () => {
    expect(blobFiles().length).toBeGreaterThan(3 * LIMIT);
  });

  it.each([
    ["inspect", "--deep"],
    ["sizes", "--full"],
    ["check"],
    ["probe", "--cf", "default", "--keys", "present", "--count", "300", "--path", "reader"],
  ])("%s completes under a limit of 128 descriptors, read-only", (...args) => {
    const before = snapshotTree(db);
    const r = limited([args[0]!, db, ...args.slice(1)]);
    expect(r.stderr).not.toMatch(/too many open files/i);
    expect(r.status).toBe(0);
    expect(snapshotTree(db)).toEqual(before);
  });

  it.skipIf(!engine.engineAvailable())(
    "probe's engine path and compact --yes complete under the limit",
    () => {
      const probe = limited([
        "probe",
        db,
        "--cf",
        "default",
        "--keys",
        "present",
        "--count",
        "300",
        "--path",
        "engine",
      ]);
      expect(probe.stderr).not.toMatch(/too many open files/i);
      expect(probe.status).toBe(0);
      expect(probe.stdout).toMatch(/max_open_files=\d+/);
      const copy = join(dir, "compacted");
      cpSync(db, copy, { recursive: true });
      const c = limited(["compact", copy, "--yes"]);
      expect(c.stderr).not.toMatch(/too many open files/i);
      expect(c.status).toBe(0);
    },
  );

  it("sizes in sample mode over compressed blobs: the same report under the limit, read-only", () => {
    const files = readdirSync(compressed).filter((f) => f.endsWith(".blob"));
    expect(files.length).toBeGreaterThan(2 * LIMIT);
    const args = ["sizes", compressed, "--sample", "5000", "--json"];
    const report = (out: string) => {
      const r = JSON.parse(out) as Record<string, unknown>;
      delete r.elapsedMs;
      return r;
    };
    const free = spawnSync(process.execPath, [BIN, ...args], { encoding: "utf8" });
    expect(free.status, free.stderr).toBe(0);
    const before = snapshotTree(compressed);
    const r = limited(args);
    expect(r.stderr).not.toMatch(/too many open files/i);
    expect(r.status).toBe(0);
    expect(report(r.stdout)).toEqual(report(free.stdout));
    expect(snapshotTree(compressed)).toEqual(before);
  });

  it("the blob value sizer's record mode keeps at most its capacity of descriptors open", () => {
    const names = readdirSync(compressed).filter((f) => f.endsWith(".blob"));
    const paths = Object.fromEntries(names.map((f) => [String(Number(f.slice(0, -5))), join(compressed, f)]));
    const sizer = new BlobValueSizer(paths, "record", {}, CAPACITY);
    expectBoundedDescriptors(sizer, names, (f) => {
      // the first record's value: after the 30-byte file header, its 32-byte record header and key
      // (db_bench's 16-byte keys); its length prefix is what record mode reads
      const length = sizer.valueLength({
        kind: "blob",
        fileNumber: Number(f.slice(0, -5)),
        offset: 30 + 32 + 16,
        size: 8,
        compression: 4,
      } as never);
      expect(length).toBeGreaterThan(0);
    });
  });

  it("the blob reader keeps at most its capacity of descriptors open (counted in /proc/self/fd)", () => {
    expect(openFileLimit()).toBeGreaterThan(0);
    expect(openFileCacheCapacity()).toBeGreaterThanOrEqual(8);
    const reader = new BlobFileReader(CAPACITY);
    expectBoundedDescriptors(reader, blobFiles(), (f) => {
      // a blob file's first bytes are its header: a read at offset 0 of a small blob
      reader.readValue(join(db, f), {
        kind: "blob",
        fileNumber: 0,
        offset: 0,
        size: 8,
        compression: 0,
      } as never);
    });
  });
});
