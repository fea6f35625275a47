/**
 * Version.fileFor finds a key's file in a level ≥ 1 as the engines do: LevelDB's FindFile
 * (db/version_set.cc; RocksDB's FindFileInRange), a binary search for the first file whose largest key is
 * ≥ the key, which then holds it when its smallest key is ≤ the key (Version::Get). On a healthy store a
 * level's files are disjoint and a search by smallest key finds the same file; on a damaged MANIFEST
 * whose level overlaps, the two differ, and a lookup must read the file the engines read.
 */
import { describe, expect, it } from "vitest";
import type { SstTable } from "../../src/format/table.js";
import { Version, type LiveFile } from "../../src/lsm/version.js";
import { mulberry32 } from "../../src/util/random.js";

const file = (fileNumber: number, smallestKey: string, largestKey: string, level = 1): LiveFile => ({
  level,
  fileNumber,
  path: `${String(fileNumber).padStart(6, "0")}.sst`,
  smallestKey,
  largestKey,
});

/** LevelDB's FindFile (files sorted by smallest key), then Version::Get's check of the smallest key. */
function findFile(files: readonly LiveFile[], key: string): LiveFile | undefined {
  let left = 0;
  let right = files.length;
  while (left < right) {
    const mid = Math.floor((left + right) / 2);
    if (files[mid]!.largestKey < key) left = mid + 1;
    else right = mid;
  }
  const f = files[left];
  return f && key >= f.smallestKey ? f : undefined;
}

/** The search by smallest key: the last file whose smallest key is ≤ the key, if it holds the key. */
function bySmallest(files: readonly LiveFile[], key: string): LiveFile | undefined {
  let found: LiveFile | undefined;
  for (const f of files) if (f.smallestKey <= key) found = f;
  return found && key <= found.largestKey ? found : undefined;
}

const hexByte = (n: number) => n.toString(16).padStart(2, "0");

describe("Version.fileFor", () => {
  it("reads the file FindFile reads when a damaged level overlaps", () => {
    // L1 as a damaged MANIFEST could give it: 7 spans 10..50 and so covers 8 (20..30) entirely
    const wide = file(7, "10", "50");
    const inside = file(8, "20", "30");
    const v = new Version([inside, wide, file(9, "60", "70")]);
    expect(v.levels[1]!.map((f) => f.fileNumber)).toEqual([7, 8, 9]);
    // 25 is in both: the search by smallest key picks 8, FindFile the first whose largest key reaches
    // 25, which is 7
    expect(bySmallest(v.levels[1]!, "25")).toBe(inside);
    expect(findFile(v.levels[1]!, "25")).toBe(wide);
    expect(v.fileFor(1, "25")).toBe(wide);
    expect(v.filesFor("25")).toEqual([wide]);
    // a lookup above a file of L2 consults FindFile's file in L1, and only it
    const consulted: string[] = [];
    const found = { found: true, seqno: 1, type: 1 };
    const tables = {
      acquire: (path: string) => (consulted.push(path), { get: () => found } as unknown as SstTable),
      release: () => {},
    };
    expect(v.get(Buffer.from("25", "hex"), tables, file(3, "00", "ff", 2))?.file).toBe(wide);
    expect(consulted).toEqual([wide.path]);
    // keys only one file holds, and keys none does
    expect(v.fileFor(1, "12")).toBe(wide);
    expect(v.fileFor(1, "65")).toBe(v.levels[1]![2]);
    expect(v.fileFor(1, "05")).toBeUndefined();
    expect(v.fileFor(1, "55")).toBeUndefined();
    expect(v.fileFor(1, "80")).toBeUndefined();
    expect(v.fileFor(2, "25")).toBeUndefined();
  });

  it("agrees with FindFile on random overlapping levels", () => {
    const rnd = mulberry32(11);
    const byte = () => Math.floor(rnd() * 256);
    let differ = 0;
    const wrong: string[] = [];
    for (let round = 0; round < 300; round++) {
      const files = Array.from({ length: 1 + Math.floor(rnd() * 12) }, (_, i) => {
        const [a, b] = [byte(), byte()].sort((x, y) => x - y) as [number, number];
        return file(i + 1, hexByte(a), hexByte(b));
      });
      const v = new Version(files);
      for (let k = 0; k < 256; k++) {
        const key = hexByte(k);
        const engines = findFile(v.levels[1]!, key);
        if (v.fileFor(1, key) !== engines) wrong.push(`round ${round} key ${key}`);
        if (engines !== bySmallest(v.levels[1]!, key)) differ++;
      }
    }
    expect(wrong).toEqual([]);
    // the rounds do hold levels where the two searches part
    expect(differ).toBeGreaterThan(100);
  });

  it("finds what the search by smallest key finds on a healthy level", () => {
    const rnd = mulberry32(12);
    const wrong: string[] = [];
    for (let round = 0; round < 200; round++) {
      // disjoint files: sorted distinct bounds paired up; a file may be one key
      const n = 1 + Math.floor(rnd() * 10);
      const bounds = new Set<number>();
      while (bounds.size < 2 * n) bounds.add(Math.floor(rnd() * 256));
      const sorted = [...bounds].sort((x, y) => x - y);
      const files = Array.from({ length: n }, (_, i) => {
        const lo = sorted[2 * i]!;
        const hi = rnd() < 0.2 ? lo : sorted[2 * i + 1]!;
        return file(i + 1, hexByte(lo), hexByte(hi));
      });
      const v = new Version(files.reverse());
      // every one-byte key, and keys longer than a bound: past a file's largest key, within its range
      const keys = Array.from({ length: 256 }, (_, k) => hexByte(k));
      for (const f of v.levels[1]!) keys.push(f.smallestKey + "00", f.largestKey + "00");
      for (const key of keys)
        if (v.fileFor(1, key) !== bySmallest(v.levels[1]!, key)) wrong.push(`round ${round} key ${key}`);
    }
    expect(wrong).toEqual([]);
  });
});
