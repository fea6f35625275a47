/**
 * A walk over every partition of a two-level index reads the partitions in one call (TableFile.withSpan),
 * as RocksDB's PartitionIndexReader prefetches them, instead of one read each: Nethermind's tables
 * (16,000-byte blocks, partitioned index and filters) have ~180 partitions in 32 MiB, and `inspect
 * --deep` read each alone. Checked on a table RocksDB 7.8.3's db_bench wrote, against sst_dump's counts,
 * and on two of Pebble's own testdata tables (row-based and columnar two-level indexes; fetched from
 * cockroachdb/pebble, test/fixtures/pebble); a damaged partition still fails the walk with the error
 * that names it; a span longer than SPAN_MOST_BYTES is not read at once.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { copyFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openTable } from "../../src/format/index.js";
import { HandleTally } from "../../src/format/block.js";
import { SPAN_MOST_BYTES, TableFile } from "../../src/format/table_file.js";
import { dbBench, makeTempDir, removeDir, sstDumpProperties } from "./oracle.js";
import { REPO } from "../helpers/index.js";

/** A tail too short to hold the partitions: they are read from the file by the walk. */
const TAIL = 4096;

let root: string;
let table: string;
beforeAll(() => {
  root = makeTempDir("index-span");
  // 1 KiB blocks and 512-byte partitions: ~1,150 data blocks in ~47 partitions over ~16 KB
  table = dbBench(join(root, "db"), [
    "--compression_type=snappy",
    "--block_size=1024",
    "--partition_index_and_filters=1",
    "--metadata_block_size=512",
    "--bloom_bits=10",
  ])[0]!;
});
afterAll(() => removeDir(root));

/** The table's data blocks and partitions by a deep walk, and the reads the walk made. */
function deepWalk(path: string, tail = TAIL): { blocks: number; partitions: number; walkReads: number } {
  const t = openTable(path, { verifyChecksums: true, prefetchTail: tail });
  try {
    const before = t.io.reads;
    const tally = new HandleTally();
    t.index.tallyHandles(tally, false);
    return { blocks: tally.blocks, partitions: tally.partitions.size, walkReads: t.io.reads - before };
  } finally {
    t.close();
  }
}

describe("two-level index partitions read at once", () => {
  it("tallies sst_dump's data blocks and partitions with one read for the partitions", () => {
    const d = sstDumpProperties(table).labels;
    const partitions = Number(d.get("# index partitions"));
    expect(partitions).toBeGreaterThan(20);
    const walk = deepWalk(table);
    expect(walk.blocks).toBe(Number(d.get("# data blocks")));
    expect(walk.partitions).toBe(partitions);
    // the top level lies in the tail; every partition comes from the one read of their span
    expect(walk.walkReads).toBe(1);
  });

  it("walks from a key the blocks from the one that may hold it, with one read", () => {
    const t = openTable(table, { verifyChecksums: true, prefetchTail: TAIL });
    try {
      const separators: Buffer[] = [];
      const offsets: number[] = [];
      t.forEachIndexHandle((offset, _size, _partition, separator, length) => {
        offsets.push(offset);
        separators.push(Buffer.from(separator.subarray(0, length)));
      });
      expect(t.indexKeyIsUserKey).toBe(true);
      const k = offsets.length >> 1;
      const before = t.io.reads;
      const from: number[] = [];
      t.index.walk(({ cursor }) => void from.push(cursor.handleOffset), { from: separators[k]! });
      // block k's separator is the first ≥ the key (its own); RocksDB's separators differ block to block
      expect(from).toEqual(offsets.slice(k));
      expect(t.io.reads - before).toBe(1);
    } finally {
      t.close();
    }
  });

  it("fails a flipped partition with the error that names it, as one read per partition did", () => {
    const t = openTable(table);
    const parts = [...t.index.partitions()];
    t.close();
    const mid = parts[parts.length >> 1]!;
    const copy = join(root, "flipped.sst");
    copyFileSync(table, copy);
    const bytes = readFileSync(copy);
    bytes[mid.offset + 3]! ^= 0x10;
    writeFileSync(copy, bytes);
    const failure = (tail: number) => {
      try {
        deepWalk(copy, tail);
      } catch (e) {
        const { message, file, offset } = e as { message: string; file?: string; offset?: number };
        return { message, file, offset };
      }
      return undefined;
    };
    const spanned = failure(TAIL);
    expect(spanned).toEqual({
      message: expect.stringMatching(/^index partition block: xxh3 checksum mismatch/) as string,
      file: copy,
      offset: mid.offset,
    });
    // the whole file as the tail: no span, each partition read from there
    expect(failure(bytes.length)).toEqual(spanned);
  });

  it("Pebble's two-level tables (its testdata, row and columnar): the same handles, the partitions in one read", () => {
    const pebble = join(REPO, "test", "fixtures", "pebble", "tables");
    for (const f of [
      join(pebble, "pebblev1", "h-no-compression-two-level-index-sst_000003.sst"),
      join(pebble, "columnar", "cr-schema.v7.sst"),
    ]) {
      const walk = (tail: number) => {
        const t = openTable(f, { verifyChecksums: true, prefetchTail: tail });
        try {
          const before = t.io.reads;
          const visits: number[] = [];
          t.forEachIndexHandle((offset, size, partition) => void visits.push(offset, size, partition), false);
          return { visits, reads: t.io.reads - before, partitions: [...t.index.partitions()].length };
        } finally {
          t.close();
        }
      };
      // a 64-byte tail holds the footer only: the top level is one read, every partition the other
      const short = walk(64);
      expect(short.partitions, f).toBeGreaterThanOrEqual(3);
      expect(short.reads, f).toBe(2);
      // the whole file as the tail: nothing read, every block from there
      const whole = walk(1 << 30);
      expect(whole.reads, f).toBe(0);
      expect(short.visits, f).toEqual(whole.visits);
    }
  });

  it("reads a span once, and one longer than SPAN_MOST_BYTES block by block", () => {
    const path = join(root, "bytes.bin");
    writeFileSync(path, Buffer.alloc(SPAN_MOST_BYTES + 8192, 7));
    const f = new TableFile(path);
    try {
      const buf = Buffer.alloc(100);
      const readsOf = (start: number, end: number) => {
        const before = f.io.reads;
        f.withSpan(start, end, () => {
          for (let at = start; at + 100 <= end && at < start + 5000; at += 1000) f.readInto(buf, 0, 100, at);
        });
        return f.io.reads - before;
      };
      expect(readsOf(0, 8192)).toBe(1);
      expect(readsOf(0, SPAN_MOST_BYTES + 1)).toBe(5);
    } finally {
      f.close();
    }
  });
});
