/**
 * hashNewest() tells every entry with the fate mergeNewest() gives it, only not in key order and without
 * its value (its record's type, key length, value size and WAL flag agree with the entry): over runs of
 * keys shorter and longer than the 8-byte prefix (many sharing it), one user key in many runs and
 * several times in one, range tombstones, sub-range cuts anywhere (none, between keys, on keys, past
 * the end), and buckets and sets that grow several times. Runs that are not newest first (a later run
 * holds a newer version), and values in blob files, throw UseMerge rather than give other fates.
 */
import { describe, expect, it } from "vitest";
import { Fate, MemRun, mergeNewest, type RangeTombstone, type Run } from "../../src/lsm/merge.js";
import { hashNewest, KeyBuckets, KeysOutOfOrder, UseMerge } from "../../src/lsm/newest_by_hash.js";
import { ValueType } from "../../src/base/internal_key.js";
import { memEntriesOf, type MemEntry } from "../../src/datadir/memtable.js";
import { mulberry32 } from "../../src/util/random.js";

/** Internal-key order: user key ascending, sequence number descending. */
const internalOrder = (a: MemEntry, b: MemEntry) => Buffer.compare(a.key, b.key) || b.seqno - a.seqno;

/**
 * `runs` sorted runs, newest first (every entry of run i newer than every entry of run i + 1), of keys
 * from a small space; some keys twice in one run (two versions), some runs empty.
 */
function newestFirstRuns(runs: number, perRun: number, seed: number): MemEntry[][] {
  const r = mulberry32(seed);
  const out: MemEntry[][] = [];
  let seqno = runs * perRun * 3 + 10;
  for (let i = 0; i < runs; i++) {
    const n = i % 5 === 2 ? 0 : Math.floor(r() * perRun);
    const entries: MemEntry[] = [];
    for (let j = 0; j < n; j++) {
      const len = 1 + Math.floor(r() * 14);
      const key = Buffer.alloc(len);
      for (let b = 0; b < len; b++) key[b] = b < 8 ? 0x61 + Math.floor(r() * 2) : Math.floor(r() * 4);
      const type = r() < 0.1 ? 0 : 1; // some deletions
      entries.push({ key, seqno: 0, type, value: Buffer.alloc(Math.floor(r() * 5)) });
      if (r() < 0.05) entries.push({ key, seqno: 0, type: 1, value: Buffer.alloc(1) });
    }
    // sequence numbers descend through the runs, and within one by the internal order
    entries.sort((a, b) => Buffer.compare(a.key, b.key));
    for (let j = entries.length - 1; j >= 0; j--) entries[j]!.seqno = seqno--;
    entries.sort(internalOrder);
    out.push(entries);
  }
  return out;
}

/**
 * A run whose entries' value sizes are their numbers (from `first` on), by which hashNewest's records,
 * which carry no key, are told apart.
 */
class NumberedRun extends MemRun {
  private n: number;
  constructor(entries: MemEntry[], first: number) {
    super(memEntriesOf(entries));
    this.n = first - 1;
  }
  override advance(): boolean {
    if (!super.advance()) return false;
    this.vSize = ++this.n;
    return true;
  }
}

function mergeFates(runs: MemEntry[][], rangeDels: RangeTombstone[] = []): string[] {
  const out: string[] = [];
  mergeNewest(
    runs.map((es) => new MemRun(memEntriesOf(es))),
    rangeDels,
    {
      visit: (r: Run, f: Fate) =>
        void out.push(`${Buffer.from(r.key.subarray(0, r.ukLen)).toString("hex")}@${r.seqno} ${f}`),
    },
  );
  return out.sort();
}

/** Each entry's fate as "key@seqno fate", sorted (hashNewest tells them in another order). */
function hashFates(
  runs: MemEntry[][],
  rangeDels: RangeTombstone[] = [],
  cuts: Buffer[] = [],
  walRun = false,
): string[] {
  const all = runs.flat();
  const names = all.map((e) => `${e.key.toString("hex")}@${e.seqno}`);
  let first = 0;
  const rs = runs.map((es) => {
    const r = new NumberedRun(es, first);
    first += es.length;
    return r;
  });
  const out: string[] = [];
  // the rest of what a record carries agrees with the entry it stands for: the records that do not,
  // checked in one assertion (three per record cost seconds over the ~100,000 records here), also
  // when hashNewest throws (a disagreement fails the test, whatever it throws)
  const disagree: string[] = [];
  try {
    hashNewest(
      rs,
      walRun ? rs[0] : undefined,
      rangeDels,
      {
        record: (type, ukLen, valueSize, f, fromWal) => {
          const e = all[valueSize]!;
          const wal = walRun && valueSize < runs[0]!.length;
          if (ukLen !== e.key.length || type !== e.type || fromWal !== wal)
            disagree.push(`${names[valueSize]}: ukLen ${ukLen}, type ${type}, fromWal ${fromWal}`);
          out.push(`${names[valueSize]} ${f}`);
        },
      },
      cuts,
    );
  } finally {
    expect(disagree).toEqual([]);
  }
  return out.sort();
}

describe("hashNewest", () => {
  const cutSets: [string, Buffer[]][] = [
    ["no cut", []],
    ["one cut", [Buffer.from("6161616162", "hex")]],
    [
      "cuts on and between keys",
      ["61", "6161", "61616161616161", "6161616161616161", "62626262"].map((h) => Buffer.from(h, "hex")),
    ],
    ["a cut past every key", [Buffer.from("ff", "hex")]],
  ];
  it.each(cutSets)("gives the merge's fates, %s", (_name, cuts) => {
    for (const [runs, perRun, seed] of [
      [1, 40, 1],
      [3, 60, 2],
      [40, 60, 3],
      [300, 30, 4],
    ] as const) {
      const rs = newestFirstRuns(runs, perRun, seed);
      const want = mergeFates(rs);
      expect(hashFates(rs, [], cuts, true)).toEqual(want);
      // the case that matters: some versions shadowed (in one run too: two versions of a key)
      expect(want.some((f) => f.endsWith(` ${Fate.Shadowed}`))).toBe(true);
    }
  });

  it("gives the merge's fates under range tombstones", () => {
    const rs = newestFirstRuns(30, 60, 9);
    const maxSeq = Math.max(...rs.flat().map((e) => e.seqno));
    const rangeDels: RangeTombstone[] = [
      { start: Buffer.from("6161", "hex"), end: Buffer.from("61616162", "hex"), seqno: maxSeq - 200 },
      { start: Buffer.from("6162", "hex"), end: Buffer.from("62", "hex"), seqno: maxSeq + 1 },
    ];
    const want = mergeFates(rs, rangeDels);
    expect(want.some((f) => f.endsWith(` ${Fate.RangeDeleted}`))).toBe(true);
    expect(hashFates(rs, rangeDels, [Buffer.from("6161616162", "hex")])).toEqual(want);
  });

  it("holds thousands of keys in one sub-range (the set rehashes several times)", () => {
    const r = mulberry32(5);
    const keys = new Map<string, Buffer>();
    for (let j = 0; j < 40_000; j++) {
      const key = Buffer.alloc(4 + Math.floor(r() * 30));
      for (let b = 0; b < key.length; b++) key[b] = Math.floor(r() * (b < 2 ? 16 : 3));
      keys.set(key.toString("hex"), key);
    }
    const sorted = [...keys.values()].sort(Buffer.compare);
    const run = (i: number, ks: Buffer[]) =>
      ks.map((key, j) => ({ key, seqno: (4 - i) * 100_000 + j, type: 1, value: Buffer.alloc(0) }));
    // every key of the first run again in the second (older): a key the set lost as it grew would
    // make its older version newest
    const runs = [
      run(0, sorted),
      run(1, sorted),
      run(
        2,
        sorted.filter((_k, j) => j % 3 === 0),
      ),
    ];
    const want = mergeFates(runs);
    expect(hashFates(runs)).toEqual(want);
    expect(want.filter((f) => f.endsWith(` ${Fate.Newest}`)).length).toBe(sorted.length);
  });

  it("throws UseMerge when a later run holds a newer version, or a value lies in a blob file", () => {
    const rs = newestFirstRuns(10, 60, 7);
    expect(() => hashFates([...rs].reverse())).toThrow(UseMerge);
    const blob = rs.map((es) => es.map((e, i) => (i === 5 ? { ...e, type: ValueType.BlobIndex } : e)));
    expect(() => hashFates(blob)).toThrow(UseMerge);
  });
});

describe("hashNewest's runs", () => {
  /** A run that counts the turns after which it was told to rest (Run.rest). */
  class RestingRun extends MemRun {
    rests = 0;
    rest(): void {
      this.rests++;
    }
  }
  const entry = (key: string, seqno: number): MemEntry => ({
    key: Buffer.from(key),
    seqno,
    type: 1,
    value: Buffer.alloc(1),
  });

  it("rest after each turn in a sub-range that leaves them entries, not after their last", () => {
    // three sub-ranges (cut at "h" and "s"): `spread` has an entry in each, `early` only in the first
    const spread = new RestingRun(memEntriesOf([entry("a", 9), entry("m", 8), entry("z", 7)]));
    const early = new RestingRun(memEntriesOf([entry("b", 3)]));
    const fates: number[] = [];
    hashNewest([spread, early], undefined, [], { record: (_t, _k, _v, f) => void fates.push(f) }, [
      Buffer.from("h"),
      Buffer.from("s"),
    ]);
    expect(fates).toHaveLength(4);
    expect(spread.rests).toBe(2);
    expect(early.rests).toBe(0);
  });
});

describe("KeyBuckets' order check (diff's)", () => {
  const entry = (key: Buffer, seqno: number): MemEntry => ({ key, seqno, type: 1, value: Buffer.alloc(1) });
  /** Fill buckets from one run of these entries (in this order), with `cut` between sub-ranges. */
  const fill = (entries: MemEntry[], cut?: Buffer) => {
    const sets = new KeyBuckets([new MemRun(memEntriesOf(entries))], undefined, true, true);
    const count = () => sets.buckets.reduce((n, b) => n + b.count, 0);
    sets.fill(cut);
    const first = count();
    sets.fill(undefined);
    return first + count();
  };
  const k = (s: string) => Buffer.from(s, "latin1");

  it("passes keys that ascend, a key's versions newest first, short keys, across a cut", () => {
    const keys = [k("a"), k("a\0"), k("abcdefgh"), k("abcdefgh\0"), k("abcdefgi")];
    expect(fill([...keys.map((x) => entry(x, 5)), entry(k("b"), 9), entry(k("b"), 8)])).toBe(7);
    expect(
      fill(
        keys.map((x) => entry(x, 5)),
        k("abcdefgh"),
      ),
    ).toBe(5);
  });

  it("throws KeysOutOfOrder for a key below the one before, or a version older than the next", () => {
    const cases: MemEntry[][] = [
      [entry(k("b"), 5), entry(k("a"), 5)],
      [entry(k("a\0"), 5), entry(k("a"), 5)],
      [entry(k("abcdefgh\0"), 5), entry(k("abcdefgh"), 5)],
      [entry(k("abcdefgi"), 5), entry(k("abcdefgh\0"), 5)],
      [entry(k("b"), 8), entry(k("b"), 9)],
      [entry(k("b"), 8), entry(k("b"), 8)],
    ];
    for (const c of cases)
      expect(() => fill(c), c.map((e) => e.key.toString("hex")).join(" ")).toThrow(KeysOutOfOrder);
  });
});
