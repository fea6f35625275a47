/**
 * format/table_file.ts, the read-ahead window: its buffer holds what its fills need, not the window's
 * whole size. A merge over an L0 pile-up gives each run a share of its read-ahead too small for two
 * blocks (32 MiB over 4,884 tables: 6.7 KiB each, for ~4.1 KiB blocks), so each fill reads one block;
 * a buffer of the full share left the rest unused but resident, in every run of every scanning thread.
 * A table's last data block is short, under half such a share: its fill would read ahead the whole
 * share (into the table's metadata) and grew the buffer to it, which a buffer that holds the block
 * does not need.
 *
 * On L0 tables db_bench wrote (RocksDB 7.8.3: 4 KiB blocks of ~4.08 KiB, uncompressed, each table's
 * last block 1.9-4.0 KiB), each read block by block as a merge's run reads it: with a window larger
 * than any of its blocks but smaller than two of its full ones, the buffer stays within a block and an
 * eighth, the short last block included; with a 256 KiB window it grows to the fills such a window
 * makes, at most the window. Every block reads the same as without a window.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { openTable } from "../../src/format/table.js";
import { dbBench, trackedTempDirs } from "../helpers/index.js";

const { tempDir, cleanupTemps } = trackedTempDirs("lsmscope-window-");
afterAll(cleanupTemps);

const TRAILER = 5;

interface TableBlocks {
  path: string;
  /** Each data block's size with its trailer, in file order. */
  sizes: number[];
  /** Each data block as read without a window. */
  plain: Buffer[];
}

/** Read every data block of `path` as a scan does, with a window of `readAhead` bytes; the buffer's size after. */
function scanWithWindow(path: string, readAhead: number): { buffer: number; blocks: Buffer[] } {
  const t = openTable(path, { readAhead });
  try {
    const index = t.packedIndex();
    const file = t.blocks.file;
    const blocks: Buffer[] = [];
    for (let i = 0; i < index.count; i++)
      blocks.push(Buffer.from(file.readBlock(index.handle(i), "data", true, true)));
    return { buffer: file.windowBufferBytes, blocks };
  } finally {
    t.close();
  }
}

describe("read-ahead window", () => {
  let tables: TableBlocks[] = [];

  beforeAll(() => {
    const db = tempDir();
    // L0 tables of ~36 blocks each: 256 KiB memtables, one flushed at a time, no compaction
    dbBench(db, [
      "--benchmarks=fillrandom",
      "--num=20000",
      "--disable_auto_compactions=1",
      "--max_write_buffer_number=2",
      "--disable_wal=1",
      "--key_size=16",
      "--value_size=20",
      "--compression_type=none",
      "--block_size=4096",
      "--write_buffer_size=262144",
    ]);
    tables = readdirSync(db)
      .filter((f) => f.endsWith(".sst"))
      .map((f) => {
        const path = join(db, f);
        const t = openTable(path);
        try {
          const index = t.packedIndex();
          const sizes: number[] = [];
          const plain: Buffer[] = [];
          for (let i = 0; i < index.count; i++) {
            sizes.push(index.blockSize(i) + TRAILER);
            plain.push(Buffer.from(t.blocks.file.readBlock(index.handle(i), "data")));
          }
          return { path, sizes, plain };
        } finally {
          t.close();
        }
      })
      .filter((t) => t.sizes.length >= 20);
  });

  it("a window too small for two blocks holds about one block, a short last block included", () => {
    expect(tables.length).toBeGreaterThan(1);
    let shortLast = 0;
    for (const { path, sizes, plain } of tables) {
      const largest = Math.max(...sizes);
      const share = 2 * Math.min(...sizes.slice(0, -1)) - 1;
      expect(share, path).toBeGreaterThan(largest);
      if (2 * sizes[sizes.length - 1]! <= share) shortLast++;
      const { buffer, blocks } = scanWithWindow(path, share);
      expect(buffer, path).toBeGreaterThanOrEqual(largest);
      // one block, its headroom, an eighth more and rounding to 512 bytes; the share was ~2 blocks
      expect(buffer, path).toBeLessThanOrEqual(Math.ceil(((largest + 8) * 9) / 8 / 512) * 512);
      expect(buffer, path).toBeLessThan(share);
      expect(blocks).toEqual(plain);
    }
    // the case a fill of the whole share grew the buffer for
    expect(shortLast).toBeGreaterThan(0);
  });

  it("a window of 256 KiB fills 256 KiB at a time, its buffer at most the window", () => {
    const { path, sizes, plain } = tables[0]!;
    const { buffer, blocks } = scanWithWindow(path, 256 * 1024);
    expect(buffer).toBeGreaterThan(2 * Math.max(...sizes));
    expect(buffer).toBeLessThanOrEqual(256 * 1024);
    expect(blocks).toEqual(plain);
  });
});
