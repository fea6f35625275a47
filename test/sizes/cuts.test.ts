/**
 * Key ranges cut from index samples (cutsOf): each sample's bytes spread over its block's key span.
 * RocksDB shortens index separators, so over many tables' blocks the separators pile onto the same
 * short keys; cut only at separators, an L0 pile-up's sub-ranges held 0.2 to 2.4 times their share.
 */
import { describe, expect, it } from "vitest";
import { cutsOf, type SplitSample } from "../../src/lsm/key_cuts.js";

/** The 8-byte key (hex) whose big-endian number is n, or its first `bytes` bytes. */
const hex = (n: number, bytes = 8) =>
  n
    .toString(16)
    .padStart(16, "0")
    .slice(0, 2 * bytes);

/**
 * `tables` tables of `blocks` blocks of `w` bytes each over the numbers [0, span): each block's
 * separator shortened to 7 bytes rounded up, as RocksDB's shortened separators fall on short keys.
 */
function samples(tables: number, blocks: number, span: number, w: number): SplitSample[] {
  const out: SplitSample[] = [];
  for (let t = 0; t < tables; t++) {
    let lo: string | undefined = hex(t * 7); // the table's smallest key
    for (let b = 1; b <= blocks; b++) {
      const end = Math.floor((b * span) / blocks) + ((t * 7919) % 997);
      const key = hex(Math.ceil(end / 256) * 256, 7); // 7 bytes: a multiple of 256 when read as 8
      out.push({ key, lo, w });
      lo = key;
    }
  }
  return out.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/** Bytes of each range the cuts make, counting each sample's bytes spread over its span. */
function shares(s: SplitSample[], cuts: string[]): number[] {
  const num = (h: string) => parseInt(h.padEnd(16, "0"), 16);
  const bounds = [-Infinity, ...cuts.map(num), Infinity];
  const out = new Array<number>(bounds.length - 1).fill(0);
  for (const x of s) {
    const b = num(x.key);
    const a = x.lo === undefined ? b : num(x.lo);
    for (let i = 0; i < out.length; i++) {
      const lo = Math.max(a, bounds[i]!);
      const hi = Math.min(b, bounds[i + 1]!);
      if (b === a) out[i]! += b >= bounds[i]! && b < bounds[i + 1]! ? x.w : 0;
      else if (hi > lo) out[i]! += (x.w * (hi - lo)) / (b - a);
    }
  }
  return out;
}

describe("cutsOf", () => {
  it("cuts many tables' blocks with shared short separators into equal ranges", () => {
    const s = samples(200, 25, 6_000_000, 4096);
    const cuts = cutsOf(s, 33, 0);
    expect(cuts.length).toBe(32);
    expect([...cuts].sort()).toEqual(cuts);
    const got = shares(s, cuts);
    const share = (200 * 25 * 4096) / 33;
    for (const g of got) expect(Math.abs(g - share) / share).toBeLessThan(0.05);
    // cut only at the separators, the ranges could not be even: many blocks share each short key
    expect(new Set(s.map((x) => x.key)).size).toBeLessThan(s.length / 4);
  });

  it("gives the first range the head start, and points where keys do not differ in 8 bytes", () => {
    const s = samples(50, 20, 1_000_000, 1000);
    const [first] = shares(s, cutsOf(s, 4, 100_000));
    const rest = (50 * 20 * 1000 - 100_000) / 4;
    expect(Math.abs(first! - (rest + 100_000)) / (rest + 100_000)).toBeLessThan(0.05);
    // samples that are points (no span): cut at separators, ascending, none twice
    const points: SplitSample[] = ["0a", "0b", "0b", "0c", "0d"].map((key) => ({ key, lo: undefined, w: 1 }));
    expect(cutsOf(points, 3, 0)).toEqual(["0b", "0c"]);
  });
});
