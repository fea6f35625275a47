/**
 * forEachIndexEntry({ from }) — the binary-search seek a key-range scan starts each table with — yields
 * exactly the index entries a walk from the start keeps after dropping those whose separator's user key
 * is below `from`, on every committed sample table: one-level indexes, the two-level (partitioned)
 * index of the Nethermind state store, LevelDB tables and format_version 6.
 */
import { describe, expect, it } from "vitest";
import { openTable, type IndexEntry } from "../../src/format/index.js";
import { SAMPLES, tableFilesUnder } from "../helpers/index.js";

const userKey = (e: IndexEntry) =>
  e.separatorIsInternal ? e.separator.subarray(0, e.separator.length - 8) : e.separator;

/** Seek targets: the empty key, beyond every key, and around every few separators. */
function targets(entries: IndexEntry[]): Buffer[] {
  const out = [Buffer.alloc(0), Buffer.alloc(40, 0xff)];
  entries.forEach((e, i) => {
    if (i % 3 !== 0) return;
    const k = Buffer.from(userKey(e));
    out.push(k, Buffer.concat([k, Buffer.from([0])]));
    if (k.length > 0) out.push(k.subarray(0, k.length - 1));
    if (k.length > 0 && k[k.length - 1]! > 0) {
      const below = Buffer.from(k);
      below[below.length - 1]!--;
      out.push(below);
    }
  });
  return out;
}

describe("index seek (iterateIndex from a key)", () => {
  const files = tableFilesUnder(SAMPLES);
  it("covers the sample tables, a two-level index among them", () => {
    expect(files.length).toBeGreaterThan(20);
    const twoLevel = files.filter((f) => {
      const t = openTable(f);
      try {
        return t.indexType === "two-level";
      } finally {
        t.close();
      }
    });
    expect(twoLevel.length).toBeGreaterThan(0);
  });

  it("yields the walk's entries from the first separator ≥ the key, on every sample table", () => {
    let seeks = 0;
    for (const f of files) {
      const t = openTable(f);
      try {
        const all = t.indexEntries();
        for (const from of targets(all)) {
          const want = all.filter((e) => Buffer.compare(userKey(e), from) >= 0).map((e) => e.handle.offset);
          const got = t.indexEntries({ from }).map((e) => e.handle.offset);
          expect(got, `${f} from ${from.toString("hex")}`).toEqual(want);
          seeks++;
        }
      } finally {
        t.close();
      }
    }
    expect(seeks).toBeGreaterThan(100);
  });
});
