/**
 * The readers of a table's knobs from its details (datadir/table_details.ts), which the carried knobs
 * (analysis/carried.ts) and the compaction's per-file check (compact/intended.ts) both use.
 */
import { describe, expect, it } from "vitest";
import type { TableDetails } from "../../src/datadir/model.js";
import { blockSizeBasisOf, filterKeysOf, wholeKeyFilteringOf } from "../../src/datadir/table_details.js";
import { carriedLevel } from "../../src/analysis/carried.js";
import { blockSizeEstimate } from "../../src/compact/intended.js";

const FE = "rocksdb.num.filter_entries";
const WK = "rocksdb.block.based.table.whole.key.filtering";

describe("filterKeysOf", () => {
  it("takes num.filter_entries when above 0, else the entry count", () => {
    expect(filterKeysOf({ numEntries: 500, properties: { [FE]: 300 } })).toBe(300);
    expect(filterKeysOf({ numEntries: 500, properties: { [FE]: 0 } })).toBe(500);
    expect(filterKeysOf({ numEntries: 500, properties: {} })).toBe(500);
    expect(filterKeysOf({ numEntries: 500 })).toBe(500);
    expect(filterKeysOf({})).toBe(0);
  });

  it("counts a numeric property only, as the SST reader does (malformed: rendered as hex text)", () => {
    expect(filterKeysOf({ numEntries: 500, properties: { [FE]: "0x8181" } })).toBe(500);
    expect(filterKeysOf({ numEntries: 500, properties: { [FE]: "9007199254740993" } })).toBe(500);
  });
});

describe("wholeKeyFilteringOf", () => {
  it('"0" is false, "1" (or any other value) true, absent undefined', () => {
    expect(wholeKeyFilteringOf({ properties: { [WK]: "0" } })).toBe(false);
    expect(wholeKeyFilteringOf({ properties: { [WK]: "1" } })).toBe(true);
    expect(wholeKeyFilteringOf({ properties: { [WK]: 0 } })).toBe(false);
    expect(wholeKeyFilteringOf({ properties: { [WK]: "0x00" } })).toBe(true);
    expect(wholeKeyFilteringOf({ properties: {} })).toBeUndefined();
    expect(wholeKeyFilteringOf({})).toBeUndefined();
  });
});

describe("blockSizeBasisOf", () => {
  it("uncompressed tables by their data size, others by raw key + value bytes, over data blocks", () => {
    const sizes = { dataSize: 40_000, rawKeySize: 10_000, rawValueSize: 50_000 };
    expect(blockSizeBasisOf({ ...sizes, compression: "NoCompression", numDataBlocks: 10 })).toEqual({
      bytes: 40_000,
      blocks: 10,
      basis: "uncompressed",
    });
    expect(blockSizeBasisOf({ ...sizes, compression: "LZ4", numDataBlocks: 10 })).toEqual({
      bytes: 60_000,
      blocks: 10,
      basis: "raw-upper-bound",
    });
    // uncompressed without a data size: the raw sizes
    expect(
      blockSizeBasisOf({ rawKeySize: 1, rawValueSize: 2, compression: "NoCompression", numDataBlocks: 1 }),
    ).toMatchObject({ bytes: 3, basis: "raw-upper-bound" });
  });

  it("none without data blocks or without the sizes", () => {
    expect(blockSizeBasisOf({ dataSize: 1, compression: "NoCompression" })).toBeUndefined();
    expect(blockSizeBasisOf({ dataSize: 1, compression: "NoCompression", numDataBlocks: 0 })).toBeUndefined();
    expect(blockSizeBasisOf({ compression: "LZ4", rawKeySize: 5, numDataBlocks: 3 })).toBeUndefined();
  });

  it("each caller keeps its own threshold and aggregation", () => {
    const small: TableDetails = { compression: "LZ4", rawKeySize: 100, rawValueSize: 200, numDataBlocks: 3 };
    const big: TableDetails = { compression: "LZ4", rawKeySize: 1000, rawValueSize: 7000, numDataBlocks: 4 };
    const unc: TableDetails = { compression: "NoCompression", dataSize: 4000, numDataBlocks: 2 };
    // per file, from 4 data blocks on
    expect(blockSizeEstimate(small)).toBeUndefined();
    expect(blockSizeEstimate(big)).toBe(2000);
    // summed over files; uncompressed files, where there are any, are the exact basis
    const file = (details: TableDetails) =>
      ({ fileSize: 1, details }) as unknown as Parameters<typeof carriedLevel>[1][number];
    expect(carriedLevel(1, [file(small), file(big)]).blockSize).toEqual({
      meanBytes: 8300 / 7,
      basis: "raw-upper-bound",
      dataBlocks: 7,
      files: 2,
    });
    expect(carriedLevel(1, [file(small), file(unc), file(big)]).blockSize).toEqual({
      meanBytes: 2000,
      basis: "uncompressed",
      dataBlocks: 2,
      files: 1,
    });
  });
});
