/**
 * format/table_file.ts, the read-ahead window: its buffer holds what its fills need, not the window's
 * whole size. A merge over an L0 pile-up gives each run a share of its read-ahead too small for two
 * blocks (32 MiB over 4,884 tables: 6.7 KiB each, for ~4.1 KiB blocks), so each fill reads one block;
 * a buffer of the full share left the rest unused but resident, in every run of every scanning thread.
 * On a table RocksDB wrote with blocks of about one size (the nethermind sample's flat state: 57 data
 * blocks of 3.7-4.1 KiB), read block by block as a merge's run reads it: with a window larger than any
 * of its blocks but smaller than two, the buffer stays within a block and an eighth; with a 256 KiB
 * window it grows to the fills such a window makes, at most the window. Every block reads the same as
 * without a window.
 */
import { describe, expect, it } from "vitest";
import { join } from "node:path";
import { openTable } from "../../src/format/table.js";
import { SAMPLES } from "../helpers/index.js";

const TABLE = join(SAMPLES, "nethermind", "nethermind_db", "mainnet", "flat", "000021.sst");
const TRAILER = 5;

/** Read every data block as a scan does, with a window of `readAhead` bytes; the buffer's size after. */
function scanWithWindow(readAhead: number): { buffer: number; blocks: Buffer[] } {
  const t = openTable(TABLE, { readAhead });
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
  const t = openTable(TABLE);
  const index = t.packedIndex();
  let largest = 0;
  let smallest = Infinity;
  for (let i = 0; i < index.count; i++) {
    largest = Math.max(largest, index.blockSize(i) + TRAILER);
    smallest = Math.min(smallest, index.blockSize(i) + TRAILER);
  }
  const plain: Buffer[] = [];
  for (let i = 0; i < index.count; i++)
    plain.push(Buffer.from(t.blocks.file.readBlock(index.handle(i), "data")));
  t.close();

  it("a window too small for two blocks holds about one block, not its whole size", () => {
    expect(index.count).toBeGreaterThan(50);
    const share = 2 * smallest - 1;
    expect(share).toBeGreaterThan(largest);
    const { buffer, blocks } = scanWithWindow(share);
    expect(buffer).toBeGreaterThanOrEqual(largest);
    // one block, its headroom, an eighth more and rounding to 512 bytes; the share was ~2 blocks
    expect(buffer).toBeLessThanOrEqual(Math.ceil(((largest + 8) * 9) / 8 / 512) * 512);
    expect(buffer).toBeLessThan(share);
    expect(blocks).toEqual(plain);
  });

  it("a window of 256 KiB fills 256 KiB at a time, its buffer at most the window", () => {
    const { buffer, blocks } = scanWithWindow(256 * 1024);
    expect(buffer).toBeGreaterThan(2 * largest);
    expect(buffer).toBeLessThanOrEqual(256 * 1024);
    expect(blocks).toEqual(plain);
  });
});
