/**
 * Bad input: truncated files, flipped bytes in footer, metaindex, index, data and properties blocks,
 * unknown compression and checksum types. Each gives one clear error naming file, block and offset.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CorruptionError } from "../../src/util/errors.js";
import { openTable } from "../../src/format/index.js";
import { dbBench, makeTempDir, removeDir } from "./oracle.js";
import { exercise } from "./mutate.js";

let root: string;
let original: Buffer;
let layout: {
  size: number;
  footerOffset: number;
  metaindex: { offset: number; size: number };
  index: { offset: number; size: number };
  properties: { offset: number; size: number };
  filter: { offset: number; size: number };
  firstData: { offset: number; size: number };
  keys: Buffer[];
};

beforeAll(() => {
  root = makeTempDir("corrupt");
  const [file] = dbBench(join(root, "db"), [
    "--num=3000",
    "--compression_type=lz4",
    "--bloom_bits=10",
    "--format_version=5",
  ]);
  original = readFileSync(file!);
  const t = openTable(file!);
  const keys: Buffer[] = [];
  t.scan((e) => {
    if (keys.length < 20) keys.push(e.userKeyCopy());
  });
  layout = {
    size: t.fileSize,
    footerOffset: t.footer.footerOffset,
    metaindex: t.footer.metaindexHandle,
    index: t.indexHandle,
    properties: t.meta("rocksdb.properties")!,
    filter: t.meta(t.filter.metaBlock!)!,
    firstData: t.indexEntries()[0]!.handle,
    keys,
  };
  t.close();
});
afterAll(() => removeDir(root));

function variant(name: string, mutate: (b: Buffer) => Buffer): string {
  const p = join(root, name + ".sst");
  writeFileSync(p, mutate(Buffer.from(original)));
  return p;
}

function expectCorruption(file: string, verify: boolean, pattern: RegExp, offset?: number): CorruptionError {
  const r = exercise(file, verify, layout.keys);
  expect(r.ok).toBe(false);
  if (r.ok) throw new Error("unreachable");
  expect(r.error).toBeInstanceOf(CorruptionError);
  expect(r.error.file).toBe(file);
  expect(r.error.oneLine()).toContain(file);
  expect(r.error.message).toMatch(pattern);
  if (offset !== undefined) expect(r.error.offset).toBe(offset);
  expect(r.error.oneLine()).not.toMatch(/\n/);
  return r.error as CorruptionError;
}

describe("bad input", () => {
  it("the intact sample reads cleanly with checksums verified", () => {
    expect(
      exercise(
        variant("intact", (b) => b),
        true,
        layout.keys,
      ).ok,
    ).toBe(true);
  });

  it("truncated files", () => {
    for (const len of [0, 1, 20, 47, 48, 52, 53, layout.size >> 1, layout.size - 1]) {
      const f = variant(`trunc-${len}`, (b) => b.subarray(0, len));
      expectCorruption(f, false, /too short|magic|past the end|footer|block/);
    }
  });

  it("flipped magic number and unknown format version", () => {
    expectCorruption(
      variant("magic", (b) => ((b[b.length - 1]! ^= 0x40), b)),
      false,
      /magic number/,
      layout.size - 8,
    );
    const f = variant("version", (b) => (b.writeUInt32LE(99, b.length - 12), b));
    expectCorruption(f, false, /format_version 99/, layout.size - 12);
  });

  it("unknown checksum type in the footer", () => {
    const f = variant("cksumtype", (b) => ((b[layout.footerOffset] = 9), b));
    expectCorruption(f, false, /unknown checksum type 9/, layout.footerOffset);
  });

  it("flipped bytes in metaindex, index, properties, filter and data blocks fail their checksums", () => {
    const blocks: [string, { offset: number; size: number }, RegExp][] = [
      ["metaindex", layout.metaindex, /^metaindex block: xxh3 checksum mismatch/],
      ["index", layout.index, /^index block: xxh3 checksum mismatch/],
      ["properties", layout.properties, /^properties block: xxh3 checksum mismatch/],
      ["filter", layout.filter, /^(filter|meta block fullfilter\.\S+) block: xxh3 checksum mismatch/],
      ["data", layout.firstData, /^data block: xxh3 checksum mismatch/],
    ];
    for (const [name, h, re] of blocks) {
      for (const at of [0, h.size >> 1, h.size - 1, h.size /* type byte */]) {
        const f = variant(`flip-${name}-${at}`, (b) => ((b[h.offset + at]! ^= 0x10), b));
        expectCorruption(f, true, re, h.offset);
      }
    }
  });

  it("flipped bytes without checksum verification still give one clear error or a clean read", () => {
    for (const h of [layout.metaindex, layout.index, layout.properties, layout.firstData]) {
      for (let at = 0; at < h.size; at += Math.max(1, h.size >> 5)) {
        const f = variant(`nv-${h.offset}-${at}`, (b) => ((b[h.offset + at]! ^= 0xff), b));
        const r = exercise(f, false, layout.keys);
        if (!r.ok) {
          expect(r.error.file).toBe(f);
          expect(r.error.offset).toBeTypeOf("number");
        }
      }
    }
  });

  it("unknown compression type of a data block", () => {
    const f = variant("comp", (b) => ((b[layout.firstData.offset + layout.firstData.size] = 0x09), b));
    expectCorruption(f, false, /unknown compression type 0x09/, layout.firstData.offset);
  });

  it("a damaged LZ4 payload is a decompression error naming the data block", () => {
    const h = layout.firstData;
    const f = variant("lz4", (b) => (b.fill(0xee, h.offset + 3, h.offset + h.size), b));
    expectCorruption(f, false, /^data block \(LZ4/, h.offset);
  });

  it("a handle pointing past the file", () => {
    // corrupt the footer's index handle size varint into a huge value
    const f = variant("handle", (b) => {
      const p = layout.footerOffset + 1; // checksum byte, then metaindex handle varints
      b[p] = 0xff;
      b[p + 1] = 0xff;
      b[p + 2] = 0xff;
      b[p + 3] = 0x7f;
      return b;
    });
    const r = exercise(f, false, layout.keys);
    expect(r.ok).toBe(false);
  });
});
