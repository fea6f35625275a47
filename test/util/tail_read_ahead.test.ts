/**
 * TailReadAhead keeps reads going ahead of a synchronous reader and never stands in its way: every
 * ready() resolves, in order, whatever the files are (missing, shorter than the tail, empty), and the
 * reader then reads the files itself (the read-ahead only warms the page cache).
 */
import { describe, expect, it } from "vitest";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ReadTails, TAIL_READ, type WillNeed } from "../../src/util/readahead_helper.js";
import { TailBatches } from "../../src/util/tail_batches.js";
import { setReadRateLimit } from "../../src/util/throttle.js";
import { ADVISE_AHEAD, ADVISE_BATCH, TailReadAhead } from "../../src/util/tail_read_ahead.js";

describe("TailReadAhead", () => {
  it("resolves every file in order, missing, short and empty ones included", async () => {
    const dir = mkdtempSync(join(tmpdir(), "lsmscope-read-ahead-"));
    try {
      const files = Array.from({ length: 40 }, (_, i) => {
        const path = join(dir, `${i}.sst`);
        const size = i % 3 === 0 ? 0 : i * 1000;
        if (i % 7 !== 0) writeFileSync(path, Buffer.alloc(size, i));
        // a size that disagrees with the file (it changed since it was listed) must not hang either
        return { path, size: i % 5 === 0 ? size + 10 : size };
      });
      for (const start of ["now", "when-cold"] as const) {
        const ahead = new TailReadAhead(files, { bytes: 4096 }, 4, start, () => undefined);
        const order: number[] = [];
        for (let i = 0; i < files.length; i++) {
          const tail = ahead.ready(i);
          if (tail) await tail;
          order.push(i);
        }
        expect(order).toEqual(files.map((_, i) => i));
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("with the helper: nothing to wait for; each tail asked for once, in order, before it is read", () => {
    const bad = 7; // a size no file has (2^60): left to the reader
    const files = Array.from({ length: 300 }, (_, i) => ({
      path: `/nonexistent/${i}.sst`,
      size: i === bad ? 2 ** 60 : i * 100,
    }));
    const calls: Parameters<WillNeed>[] = [];
    const willNeed: WillNeed = (...args) => {
      calls.push(args);
      return Promise.resolve(0);
    };
    const ahead = new TailReadAhead(files, { bytes: 4096 }, 4, "now", () => willNeed);
    const index = (path: string) => Number(/(\d+)\.sst$/.exec(path)![1]);
    for (let i = 0; i < files.length; i++) {
      expect(ahead.ready(i)).toBeUndefined();
      const furthest = Math.max(...calls.flatMap(([paths]) => paths.map(index)));
      // this table's tail was asked for before the reader reads it, and at most a lead ahead
      expect(furthest).toBeGreaterThanOrEqual(Math.min(i, files.length - 1));
      expect(furthest).toBeLessThan(i + ADVISE_AHEAD + ADVISE_BATCH);
    }
    expect(calls.every(([paths]) => paths.length <= ADVISE_BATCH)).toBe(true);
    const asked = calls.flatMap(([paths, offsets, lengths]) =>
      paths.map((p, k) => ({ i: index(p), offset: offsets[k], length: lengths[k] })),
    );
    expect(asked).toEqual(
      files.flatMap((f, i) =>
        i === bad ? [] : [{ i, offset: f.size - Math.min(f.size, 4096), length: Math.min(f.size, 4096) }],
      ),
    );
  });

  it("a helper that throws: the pool reads instead, and every ready() resolves in order", async () => {
    const dir = mkdtempSync(join(tmpdir(), "lsmscope-read-ahead-"));
    try {
      const files = Array.from({ length: 20 }, (_, i) => {
        const path = join(dir, `${i}.sst`);
        writeFileSync(path, Buffer.alloc(5000, i));
        return { path, size: 5000 };
      });
      let called = 0;
      const throwing: WillNeed = () => {
        called++;
        throw new TypeError("no such helper");
      };
      const ahead = new TailReadAhead(files, { bytes: 4096 }, 4, "now", () => throwing);
      const waited: number[] = [];
      for (let i = 0; i < files.length; i++) {
        const tail = ahead.ready(i);
        if (tail) {
          await tail;
          waited.push(i);
        }
      }
      expect(called).toBe(1);
      // through the pool every table's read is one to wait for
      expect(waited).toEqual(files.map((_, i) => i));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  // bytes read by the process's threads but this one: the read-ahead's reads run in libuv's pool,
  // while this thread also reads the test runner's messages and /proc itself (counted for the whole
  // process, those once came to 3.6 KB more than the slack below; per thread the count is exact)
  const IO = "/proc/self/io";
  const readBytes = () =>
    readdirSync("/proc/self/task")
      .filter((tid) => Number(tid) !== process.pid)
      .reduce((n, tid) => {
        try {
          return n + Number(/^rchar: (\d+)$/m.exec(readFileSync(`/proc/self/task/${tid}/io`, "latin1"))![1]);
        } catch {
          return n; // a thread that ended since the listing
        }
      }, 0);

  it.skipIf(!existsSync(IO))(
    "reads as much of each file's end as the reader's estimate says then",
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "lsmscope-read-ahead-"));
      try {
        const size = 20_000;
        const files = Array.from({ length: 64 }, (_, i) => {
          const path = join(dir, `${i}.sst`);
          writeFileSync(path, Buffer.alloc(size, i));
          return { path, size };
        });
        // the estimate a reader keeps: 1,000 bytes for the first half of the files, 3,000 after
        let learned = 1000;
        const ahead = new TailReadAhead(
          files,
          {
            get bytes() {
              return learned;
            },
          },
          4,
          "now",
          // the reads through the pool (the helper's, the kernel's, are not the process's reads)
          () => undefined,
        );
        const before = readBytes();
        for (let i = 0; i < files.length; i++) {
          if (i === files.length / 2) learned = 3000;
          const tail = ahead.ready(i);
          if (tail) await tail;
        }
        const read = readBytes() - before;
        // reads started before the estimate grew (the window: 4) took 1,000 bytes. The files whole
        // (what a fixed 32 KiB tail reads of these 20,000-byte files) would be ~11 times this
        const least = 32 * 1000 + 28 * 3000;
        expect(read).toBeGreaterThanOrEqual(least);
        expect(read).toBeLessThan(least + 4 * 2000 + 4096);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );

  describe("with the helper's readTails", () => {
    /** A readTails that reads each file's tail at once, as the helper would (fake sizes and inodes). */
    const calls: string[][] = [];
    const readTails: ReadTails = (text, count, length, data, info, done) => {
      const paths = text.split("\0").slice(0, count);
      calls.push(paths);
      paths.forEach((p, k) => {
        const read = Math.min(10_000, length); // every file 10,000 bytes (files() below)
        data.fill(k % 251, k * length, k * length + read);
        info.set([10_000, k, read], 3 * k);
        done[k] = TAIL_READ;
      });
      return Promise.resolve();
    };
    const files = (n: number) =>
      Array.from({ length: n }, (_, i) => ({ path: `/nowhere/${i}.sst`, size: 10_000 }));
    const run = (n: number) => {
      calls.length = 0;
      const ahead = new TailReadAhead(
        files(n),
        { bytes: 4096 },
        4,
        "now",
        () => undefined,
        () => readTails,
      );
      let taken = 0;
      for (let i = 0; i < n; i++) {
        // the reader never waits for the helper
        expect(ahead.ready(i)).toBeUndefined();
        const t = ahead.take(i);
        if (t) {
          taken++;
          // at least what the reader asked for (4096), as much as the helper read
          expect(t.size).toBe(10_000);
          expect(t.tail.length).toBeGreaterThanOrEqual(4096);
        }
      }
      return taken;
    };

    it("is used from a thousand tables or so: the reader takes every tail without waiting", () => {
      expect(TailBatches.minFiles).toBeGreaterThan(100);
      expect(run(TailBatches.minFiles)).toBe(TailBatches.minFiles);
      expect(calls.flat().length).toBe(TailBatches.minFiles);
    });

    it("is not used on fewer tables, nor under a read-rate limit", () => {
      expect(run(TailBatches.minFiles - 1)).toBe(0);
      expect(calls.length).toBe(0);
      setReadRateLimit(1 << 30);
      try {
        expect(run(TailBatches.minFiles)).toBe(0);
        expect(calls.length).toBe(0);
      } finally {
        setReadRateLimit(undefined);
      }
    });
  });
});
