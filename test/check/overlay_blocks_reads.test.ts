/**
 * The placement overlay's block sampling (check/overlay_draw.ts forDrawnBlocks) opens each drawn table
 * with one read of its end, as wide as the tables before needed, not the footer, metaindex, properties
 * and index one read each: `check` on an L0 pile-up opens thousands of tables there. Read calls are the
 * kernel's count for this thread (/proc/thread-self/io syscr), which its synchronous reads alone move.
 * Blocks drawn close together in a table are read in one call, and are the blocks a read of each gives.
 */
import { afterAll, describe, expect, it } from "vitest";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { SstFileModel } from "../../src/datadir/model.js";
import { openTable } from "../../src/format/index.js";
import type { FrameFile } from "../../src/check/overlay_blocks.js";
import { forDrawnBlocks } from "../../src/check/overlay_draw.js";
import { TableCache } from "../../src/lsm/table_cache.js";
import { toHex } from "../../src/util/bytes.js";
import { SAMPLES, tableFilesUnder } from "../helpers/index.js";

const IO = "/proc/thread-self/io";
const readCalls = () => Number(/^syscr: (\d+)$/m.exec(readFileSync(IO, "latin1"))![1]);

describe("block sampling's table opens", () => {
  const caches: TableCache[] = [];
  afterAll(() => caches.forEach((c) => c.close()));

  it.skipIf(!existsSync(IO))("take one read call per table, and one per data block outside its end", () => {
    const paths = tableFilesUnder(join(SAMPLES, "besu-snapshot"));
    const files: FrameFile[] = paths.map((path) => {
      const t = openTable(path);
      const blocks = t.props.numDataBlocks ?? 0;
      const entries = t.props.numEntries ?? 0;
      t.close();
      // what forDrawnBlocks reads of a table's model: its path and MANIFEST size
      const f = { path, fileSize: statSync(path).size, present: true } as unknown as SstFileModel;
      return { f, level: 0, blocks, entries };
    });
    const withBlocks = files.filter((x) => x.blocks > 0);
    expect(withBlocks.length).toBeGreaterThan(4);
    // one draw in the first and the last block of every table
    const draws: number[] = [];
    let base = 0;
    for (const x of withBlocks) {
      draws.push(base, base + x.blocks - 1);
      base += x.blocks;
    }
    const run = () => {
      const cache = new TableCache({ verifyChecksums: true }, 0);
      caches.push(cache);
      const blocks = new Set<string>();
      const before = readCalls();
      forDrawnBlocks(
        withBlocks.map((x) => ({ ...x, handles: undefined })),
        draws,
        cache,
        (f, e) => {
          throw new Error(`${f.path}: ${(e as Error).message}`);
        },
        (x, block) => {
          expect(block).toBeDefined();
          blocks.add(x.f.path);
        },
      );
      return { reads: readCalls() - before - 1, tables: blocks.size };
    };
    run(); // once before counting: the first open loads what it needs
    const { reads, tables } = run();
    expect(tables).toBe(withBlocks.length);
    // each table's end in one read; its first and last data blocks are inside that end or a read each
    expect(reads).toBeLessThanOrEqual(tables * 3);
    // opened a read per footer, metaindex, properties and index block, it took at least four a table
    // before its data blocks
    expect(reads).toBeLessThan(tables * 4);
  });

  it.skipIf(!existsSync(IO))(
    "read blocks drawn close together in one call, each as a read of its own gives it",
    () => {
      // a table of 41 data blocks (~13 KiB each, LZ4), written through RocksDB
      const path = join(SAMPLES, "besu-generated", "database", "000034.sst");
      const t = openTable(path);
      const blocks = t.props.numDataBlocks ?? 0;
      const handles: { offset: number; size: number }[] = [];
      t.forEachIndexHandle((offset, size) => {
        handles.push({ offset, size });
      });
      // every other block of the first 16: gaps of one block between them, ~200 KiB from first to last
      const drawn = Array.from({ length: 8 }, (_, i) => 2 * i);
      const summary = (b: ReturnType<typeof t.readDataBlock>) => {
        const c = b.cursor();
        let n = 0;
        let first = "";
        let last = "";
        while (c.next()) {
          if (n++ === 0) first = toHex(c.key.subarray(0, c.keyLength));
          last = toHex(c.key.subarray(0, c.keyLength));
        }
        return `${n} ${first} ${last}`;
      };
      const own = drawn.map((i) => summary(t.readDataBlock(handles[i]!)));
      t.close();
      expect(blocks).toBe(41);
      const f = { path, fileSize: statSync(path).size, present: true } as unknown as SstFileModel;
      const run = (draws: number[]) => {
        const cache = new TableCache({ verifyChecksums: true }, 0);
        caches.push(cache);
        const seen: string[] = [];
        const before = readCalls();
        forDrawnBlocks(
          [{ f, level: 0, blocks, entries: t.props.numEntries ?? 0 }],
          draws,
          cache,
          (_f, e) => {
            throw e;
          },
          (_x, block) => seen.push(summary(block)),
        );
        return { reads: readCalls() - before - 1, seen };
      };
      run(drawn);
      // the table's metadata and one block
      const one = run([0]).reads;
      const { reads, seen } = run(drawn);
      expect(seen).toEqual(own);
      // the eight blocks in one read, as the one block (a read each: 7 more)
      expect(reads).toBe(one);
    },
  );
});
