/**
 * The read-ahead helper (native/readahead.c through src/util/readahead_helper.ts): built wherever the
 * engine addon is, it brings the asked-for ranges into the page cache without reading them on the
 * caller's thread, counts the files it could not open, changes no file, and meets bad arguments with a
 * TypeError rather than a crash. Its readTails reads files' last bytes on another thread: the bytes
 * Node's own reads find there, the size and inode number fstat gives, a flag per file.
 */
import { afterAll, describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import {
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { dropFileCache, engineAvailable } from "../../src/engine/index.js";
import { ROCKSDB_HEADER } from "../../src/engine/native.js";
import {
  readAheadHelper,
  type ReadTails,
  TAIL_NOT_READ,
  TAIL_READ,
  tailReadHelper,
} from "../../src/util/readahead_helper.js";
import { snapshotTree, trackedTempDirs } from "../helpers/index.js";

const { tempDir, cleanupTemps } = trackedTempDirs("lsmscope-readahead-");
afterAll(cleanupTemps);
const willNeed = readAheadHelper();
const readTails = tailReadHelper();

/** readTails over `paths`, `length` bytes a slot: what it wrote, once the call has settled. */
async function tailsOf(read: ReadTails, paths: string[], length: number) {
  const data = Buffer.alloc(paths.length * length, 0xee);
  const info = new Float64Array(3 * paths.length);
  const done = new Int32Array(paths.length);
  await read(paths.map((p) => `${p}\0`).join(""), paths.length, length, data, info, done);
  return paths.map((_, k) => ({
    done: done[k],
    size: info[3 * k],
    ino: info[3 * k + 1],
    bytes: data.subarray(k * length, k * length + info[3 * k + 2]!),
  }));
}

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

  it.skipIf(!readTails)(
    "readTails: each file's last bytes, its size and inode, a flag per file",
    async () => {
      const dir = tempDir();
      const big = join(dir, "big.sst");
      const small = join(dir, "small.sst");
      const empty = join(dir, "empty.sst");
      const bigBytes = randomBytes(100_000);
      const smallBytes = randomBytes(300);
      writeFileSync(big, bigBytes);
      writeFileSync(small, smallBytes);
      writeFileSync(empty, "");
      const sub = join(dir, "a-directory.sst");
      mkdirSync(sub);
      // a FIFO where the snapshots below do not read it (they would wait for a writer)
      const fifo = join(tempDir(), "fifo.sst");
      execFileSync("mkfifo", [fifo]);
      // more files than the helper opens at once (32), in two calls' worth of order
      const many = Array.from({ length: 70 }, (_, i) => {
        const p = join(dir, `${String(i).padStart(6, "0")}.sst`);
        writeFileSync(p, Buffer.alloc(5000 + i, i));
        return p;
      });
      const before = snapshotTree(dir);
      const paths = [big, small, empty, join(dir, "missing.sst"), sub, fifo, ...many];
      const got = await tailsOf(readTails!, paths, 4096);
      const expected = (p: string) => {
        const all = readFileSync(p);
        return all.subarray(Math.max(0, all.length - 4096));
      };
      for (const [k, p] of paths.entries()) {
        const g = got[k]!;
        if (k >= 3 && k <= 5) {
          // missing, a directory, a FIFO (opened without waiting for a writer): the reader reads these
          expect(g.done, p).toBe(TAIL_NOT_READ);
          continue;
        }
        const st = statSync(p);
        expect(g.done, p).toBe(TAIL_READ);
        expect(g.size, p).toBe(st.size);
        expect(g.ino, p).toBe(st.ino);
        expect(g.bytes.equals(expected(p)), p).toBe(true);
      }
      expect(got[0]!.bytes.equals(bigBytes.subarray(-4096))).toBe(true);
      expect(got[1]!.bytes.equals(smallBytes)).toBe(true);
      expect(got[2]!.bytes.length).toBe(0);
      expect(snapshotTree(dir)).toEqual(before);
      // no files: nothing to do
      await expect(
        readTails!("", 0, 4096, Buffer.alloc(0), new Float64Array(0), new Int32Array(0)),
      ).resolves.toBe(undefined);
    },
  );

  it.skipIf(!readTails)("readTails: bad arguments get a TypeError", () => {
    const p = "/tmp/x\0";
    const b = (n: number) => Buffer.alloc(n);
    const f = (n: number) => new Float64Array(n);
    const i = (n: number) => new Int32Array(n);
    for (const args of [
      [],
      [p, 1, 16, b(16), f(3)],
      [["/tmp/x"], 1, 16, b(16), f(3), i(1)],
      [p, 2, 16, b(32), f(6), i(2)], // one path, count 2
      [p + p, 1, 16, b(16), f(3), i(1)], // two paths, count 1
      ["/tmp/x", 1, 16, b(16), f(3), i(1)], // not NUL-terminated
      ["\0", 1, 16, b(16), f(3), i(1)], // an empty path
      [p, 1, 16, b(15), f(3), i(1)], // data too short
      [p, 1, 16, b(16), f(2), i(1)],
      [p, 1, 16, b(16), f(3), i(0)],
      [p, 1, 16, new Uint16Array(16), f(3), i(1)],
      [p, 1, 16, b(16), new Float32Array(3), i(1)],
      [p, 1, 16, b(16), f(3), new Uint32Array(1)],
      [p, 1, -1, b(16), f(3), i(1)],
      [p, 1, 0.5, b(16), f(3), i(1)],
      [p, 1, 2 ** 27, b(16), f(3), i(1)],
      [p, -1, 16, b(16), f(3), i(1)],
      [p.repeat(4097), 4097, 1, b(4097), f(3 * 4097), i(4097)],
    ] as unknown[][])
      expect(
        () => (readTails as (...a: unknown[]) => unknown)(...args),
        JSON.stringify(args).slice(0, 60),
      ).toThrow(TypeError);
  });
});
