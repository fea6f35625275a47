/**
 * The placement overlay's block sample design (check/overlay_blocks.ts): the strata are runs of
 * neighbouring tables, and the second stage checks as many entries a block as cost the fewest reads
 * below for its precision, from what the first stage's blocks cost. The figures of the LevelDB store
 * that led to both (session 47, `bench shapes`' LevelDB row: 2 M hash keys and 500,000 overwrites
 * written by classic-level, 62 tables above): a first stage of 118 blocks of 34 entries each, 0.34
 * point reads an entry, ~8 reads below a block.
 */
import { describe, expect, it } from "vitest";
import type { SstFileModel } from "../../src/datadir/model.js";
import {
  secondStage,
  StratifiedFrame,
  type BlockUnit,
  type FrameFile,
} from "../../src/check/overlay_blocks.js";

const file = (name: string, level: number, blocks: number): FrameFile => ({
  f: { fileName: name, path: name } as unknown as SstFileModel,
  level,
  blocks,
  entries: blocks * 30,
});

/**
 * `n` first-stage units of `entries` entries each, every entry checked, `shadowing` of each in turn
 * (cycled), with the given reads below per unit and point reads per entry.
 */
function units(
  n: number,
  entries: number,
  shadowing: (i: number) => number,
  cost: { readsPerUnit: number; pointReadsPerEntry: number; visitsPerEntry: number },
): BlockUnit[] {
  return Array.from({ length: n }, (_, i) => ({
    level: 1,
    file: {} as SstFileModel,
    stratum: 0,
    keys: {
      n: 0,
      bytes: Buffer.alloc(0),
      start: [0],
      seqno: [],
      maxSeqno: 0,
    },
    entries,
    storedBytes: 4096,
    checked: entries,
    shadowing: shadowing(i),
    shadowedBytes: 0,
    cost: {
      visits: cost.visitsPerEntry * entries,
      reads: cost.readsPerUnit,
      pointReads: cost.pointReadsPerEntry * entries,
    },
  }));
}

describe("the overlay's strata", () => {
  it("are runs of neighbouring tables of one level, each of at least 2 first-stage blocks", () => {
    // 12 tables of L2 of 10 blocks each and 3 of L3 of 40: 120 + 120 blocks, 24 first-stage draws
    const files = [
      ...Array.from({ length: 12 }, (_, i) => file(`a${i}`, 2, 10)),
      ...Array.from({ length: 3 }, (_, i) => file(`b${i}`, 3, 40)),
    ];
    const frame = new StratifiedFrame(files, 24);
    const names = frame.strata.map((st) => st.files.map((x) => x.f.fileName).join(","));
    // 10 blocks are 1 draw: runs of 2 tables; 40 blocks are 4 draws: a table each
    expect(names).toEqual(["a0,a1", "a2,a3", "a4,a5", "a6,a7", "a8,a9", "a10,a11", "b0", "b1", "b2"]);
    expect(frame.weights.reduce((a, w) => a + w, 0)).toBeCloseTo(1, 12);
  });

  it("a level's short last run joins the run before it; a level too small for one joins the largest", () => {
    // 5 tables of 10 blocks at 1 draw each: runs of 2, 2 and a short 1 joined to the second; the
    // next level's one table of 1 draw has no run of its level before it: the largest takes it
    const files = [...Array.from({ length: 5 }, (_, i) => file(`a${i}`, 1, 10)), file("z", 2, 10)];
    const frame = new StratifiedFrame(files, 6);
    const names = frame.strata.map((st) => st.files.map((x) => x.f.fileName).join(","));
    expect(names).toEqual(["a0,a1", "a2,a3,a4,z"]);
  });
});

describe("the overlay's second stage", () => {
  const leveldbCost = { readsPerUnit: 8, pointReadsPerEntry: 0.34, visitsPerEntry: 1.2 };

  it("entries alike within a block (ρ near 1): one entry a block", () => {
    // each block all shadowing or none: every entry of a block tells what its first does
    const u = units(120, 34, (i) => (i % 3 === 0 ? 34 : 0), leveldbCost);
    const next = secondStage(u, [1], 4000, 34);
    expect(next.perBlock).toBe(1);
    expect(next.blocks).toBeGreaterThan(3000);
  });

  it("blocks as alike as their entries (ρ near 0): every entry of each", () => {
    // a third of each block's entries shadow, in every block: the blocks differ by no more than chance
    const u = units(120, 33, (i) => 11 + (i % 3) - 1, leveldbCost);
    const next = secondStage(u, [1], 8000, 33);
    expect(next.perBlock).toBe(Infinity);
  });

  it("in between, a few entries a block where point lookups cost less than a block's passes", () => {
    // blocks whose shares spread around a third (ρ ~0.2 at 34 entries a block)
    const shares = [2, 6, 10, 14, 18, 22];
    const u = units(120, 34, (i) => shares[i % shares.length]!, leveldbCost);
    const cheap = secondStage(u, [1], 4000, 34);
    expect(cheap.perBlock).toBeGreaterThan(1);
    expect(cheap.perBlock).toBeLessThan(12);
    // the same blocks whose passes read little below (one read a block): whole blocks are cheaper
    const dense = units(120, 34, (i) => shares[i % shares.length]!, { ...leveldbCost, readsPerUnit: 1 });
    expect(secondStage(dense, [1], 4000, 34).perBlock).toBeGreaterThan(cheap.perBlock);
  });
});
