/**
 * The WAL layer's entries in merge order (memtable.ts MemColumns.sorted): user key ascending, newest
 * first, equal sequence numbers in WAL order, as a sort by Buffer.compare puts them; on keys that
 * share long starts (db_bench's begin with five zero bytes), that are prefixes of each other, or
 * shorter than the six bytes the sort compares first.
 */
import { describe, expect, it } from "vitest";
import { compareMem, memEntry, sortedMemEntries, type MemEntry } from "../../src/datadir/memtable.js";
import { seededRandom } from "../../src/check/stats.js";

/** Entries in WAL order, of keys drawn from `shape` (some keys written several times). */
function writes(n: number, shape: (r: () => number) => Buffer, seed: number): MemEntry[] {
  const r = seededRandom(seed);
  const keys: Buffer[] = [];
  const out: MemEntry[] = [];
  for (let i = 0; i < n; i++) {
    const key = keys.length > 0 && r() < 0.3 ? keys[Math.floor(r() * keys.length)]! : shape(r);
    keys.push(key);
    // sequence numbers repeat now and then: a batch's writes share none, but the order must hold anyway
    out.push({ key, seqno: 1 + Math.floor(r() * n), type: 1, value: Buffer.from([i & 255, i >> 8]) });
  }
  return out;
}

const byte = (r: () => number, top = 256) => Math.floor(r() * top);

describe("the WAL layer's merge order", () => {
  const shapes: [string, (r: () => number) => Buffer][] = [
    ["random 32-byte keys", (r) => Buffer.from(Array.from({ length: 32 }, () => byte(r)))],
    [
      "db_bench's: five zero bytes, then a number",
      (r) => Buffer.concat([Buffer.alloc(5), Buffer.from([byte(r, 4), byte(r), byte(r)]), Buffer.alloc(8)]),
    ],
    [
      "a shared 9-byte start, then 0-3 bytes",
      (r) =>
        Buffer.concat([
          Buffer.from("shared-st"),
          Buffer.from(Array.from({ length: byte(r, 4) }, () => byte(r, 3))),
        ]),
    ],
    ["0-7 bytes of 0 and 1", (r) => Buffer.from(Array.from({ length: byte(r, 8) }, () => byte(r, 2)))],
  ];
  for (const [name, shape] of shapes)
    it(name, () => {
      const w = writes(3000, shape, name.length);
      // a stable sort by Buffer.compare, then newest first: ties keep WAL order
      const want = w
        .map((e, i) => ({ e, i }))
        .sort((a, b) => compareMem(a.e, b.e) || a.i - b.i)
        .map((x) => x.e);
      const m = sortedMemEntries(w);
      const got = Array.from({ length: m.to - m.from }, (_, k) => memEntry(m, m.from + k));
      expect(got.map((e) => [e.key.toString("hex"), e.seqno, e.value.toString("hex")])).toEqual(
        want.map((e) => [e.key.toString("hex"), e.seqno, e.value.toString("hex")]),
      );
    });
});
