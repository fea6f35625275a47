/**
 * The cross-check every table in the tests goes through: properties against sst_dump, scan against
 * the properties and sst_dump's scan, filters (no false negatives, false positives at the predicted
 * rate), point lookups, and checksum verification of every block.
 */
import { expect } from "vitest";
import { hash64Parts } from "../../src/format/hash_fast.js";
import { HandleTally } from "../../src/format/block.js";
import { openTable, type SstTable } from "../../src/format/index.js";
import { absentKeys, absentKeysLike, compareProperties, sstDumpPropertiesAndScan } from "./oracle.js";

export interface Expectations {
  format?: "block-based" | "leveldb";
  formatVersion?: number;
  checksum?: string;
  compression?: string;
  indexType?: string;
  filterKind?: "bloom" | "fastbloom" | "ribbon" | "none";
  partitionedFilter?: boolean;
  /** Skip sst_dump (LevelDB tables: RocksDB 7.8.3 cannot open them). */
  noSstDump?: boolean;
  /** The table holds blob-index entries (values in blob files). */
  blobIndexes?: boolean;
}

export interface CheckResult {
  entries: number;
  absentChecked: number;
  absentAccepted: number;
  estimatedFpRate?: number;
}

export function checkTable(file: string, want: Expectations = {}): CheckResult {
  const t = openTable(file, { verifyChecksums: true });
  try {
    return checkOpenTable(t, file, want);
  } finally {
    t.close();
  }
}

function checkOpenTable(t: SstTable, file: string, want: Expectations): CheckResult {
  // metadata (footer, metaindex, properties[, compression dictionary]) costs a handful of reads
  expect(t.io.reads).toBeLessThanOrEqual(4);
  if (want.format) expect(t.format).toBe(want.format);
  if (want.formatVersion !== undefined) expect(t.formatVersion).toBe(want.formatVersion);
  if (want.checksum) expect(t.checksumType).toBe(want.checksum);
  if (want.compression) expect(t.compression).toBe(want.compression);
  if (want.indexType) expect(t.indexType).toBe(want.indexType);
  if (want.filterKind) expect(t.filter.kind).toBe(want.filterKind);
  if (want.partitionedFilter !== undefined) expect(t.filter.partitioned).toBe(want.partitionedFilter);

  const dumped = want.noSstDump ? undefined : sstDumpPropertiesAndScan(file);
  if (dumped) expect(compareProperties(t, dumped.props)).toEqual([]);

  // full scan
  const userKeys: Buffer[] = [];
  const newest = new Map<string, { type: number; seqno: number; value: string }>();
  const s = t.scan((e) => {
    if (!e.blockHandle) return; // range deletion
    const k = e.userKeyCopy();
    userKeys.push(k);
    const hex = k.toString("hex");
    if (!newest.has(hex))
      newest.set(hex, { type: e.type, seqno: e.seqno, value: e.valueCopy().toString("hex") });
  });
  if (t.format === "block-based") {
    expect(s.entries).toBe(t.properties["rocksdb.num.entries"]);
    expect(s.rawKeyBytes).toBe(t.properties["rocksdb.raw.key.size"]);
    expect(s.rawValueBytes).toBe(t.properties["rocksdb.raw.value.size"]);
    expect(s.dataBlocks).toBe(t.properties["rocksdb.num.data.blocks"]);
    expect(s.dataBlockBytes + 5 * s.dataBlocks).toBe(t.properties["rocksdb.data.size"]);
    expect(s.rangeDeletions).toBe(t.properties["rocksdb.num.range-deletions"] ?? 0);
    expect(s.deletions).toBe(t.properties["rocksdb.deleted.keys"] ?? 0);
    expect(s.mergeOperands).toBe(t.properties["rocksdb.merge.operands"] ?? 0);
  }
  if (dumped) {
    const d = dumped.scan;
    expect(s.dataEntries).toBe(d.entries);
    expect(s.firstKey?.toString("hex")).toBe(d.firstKey);
    expect(s.lastKey?.toString("hex")).toBe(d.lastKey);
  }
  expect(s.dataEntries).toBe(userKeys.length);
  if (want.blobIndexes) expect(s.blobIndexes).toBe(s.dataEntries);
  // a scan split by block ranges covers the same entries
  const half = s.dataBlocks >> 1;
  const a = t.scan(undefined, { blocks: { start: 0, end: half } });
  const b = t.scan(undefined, { blocks: { start: half, end: s.dataBlocks } });
  expect(a.dataEntries + b.dataEntries).toBe(s.dataEntries);
  expect(a.dataBlocks + b.dataBlocks).toBe(s.dataBlocks);
  if (b.dataEntries > 0) expect(b.lastKey?.toString("hex")).toBe(s.lastKey?.toString("hex"));
  if (t.indexType === "two-level") {
    const partitions = new Set<number>();
    for (const e of t.indexEntries()) partitions.add(e.partition!.offset);
    expect(partitions.size).toBe(t.properties["rocksdb.index.partitions"]);
  }
  // deep mode's tally of the index, against the writer's own counts
  const tally = new HandleTally();
  t.index.tallyHandles(tally);
  expect(tally.blocks).toBe(s.dataBlocks);
  expect(tally.bytes).toBe(s.dataBlockBytes);
  if (t.format === "block-based") {
    expect(tally.blocks).toBe(t.properties["rocksdb.num.data.blocks"]);
    expect(tally.bytes + 5 * tally.blocks).toBe(t.properties["rocksdb.data.size"]);
    if (t.indexType === "two-level")
      expect(tally.partitions.size).toBe(t.properties["rocksdb.index.partitions"]);
  }
  expect(t.rangeDeletions().length).toBe(s.rangeDeletions);

  // filters: every key present passes; absent keys are rejected at the predicted rate
  const result: CheckResult = { entries: s.entries, absentChecked: 0, absentAccepted: 0 };
  const f = t.filter;
  if (f.kind !== "none") {
    let falseNegatives = 0;
    for (const k of userKeys) if (t.mayContain(k) === false) falseNegatives++;
    expect(falseNegatives).toBe(0);
    let absent = absentKeysLike(userKeys, 20000);
    const prefix = /Prefix\.(\d+)$/.exec(f.prefixExtractor ?? "");
    if (!f.wholeKeyFiltering && prefix) {
      // a prefix-only filter answers for prefixes: absent keys need absent prefixes
      const n = Number(prefix[1]);
      const present = new Set(userKeys.map((k) => k.subarray(0, n).toString("hex")));
      absent = absentKeys(20000, Math.max(n, userKeys[0]?.length ?? n)).filter(
        (k) => !present.has(k.subarray(0, n).toString("hex")),
      );
    }
    expect(absent.length).toBeGreaterThan(19900);
    let accepted = 0;
    for (const k of absent) if (t.mayContain(k) !== false) accepted++;
    // the query by a precomputed hash (check's overlay hashes a key once for thousands of tables)
    // answers as the query by key, bit for bit, on every key present and absent
    const byHash = t.detachedFilter()?.mayContainHash;
    if (byHash) {
      const h = new Uint32Array(2);
      let differ = 0;
      for (const k of [...userKeys, ...absent]) {
        hash64Parts(k, h);
        if (byHash(h[0]!, h[1]!) !== t.mayContain(k)) differ++;
      }
      expect(differ).toBe(0);
    }
    const est = f.estimatedFpRate;
    result.absentChecked = absent.length;
    result.absentAccepted = accepted;
    result.estimatedFpRate = est;
    const observed = accepted / absent.length;
    if (process.env.LSMSCOPE_DEBUG) console.log(file, f, accepted, absent.length);
    expect(est).toBeDefined();
    if (est !== undefined) {
      const sigma = Math.sqrt(est / absent.length);
      expect(observed).toBeGreaterThanOrEqual(est * 0.5 - 4 * sigma);
      expect(observed).toBeLessThanOrEqual(est * 1.6 + 4 * sigma);
    }
  }

  // point lookups of a sample of keys: the newest version, as the scan saw it
  const sample = [...newest.keys()].filter((_, i) => i % 37 === 0);
  const tombstones = t.rangeDeletions();
  let coveredLookups = 0;
  for (const hex of sample) {
    const key = Buffer.from(hex, "hex");
    const r = t.get(key);
    const n = newest.get(hex)!;
    expect(r.found).toBe(true);
    const covering = tombstones.filter(
      (d) => d.start.compare(key) <= 0 && key.compare(d.end) < 0 && d.seqno > n.seqno,
    );
    if (covering.length > 0) {
      // RocksDB's Get applies the table's range tombstones: the key reads as deleted
      coveredLookups++;
      expect(r.type).toBe(0xf);
      expect(r.seqno).toBe(Math.max(...covering.map((d) => d.seqno)));
      continue;
    }
    expect(r.type).toBe(n.type);
    expect(r.seqno).toBe(n.seqno);
    expect(r.value?.toString("hex")).toBe(n.value);
    expect(r.stats.dataBlocksRead).toBe(1);
  }
  // a lookup at a tombstone's start key reads the tombstone (unless a newer entry for that key exists)
  for (const d of tombstones.slice(0, 10)) {
    // the start key, and a key just after it that the table does not hold (the filter rejects it,
    // the tombstone still answers)
    const after = Buffer.concat([d.start, Buffer.from([0x00])]);
    for (const key of [d.start, after]) {
      if (key.compare(d.end) >= 0) continue;
      const r = t.get(key);
      const n = newest.get(key.toString("hex"));
      const newer = tombstones.filter((x) => x.start.compare(key) <= 0 && key.compare(x.end) < 0);
      const top = Math.max(...newer.map((x) => x.seqno));
      if (n && n.seqno > top) expect(r.seqno).toBe(n.seqno);
      else {
        expect(r.found).toBe(true);
        expect(r.type).toBe(0xf);
        expect(r.seqno).toBe(top);
        coveredLookups++;
      }
    }
  }
  if (process.env.LSMSCOPE_DEBUG) console.log(file, "lookups answered by range tombstones:", coveredLookups);
  // absent keys never read more than one data block
  for (const k of absentKeys(50, 8, 99)) {
    const r = t.get(k);
    expect(r.found).toBe(false);
    expect(r.stats.dataBlocksRead).toBeLessThanOrEqual(1);
  }

  // every block's checksum (data blocks were verified by the scan)
  t.verifyAllBlocks();
  return result;
}
