/**
 * A scan's compressed blocks are checked and decompressed where they lie in the table's read-ahead
 * window (TableFile.decodeInWindow), and LZ4's size prefix is written into the window there: the
 * window must read back unchanged. Blocks of a db_bench LZ4 table read with `reuse` forwards,
 * backwards and again give the entries that reads of their own (no window) give, and a block with a
 * flipped byte is refused without spoiling its neighbours' reads from the same window. A scan's
 * uncompressed blocks (none compressed, or stored raw because the codec saved too little) are checked
 * and read where they lie in the window (TableFile.readBlock's `inPlace`): the same entries as reads of their
 * own, a flipped one refused. A window smaller than two blocks (a merge over thousands of runs) reads
 * each block once, up to its end and no further.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openTable } from "../../src/format/index.js";
import { BLOCK_TRAILER_SIZE, type BlockHandle } from "../../src/format/handle.js";
import { BLOCK_HEADROOM } from "../../src/format/compression.js";
import { dbBench, makeTempDir, removeDir } from "./oracle.js";

let root: string;
let file: string;
/** A table whose blocks are stored raw (no compression). */
let rawFile: string;

beforeAll(() => {
  root = makeTempDir("window");
  // 4 KiB blocks, LZ4 (compressible values), xxh3 checksums: dozens of blocks per 64 KiB window
  [file] = dbBench(join(root, "db"), ["--num=4000", "--compression_type=lz4", "--compression_ratio=0.5"]) as [
    string,
  ];
  [rawFile] = dbBench(join(root, "raw"), ["--num=4000", "--compression_type=none"]) as [string];
});
afterAll(() => removeDir(root));

type Entries = string[];

function entriesOf(t: ReturnType<typeof openTable>, h: BlockHandle, reuse: boolean): Entries {
  const out: Entries = [];
  for (const e of t.readDataBlock(h, { lifetime: reuse ? "scratch" : "owned" }))
    out.push(`${e.userKey.toString("hex")}@${e.seqno}:${e.value.toString("hex")}`);
  return out;
}

/** Every data block's handle in `path`, and its entries read on their own (no read-ahead window). */
function blocksOf(path: string): { handles: BlockHandle[]; want: Entries[] } {
  const t = openTable(path);
  try {
    const handles = t.indexEntries().map((ie) => ie.handle);
    return { handles, want: handles.map((h) => entriesOf(t, h, false)) };
  } finally {
    t.close();
  }
}

describe("blocks decoded in the read-ahead window", () => {
  it("read forwards, backwards and again, match reads of their own", () => {
    const { handles, want } = blocksOf(file);
    expect(handles.length).toBeGreaterThan(20);
    const t = openTable(file, { readAhead: 64 * 1024 });
    try {
      const order = [...handles.keys(), ...[...handles.keys()].reverse(), ...handles.keys()];
      for (const i of order) expect(entriesOf(t, handles[i]!, true), `block ${i}`).toEqual(want[i]);
    } finally {
      t.close();
    }
  });

  it("refuse a flipped block and still read its neighbours", () => {
    const { handles, want } = blocksOf(file);
    const bad = handles[5]!;
    const bytes = readFileSync(file);
    bytes[bad.offset + Math.floor(bad.size / 2)]! ^= 0x40;
    const flipped = join(root, "flipped.sst");
    writeFileSync(flipped, bytes);
    const t = openTable(flipped, { readAhead: 64 * 1024 });
    try {
      for (const i of [4, 6, 4]) expect(entriesOf(t, handles[i]!, true)).toEqual(want[i]);
      expect(() => entriesOf(t, bad, true)).toThrow(/data block: \w+ checksum mismatch/);
      for (const i of [4, 6, 7]) expect(entriesOf(t, handles[i]!, true)).toEqual(want[i]);
    } finally {
      t.close();
    }
  });
});

describe("uncompressed blocks read in place by a scan", () => {
  /** Every data block's entries through the scan's reader (one cursor, blocks loaded in turn). */
  function scanned(path: string, handles: BlockHandle[], order: number[]): Entries[] {
    const t = openTable(path, { readAhead: 64 * 1024 });
    const reader = t.dataBlockReader();
    const c = reader.newCursor();
    try {
      return order.map((i) => {
        reader.load(c, handles[i]!);
        const out: Entries = [];
        while (c.next())
          out.push(`${c.userKeyCopy().toString("hex")}@${c.seqno}:${c.valueCopy().toString("hex")}`);
        return out;
      });
    } finally {
      t.close();
    }
  }

  it("give the entries of reads of their own, and a flipped one is refused", () => {
    const { handles, want } = blocksOf(rawFile);
    // the blocks are raw (trailer type 0): what this test is about
    const bytes = readFileSync(rawFile);
    expect(handles.every((h) => bytes[h.offset + h.size] === 0)).toBe(true);
    expect(handles.length).toBeGreaterThan(20);
    const order = [...handles.keys(), ...[...handles.keys()].reverse()];
    const got = scanned(rawFile, handles, order);
    order.forEach((i, n) => expect(got[n], `block ${i}`).toEqual(want[i]));

    const bad = handles[5]!;
    expect(bytes[bad.offset + bad.size]).toBe(0);
    bytes[bad.offset + Math.floor(bad.size / 2)]! ^= 0x40;
    const flipped = join(root, "raw-flipped.sst");
    writeFileSync(flipped, bytes);
    expect(scanned(flipped, handles, [4, 6])).toEqual([want[4], want[6]]);
    expect(() => scanned(flipped, handles, [4, 5])).toThrow(/data block: \w+ checksum mismatch/);
  });
});

describe("a read-ahead window smaller than two blocks", () => {
  it("reads each block once and no more than up to its end (a merge over thousands of runs)", () => {
    const { handles, want } = blocksOf(rawFile);
    const largest = Math.max(...handles.map((h) => h.size + BLOCK_TRAILER_SIZE));
    // a merge over an L0 pile-up: 32 MiB of windows over 4,354 runs, ~1.9 blocks of 4 KiB each
    const window = Math.floor(largest * 1.9);
    const t = openTable(rawFile, { readAhead: window });
    const reader = t.dataBlockReader();
    const c = reader.newCursor();
    try {
      const before = { reads: t.io.reads, bytes: t.io.bytes };
      handles.forEach((h, i) => {
        reader.load(c, h);
        const out: Entries = [];
        while (c.next())
          out.push(`${c.userKeyCopy().toString("hex")}@${c.seqno}:${c.valueCopy().toString("hex")}`);
        expect(out, `block ${i}`).toEqual(want[i]);
      });
      // a window filled to its end would read the next block's start and then again at the next miss
      const stored = handles.reduce((n, h) => n + h.size + BLOCK_TRAILER_SIZE, 0);
      expect(t.io.reads - before.reads).toBeLessThanOrEqual(handles.length);
      // (a block small enough for two in the window, as the last one, fills the window)
      expect(t.io.bytes - before.bytes).toBeLessThanOrEqual(
        stored + handles.length * BLOCK_HEADROOM + window,
      );
    } finally {
      t.close();
    }
  });
});
