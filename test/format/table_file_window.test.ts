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
  /** The bytes after the last data block: the table's metadata (index, filter, properties, footer). */
  metadataBytes: number;
}

interface Scanned {
  /** The window's buffer after the scan. */
  buffer: number;
  /** The scratch buffer after the scan (blocks longer than the window are read there). */
  scratch: number;
  /** Both once the table is closed. */
  afterClose: { buffer: number; scratch: number };
  blocks: Buffer[];
}

/**
 * Read every data block of `path` as a scan does, with a window of `readAhead` bytes; the buffers' sizes
 * after. `tail`: the table opened with its last bytes read at once, as a merge's lean run opens it
 * (lsm/lean_table.ts): its metadata then makes no window.
 */
function scanWithWindow(path: string, readAhead: number, tail?: number): Scanned {
  const t = openTable(path, tail === undefined ? { readAhead } : { readAhead, prefetchTail: tail });
  const file = t.blocks.file;
  let scanned: Omit<Scanned, "afterClose">;
  try {
    const index = t.packedIndex();
    const blocks: Buffer[] = [];
    for (let i = 0; i < index.count; i++)
      blocks.push(Buffer.from(file.readBlock(index.handle(i), "data", "window")));
    scanned = { buffer: file.windowBufferBytes, scratch: file.scratchBufferBytes, blocks };
  } finally {
    t.close();
  }
  return { ...scanned, afterClose: { buffer: file.windowBufferBytes, scratch: file.scratchBufferBytes } };
}

/** A buffer of one block of `bytes` (trailer included), its headroom, an eighth more, rounded to 512 bytes. */
const oneBlock = (bytes: number) => Math.ceil(((bytes + 8) * 9) / 8 / 512) * 512;

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
          const last = index.count - 1;
          const metadataBytes = t.fileSize - (index.blockOffset(last) + index.blockSize(last) + TRAILER);
          return { path, sizes, plain, metadataBytes };
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
      const { buffer, scratch, afterClose, blocks } = scanWithWindow(path, share);
      expect(buffer, path).toBeGreaterThanOrEqual(largest);
      // one block, its headroom, an eighth more and rounding to 512 bytes; the share was ~2 blocks
      expect(buffer, path).toBeLessThanOrEqual(oneBlock(largest));
      expect(buffer, path).toBeLessThan(share);
      expect(scratch, path).toBe(0);
      expect(afterClose, path).toEqual({ buffer: 0, scratch: 0 });
      expect(blocks).toEqual(plain);
    }
    // the case a fill of the whole share grew the buffer for
    expect(shortLast).toBeGreaterThan(0);
  });

  it("a window smaller than a block: one scratch buffer of about a block, the short last block read there too", () => {
    // a merge over 10,206 L0 tables gives each run 3.2 KiB (32 MiB over them): under every full block
    // of these tables, above their short last blocks. The blocks went to a scratch buffer that doubled
    // as it grew (~8.3 KiB a run), each short last block to a window of its own besides (30 MiB in the
    // merge's last key range), and a closed table kept both while its run's object lived
    let shortLast = 0;
    for (const { path, sizes, plain, metadataBytes } of tables) {
      const largest = Math.max(...sizes);
      const window = Math.min(...sizes.slice(0, -1)) - 1;
      if (sizes[sizes.length - 1]! < window) shortLast++;
      const { buffer, scratch, afterClose, blocks } = scanWithWindow(path, window, metadataBytes);
      expect(buffer, path).toBe(0);
      expect(scratch, path).toBeGreaterThanOrEqual(largest);
      expect(scratch, path).toBeLessThanOrEqual(oneBlock(largest));
      expect(afterClose, path).toEqual({ buffer: 0, scratch: 0 });
      expect(blocks).toEqual(plain);
    }
    // the case a window besides the scratch buffer was made for
    expect(shortLast).toBeGreaterThan(0);
  });

  it("a window of 256 KiB fills 256 KiB at a time, its buffer at most the window", () => {
    const { path, sizes, plain } = tables[0]!;
    const { buffer, scratch, blocks } = scanWithWindow(path, 256 * 1024);
    expect(scratch).toBe(0);
    expect(buffer).toBeGreaterThan(2 * Math.max(...sizes));
    expect(buffer).toBeLessThanOrEqual(256 * 1024);
    expect(blocks).toEqual(plain);
  });
});
