/**
 * sampleIndexHandles(index, count) — the index entries `sizes --full` cuts its threads' key ranges from, read
 * at restart points instead of walking the index — visits entries of the full walk, in its order, from
 * the first to the last, spread as every k-th restart point; where every entry is a restart point (an
 * index block's usual restart interval of 1) exactly the walk's entries 0, k, 2k, ... and the last. On
 * every committed sample table (RocksDB, LevelDB, Pebble; a two-level index, which cannot be sampled
 * so, answers false and visits nothing).
 */
import { describe, expect, it } from "vitest";
import { openTable } from "../../src/format/index.js";
import { sampleIndexHandles } from "../../src/format/index_reader.js";
import { SAMPLES, tableFilesUnder } from "../helpers/index.js";

type Entry = [offset: number, size: number, separator: string];

function walked(path: string): Entry[] {
  const t = openTable(path);
  try {
    const out: Entry[] = [];
    t.forEachIndexHandle((offset, size, _p, sep, len) => {
      out.push([offset, size, sep.toString("hex", 0, len)]);
    });
    return out;
  } finally {
    t.close();
  }
}

function sampled(path: string, count: number, pin: boolean): Entry[] | false {
  const t = openTable(path);
  try {
    const out: Entry[] = [];
    const ok = sampleIndexHandles(
      t.index,
      count,
      (offset, size, sep, len) => out.push([offset, size, sep.toString("hex", 0, len)]),
      pin,
    );
    return ok ? out : (expect(out).toEqual([]), false);
  } finally {
    t.close();
  }
}

describe("index sample at restart points", () => {
  const files = tableFilesUnder(SAMPLES);

  it("visits the walk's entries, first and last included, every k-th where each entry is a restart point", () => {
    expect(files.length).toBeGreaterThan(20);
    let strided = 0;
    let twoLevel = 0;
    for (const f of files) {
      const all = walked(f);
      for (const count of [1, 2, 3, 5, 256]) {
        for (const pin of [true, false]) {
          const got = sampled(f, count, pin);
          if (got === false) {
            const t = openTable(f);
            const type = t.indexType;
            t.close();
            expect(type, f).toBe("two-level");
            twoLevel++;
            continue;
          }
          if (all.length === 0) {
            expect(got, f).toEqual([]);
            continue;
          }
          // a subsequence of the walk, in order, from its first entry to its last
          let at = 0;
          for (const e of got) {
            while (at < all.length && all[at]![0] !== e[0]) at++;
            expect(all[at], `${f} count ${count}`).toEqual(e);
            at++;
          }
          expect(got[0], f).toEqual(all[0]);
          expect(got[got.length - 1], f).toEqual(all[all.length - 1]);
          expect(got.length, f).toBeLessThanOrEqual(Math.min(all.length, count + 1));
          // restart interval 1 (RocksDB's and LevelDB's index blocks by default: a sample of more
          // entries than the index holds is all of them): exactly every k-th
          const stride = Math.ceil(all.length / count);
          const want = all.filter((_e, i) => i % stride === 0 || i === all.length - 1);
          const everyRestart = sampled(f, 1e9, pin);
          if (everyRestart !== false && everyRestart.length === all.length) {
            expect(got, `${f} count ${count}`).toEqual(want);
            if (stride > 1) strided++;
          }
        }
      }
    }
    expect(strided).toBeGreaterThan(10);
    expect(twoLevel).toBeGreaterThan(0);
  });
});
