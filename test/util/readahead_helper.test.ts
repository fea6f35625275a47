/**
 * The read-ahead helper (native/readahead.c through src/util/readahead_helper.ts): built wherever the
 * engine addon is, it brings the asked-for ranges into the page cache without reading them on the
 * caller's thread, counts the files it could not open, changes no file, and meets bad arguments with a
 * TypeError rather than a crash.
 */
import { afterAll, describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import { closeSync, existsSync, fsyncSync, openSync, readFileSync, readSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { dropFileCache, engineAvailable } from "../../src/engine/index.js";
import { ROCKSDB_HEADER } from "../../src/engine/native.js";
import { readAheadHelper } from "../../src/util/readahead_helper.js";
import { snapshotTree, trackedTempDirs } from "../helpers/index.js";

const { tempDir, cleanupTemps } = trackedTempDirs("lsmscope-readahead-");
afterAll(cleanupTemps);
const willNeed = readAheadHelper();

/** Bytes this thread has had read from storage (/proc: page-cache hits do not count). */
const storageReadBytes = () =>
  Number(/^read_bytes: (\d+)$/m.exec(readFileSync(`/proc/self/task/${process.pid}/io`, "latin1"))![1]);

/** A file of `size` bytes on disk, not only in the page cache (dropFileCache drops clean pages only). */
function writtenFile(dir: string, name: string, size: number): string {
  const path = join(dir, name);
  writeFileSync(path, Buffer.alloc(size, name.length));
  const fd = openSync(path, "r+");
  fsyncSync(fd);
  closeSync(fd);
  return path;
}

/** Read [offset, offset + len) of `path` on this thread; the storage bytes that took. */
function readOnThisThread(path: string, offset: number, len: number): number {
  const before = storageReadBytes();
  const fd = openSync(path, "r");
  try {
    readSync(fd, Buffer.alloc(len), 0, len, offset);
  } finally {
    closeSync(fd);
  }
  return storageReadBytes() - before;
}

describe("read-ahead helper", () => {
  it("is built wherever the engine addon is (scripts/build-addon.mjs builds both)", () => {
    if (existsSync(ROCKSDB_HEADER) && engineAvailable()) expect(willNeed).toBeTypeOf("function");
    process.env.LSMSCOPE_READAHEAD_HELPER = "0";
    try {
      expect(readAheadHelper()).toBeUndefined();
    } finally {
      delete process.env.LSMSCOPE_READAHEAD_HELPER;
    }
  });

  it.skipIf(!willNeed)("counts the files it could not open and changes none", async () => {
    const dir = tempDir();
    const a = writtenFile(dir, "a.sst", 50_000);
    const b = writtenFile(dir, "b.sst", 10);
    const before = snapshotTree(dir);
    // a range past the end and an empty one are not errors: there is nothing to read
    await expect(
      willNeed!([a, join(dir, "missing.sst"), b, a], [40_000, 0, 0, 60_000], [10_000, 4096, 4096, 0]),
    ).resolves.toBe(1);
    await expect(willNeed!([], [], [])).resolves.toBe(0);
    // an empty range asks for nothing: the file is not even opened (posix_fadvise would read a length
    // of 0 as the rest of the file)
    await expect(willNeed!([join(dir, "missing.sst")], [0], [0])).resolves.toBe(0);
    expect(snapshotTree(dir)).toEqual(before);
    // a FIFO in place of a table (an untrusted datadir) is opened without waiting for a writer, and
    // cannot be advised
    const fifo = join(dir, "fifo.sst");
    execFileSync("mkfifo", [fifo]);
    await expect(willNeed!([fifo, a], [0, 0], [4096, 4096])).resolves.toBe(1);
  });

  it.skipIf(!willNeed)("rejects bad arguments with a TypeError", () => {
    const p = "/tmp/x";
    for (const args of [
      [],
      [p, 0, 1],
      [[p], [0], []],
      [[p], [-1], [1]],
      [[p], [0.5], [1]],
      [[p], [0], [2 ** 53]],
      [[p], ["0"], [1]],
      [[""], [0], [1]],
      [["/tmp/a\0b"], [0], [1]],
      [[1], [0], [1]],
      [Array(4097).fill(p), Array(4097).fill(0), Array(4097).fill(1)],
    ] as unknown[][])
      expect(
        () => (willNeed as (...a: unknown[]) => unknown)(...args),
        JSON.stringify(args).slice(0, 60),
      ).toThrow(TypeError);
  });

  it.skipIf(!willNeed || !engineAvailable())(
    "brings a dropped file's range into the page cache, read off this thread",
    async (ctx) => {
      const dir = tempDir();
      const size = 256 * 1024;
      const tail = 64 * 1024;
      const control = writtenFile(dir, "control.sst", size);
      const advised = writtenFile(dir, "advised.sst", size);
      dropFileCache(control);
      dropFileCache(advised);
      // where dropping pages does not take (a file system without a page cache of its own: tmpfs),
      // nothing here can tell a hit from a read
      const cold = readOnThisThread(control, size - tail, tail);
      if (cold === 0) ctx.skip();
      expect(cold).toBeGreaterThanOrEqual(tail);
      await expect(willNeed!([advised], [size - tail], [tail])).resolves.toBe(0);
      expect(readOnThisThread(advised, size - tail, tail)).toBe(0);
    },
  );
});
