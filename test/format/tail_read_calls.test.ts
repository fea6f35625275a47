/**
 * Opening a table whose size the MANIFEST gave (`expectedSize`) takes one read call for its tail: the
 * read asks for one byte more than the tail, and a read that ends short is the file's end, so no
 * second call reads the 0 bytes there (on an L0 pile-up that second call was one pread in three).
 * A file of another size than expected is still found out (a stat), and opens with its real size.
 * Read calls are counted by the kernel: /proc/thread-self/io's syscr, which this thread's
 * synchronous opens alone move.
 */
import { afterAll, describe, expect, it } from "vitest";
import { copyFileSync, existsSync, readFileSync, renameSync, statSync, truncateSync } from "node:fs";
import { join } from "node:path";
import { openTable } from "../../src/format/index.js";
import { SAMPLES, tableFilesUnder, trackedTempDirs } from "../helpers/index.js";

const TAIL = 1 << 20;
const IO = "/proc/thread-self/io";

/** Read calls this thread has made (the read of the counter itself included). */
function readCalls(): number {
  return Number(/^syscr: (\d+)$/m.exec(readFileSync(IO, "latin1"))![1]);
}

/** Read calls made by `fn`, less what reading the counter costs. */
function readCallsOf(fn: () => void): number {
  const a = readCalls();
  const b = readCalls();
  fn();
  const c = readCalls();
  return c - b - (b - a);
}

describe("a table's tail, its size expected", () => {
  const tmp = trackedTempDirs("lsmscope-tail-reads-");
  afterAll(() => tmp.cleanupTemps());
  // RocksDB tables smaller than the tail: the open reads nothing else
  const files = tableFilesUnder(join(SAMPLES, "modern"));

  // the kernel's count, where it keeps one (task I/O accounting)
  it.skipIf(!existsSync(IO))("is read in one call per table", () => {
    expect(files.length).toBeGreaterThan(2);
    for (const f of files) expect(statSync(f).size).toBeLessThan(TAIL);
    const openAll = () => {
      for (const f of files) {
        const t = openTable(f, { prefetchTail: TAIL, expectedSize: statSync(f).size });
        expect(t.io.reads).toBe(1);
        t.close();
      }
    };
    // once before counting: a first open loads the modules it needs (their files are read too)
    openAll();
    expect(readCallsOf(openAll)).toBe(files.length);
  });

  it("how far its reads reached is what the reader asked for, not what the prefetch took", () => {
    for (const f of files) {
      const size = statSync(f).size;
      for (const expectedSize of [size, undefined]) {
        // the whole file prefetched (the tail is larger); an open reads the metadata at its end
        const t = openTable(f, { prefetchTail: TAIL, expectedSize });
        expect(t.props.numEntries).toBeGreaterThan(0);
        expect(t.tailReach).toBeGreaterThan(0);
        expect(t.tailReach).toBeLessThan(size);
        expect(t.tailReach).toBeGreaterThanOrEqual(size - t.footer.metaindexHandle.offset);
        t.close();
      }
    }
  });

  it("a file shorter or longer than expected opens with its real size", () => {
    const dir = tmp.tempDir();
    const f = files[0]!;
    const size = statSync(f).size;
    const copy = join(dir, "000001.sst");
    copyFileSync(f, copy);
    // the MANIFEST says one byte more, then one byte less, than the file holds
    for (const expectedSize of [size + 1, size - 1]) {
      const t = openTable(copy, { prefetchTail: TAIL, expectedSize });
      expect(t.fileSize).toBe(size);
      t.close();
    }
    // a file cut short: its footer is gone, and the open says so
    truncateSync(copy, size - 10);
    expect(() => openTable(copy, { prefetchTail: TAIL, expectedSize: size })).toThrow();
  });

  describe("read before the open (the read-ahead helper's, util/tail_batches.ts)", () => {
    /** The file's last `n` bytes, its size and inode, as the helper gives them. */
    const prereadOf = (f: string, n: number) => {
      const all = readFileSync(f);
      const st = statSync(f);
      return { tail: Buffer.from(all.subarray(Math.max(0, all.length - n))), size: st.size, ino: st.ino };
    };
    const details = (t: ReturnType<typeof openTable>) =>
      JSON.stringify({
        props: t.props.all,
        filter: t.filter,
        index: t.indexType,
        io: t.io,
        reach: t.tailReach,
      });

    it.skipIf(!existsSync(IO))("opens the table from them without a read call, the same table", () => {
      for (const f of files) {
        const size = statSync(f).size;
        const plain = openTable(f, { prefetchTail: TAIL, expectedSize: size });
        const want = details(plain);
        plain.close();
        const preread = prereadOf(f, TAIL);
        let got = "";
        const calls = readCallsOf(() => {
          const t = openTable(f, { prefetchTail: TAIL, expectedSize: size, preread });
          got = details(t);
          t.close();
        });
        expect(got, f).toBe(want);
        expect(calls, f).toBe(0);
      }
    });

    it("less than asked for now: read from the file, the same table", () => {
      const f = files[0]!;
      const size = statSync(f).size;
      const plain = openTable(f, { prefetchTail: TAIL });
      const want = details(plain);
      plain.close();
      const t = openTable(f, { prefetchTail: TAIL, expectedSize: size, preread: prereadOf(f, 100) });
      expect(details(t)).toBe(want);
      t.close();
    });

    it("a read beyond them opens the file, and finds out when it is no longer the one they came from", () => {
      const dir = tmp.tempDir();
      const f = files[0]!;
      const copy = join(dir, "000001.sst");
      copyFileSync(f, copy);
      // just the footer read before: the metaindex and properties are read from the file
      const footerOnly = prereadOf(copy, 64);
      const t = openTable(copy, { prefetchTail: 64, preread: footerOnly });
      expect(t.props.numEntries).toBeGreaterThan(0);
      t.close();
      // the file replaced (another inode, as a compaction's output renamed over it) since the read
      const other = join(dir, "other.sst");
      copyFileSync(f, other);
      renameSync(other, copy);
      expect(statSync(copy).ino).not.toBe(footerOnly.ino);
      expect(() => openTable(copy, { prefetchTail: 64, preread: footerOnly })).toThrow(/replaced/);
    });
  });
});
