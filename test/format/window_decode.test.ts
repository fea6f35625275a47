/**
 * A scan's compressed blocks are checked and decompressed where they lie in the table's read-ahead
 * window (TableFile.decodeInWindow), and LZ4's size prefix is written into the window there: the
 * window must read back unchanged. Blocks of a db_bench LZ4 table read with `reuse` forwards,
 * backwards and again give the entries that reads of their own (no window) give, and a block with a
 * flipped byte is refused without spoiling its neighbours' reads from the same window.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openTable } from "../../src/format/index.js";
import type { BlockHandle } from "../../src/format/handle.js";
import { dbBench, makeTempDir, removeDir } from "./oracle.js";

let root: string;
let file: string;

beforeAll(() => {
  root = makeTempDir("window");
  // 4 KiB blocks, LZ4 (compressible values), xxh3 checksums: dozens of blocks per 64 KiB window
  [file] = dbBench(join(root, "db"), ["--num=4000", "--compression_type=lz4", "--compression_ratio=0.5"]) as [
    string,
  ];
});
afterAll(() => removeDir(root));

type Entries = string[];

function entriesOf(t: ReturnType<typeof openTable>, h: BlockHandle, reuse: boolean): Entries {
  const out: Entries = [];
  for (const e of t.readDataBlock(h, { reuse }))
    out.push(`${e.userKey.toString("hex")}@${e.seqno}:${e.value.toString("hex")}`);
  return out;
}

describe("blocks decoded in the read-ahead window", () => {
  it("read forwards, backwards and again, match reads of their own", () => {
    const own = openTable(file);
    const handles = [...own.iterateIndex()].map((ie) => ie.handle);
    expect(handles.length).toBeGreaterThan(20);
    const want = handles.map((h) => entriesOf(own, h, false));
    own.close();
    const t = openTable(file, { readAhead: 64 * 1024 });
    try {
      const order = [...handles.keys(), ...[...handles.keys()].reverse(), ...handles.keys()];
      for (const i of order) expect(entriesOf(t, handles[i]!, true), `block ${i}`).toEqual(want[i]);
    } finally {
      t.close();
    }
  });

  it("refuse a flipped block and still read its neighbours", () => {
    const t0 = openTable(file);
    const handles = [...t0.iterateIndex()].map((ie) => ie.handle);
    const want = handles.map((h) => entriesOf(t0, h, false));
    t0.close();
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
