/**
 * Tables kept parsed between readers (lsm/kept_tables.ts; check keeps the tables its model read for
 * its lookups), on tables db_bench wrote (RocksDB 7.8.3):
 *  - a kept table holds no descriptor; taken again, it opens its file again and answers point lookups
 *    as the same table opened afresh does (every key of its first data block, and keys it lacks);
 *  - a TableCache given the kept tables hands out the kept object itself (no second parse) and gives
 *    it back as it lets it go (evicted or closed); at most `max` are kept, one per path, and a table
 *    refused is the caller's to close;
 *  - a file replaced after its table was kept is refused at the next read (the identity check), never
 *    read through the table parsed before.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { copyFileSync, readdirSync, renameSync } from "node:fs";
import { join } from "node:path";
import { openTable } from "../../src/format/table.js";
import { tableDescriptorsInUse } from "../../src/format/table_file.js";
import { KeptTables } from "../../src/lsm/kept_tables.js";
import { TableCache } from "../../src/lsm/table_cache.js";
import { dbBench, removeDir, tempDir } from "../helpers/index.js";
import { ONE_TABLE_PER_MEMTABLE, TINY_L0_PILEUP } from "../datadir/helpers.js";

let dir: string;
let tables: string[];

beforeAll(() => {
  dir = tempDir("lsmscope-kept-tables-");
  dbBench(dir, [...TINY_L0_PILEUP, ...ONE_TABLE_PER_MEMTABLE, "--num=4000"]);
  tables = readdirSync(dir)
    .filter((f) => f.endsWith(".sst"))
    .sort()
    .map((f) => join(dir, f));
}, 120_000);

afterAll(() => removeDir(dir));

/** The user keys of a table's first data block. */
function firstBlockKeys(path: string): Buffer[] {
  const t = openTable(path);
  try {
    const [first] = t.indexEntries();
    const c = t.readDataBlock(first!.handle).cursor();
    const keys: Buffer[] = [];
    while (c.next()) keys.push(c.userKeyCopy());
    return keys;
  } finally {
    t.close();
  }
}

describe("KeptTables", () => {
  it("keeps a table without its descriptor; taken again it answers lookups as a fresh open does", () => {
    expect(tables.length).toBeGreaterThanOrEqual(3);
    const path = tables[0]!;
    const keys = [...firstBlockKeys(path), Buffer.from("absent-key-00000"), Buffer.alloc(16, 0xff)];
    const kept = new KeptTables();
    const before = tableDescriptorsInUse();
    const t = openTable(path, { prefetchTail: 16 * 1024 });
    expect(tableDescriptorsInUse()).toBe(before + 1);
    expect(kept.keep(t)).toBe(true);
    expect(tableDescriptorsInUse()).toBe(before); // its descriptor went back
    const again = kept.take(path)!;
    expect(again).toBe(t);
    expect(kept.take(path)).toBeUndefined();
    const fresh = openTable(path);
    try {
      for (const k of keys) {
        const a = again.get(k);
        const b = fresh.get(k);
        expect({ found: a.found, seqno: a.seqno, value: a.value?.toString("hex") }).toEqual({
          found: b.found,
          seqno: b.seqno,
          value: b.value?.toString("hex"),
        });
      }
      expect(keys.filter((k) => again.get(k).found).length).toBe(keys.length - 2);
    } finally {
      fresh.close();
      again.close();
    }
  });

  it("serves a TableCache: the kept object handed out, given back when evicted or closed", () => {
    const [p0, p1, p2] = tables as [string, string, string];
    const kept = new KeptTables(2);
    const t0 = openTable(p0);
    const t1 = openTable(p1);
    const t2 = openTable(p2);
    expect(kept.keep(t0)).toBe(true);
    expect(kept.keep(t1)).toBe(true);
    expect(kept.keep(t2)).toBe(false); // full: the caller closes it
    t2.close();
    const cache = new TableCache({ verifyChecksums: true }, 1, { keptTables: kept });
    const a = cache.acquire(p0);
    expect(a).toBe(t0);
    expect(kept.size).toBe(1);
    const b = cache.acquireForMetadata(p1);
    expect(b).toBe(t1);
    expect(kept.taken).toBe(2);
    const c = cache.acquire(p2); // not kept: opened
    expect(c).not.toBe(t2);
    cache.release(a);
    cache.release(b); // over the idle bound: a, the least recent, goes back to the kept tables
    expect(kept.has(p0)).toBe(true);
    cache.release(c);
    cache.close(); // b back (room for two), c closed
    expect(kept.size).toBe(2);
    expect(kept.has(p1)).toBe(true);
    expect(kept.has(p2)).toBe(false);
    kept.close();
    expect(kept.size).toBe(0);
  });

  it("refuses a file replaced after its table was kept, at the next read", () => {
    const copy = tempDir("lsmscope-kept-replaced-");
    try {
      const path = join(copy, "a.sst");
      copyFileSync(tables[0]!, path);
      const kept = new KeptTables();
      expect(kept.keep(openTable(path))).toBe(true);
      // another table (another inode) at the same path, as a compaction's rename would leave it
      copyFileSync(tables[1]!, join(copy, "b.sst"));
      renameSync(join(copy, "b.sst"), path);
      const t = kept.take(path)!;
      try {
        expect(() => t.get(firstBlockKeys(tables[0]!)[0]!)).toThrow(/replaced while being read/);
      } finally {
        t.close();
      }
    } finally {
      removeDir(copy);
    }
  });
});
