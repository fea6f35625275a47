/**
 * forEachIndexHandle(visit, false) — deep mode's walk, which reads the index blocks that lie in the
 * prefetched tail in place instead of giving each a buffer of its own — visits exactly the handles,
 * partitions and io counts the pinned walk does, on every committed sample table (one-level, hash and
 * two-level indexes, LevelDB, Pebble); and a flipped byte in a table's index block (inside the tail)
 * fails it with the same located error.
 */
import { afterAll, describe, expect, it } from "vitest";
import { copyFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openTable } from "../../src/format/index.js";
import { SAMPLES, tableFilesUnder, trackedTempDirs } from "../helpers/index.js";

const TAIL = 32 * 1024;

/** Every handle the walk visits, then the table's io counts, or the error it fails with. */
function walk(path: string, pin: boolean): { visits: number[][]; reads: number; bytes: number } | string {
  let t: ReturnType<typeof openTable> | undefined;
  try {
    // a LevelDB table's open walks its index already (the first data block's compression)
    t = openTable(path, { verifyChecksums: true, prefetchTail: TAIL });
    const visits: number[][] = [];
    const visit = (offset: number, size: number, partition: number) => {
      visits.push([offset, size, partition]);
    };
    t.forEachIndexHandle(visit, pin);
    // a second walk after the in-place one: the blocks are read again, the same
    t.forEachIndexHandle(visit, pin);
    return { visits, reads: t.io.reads, bytes: t.io.bytes };
  } catch (e) {
    return (e as Error).message;
  } finally {
    t?.close();
  }
}

describe("index walk in place (deep mode)", () => {
  const tmp = trackedTempDirs("lsmscope-walk-in-place-");
  afterAll(() => tmp.cleanupTemps());
  const files = tableFilesUnder(SAMPLES);

  it("visits what the pinned walk visits, on every sample table", () => {
    expect(files.length).toBeGreaterThan(20);
    let twoLevel = 0;
    for (const f of files) {
      const t = openTable(f);
      if (t.indexType === "two-level") twoLevel++;
      t.close();
      expect(walk(f, false), f).toEqual(walk(f, true));
    }
    expect(twoLevel).toBeGreaterThan(0);
  });

  it("fails a flipped index block with the pinned walk's error", () => {
    const dir = tmp.tempDir();
    let flipped = 0;
    for (const f of files) {
      const t = openTable(f);
      const { offset, size } = t.index.handle;
      const inTail = t.fileSize - offset <= TAIL && t.format !== "pebble";
      t.close();
      if (!inTail || size < 2) continue;
      const copy = join(dir, `${flipped}.sst`);
      copyFileSync(f, copy);
      const bytes = readFileSync(copy);
      bytes[offset + 1]! ^= 0x40;
      writeFileSync(copy, bytes);
      const pinned = walk(copy, true);
      expect(typeof pinned, f).toBe("string");
      expect(walk(copy, false), f).toBe(pinned);
      flipped++;
    }
    expect(flipped).toBeGreaterThan(10);
  });
});
