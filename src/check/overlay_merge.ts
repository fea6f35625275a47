/**
 * The placement overlay's lookups of the keys drawn from one data block above (block sampling), in the
 * tables below, block by block: each table that may hold some of them is visited once, in the order a
 * Get walks them, for the keys not answered yet. There the keys go either to one pass over the data
 * blocks their key range spans (a merge of two sorted runs) or to point lookups (filter, index, data
 * block; one read per block the sorted keys share). The pass gives each key the answer a point lookup
 * gives (the table's newest entry for the user key, any type) without the filter, which only turns
 * away keys the table does not hold. The pass goes on while it reads no more than one block per two
 * keys (the keys it did not reach go to point lookups), and is taken only for tables whose point
 * lookup is the plain newest entry: bytewise order, no range deletions (those apply over the
 * entries), RocksDB/LevelDB rows (not Pebble's formats).
 */
import type { LastDataBlock, SstTable } from "../format/table.js";
import { emptyLookupStats } from "../format/read_stats.js";
import { BlockSpan, type BlockHandle } from "../format/handle.js";
import type { SstFileModel } from "../datadir/model.js";
import type { TableCache } from "../lsm/table_cache.js";
import { fromHex } from "../util/bytes.js";
import { lowerBound } from "../util/lower_bound.js";
import { keyAt, MIN_MERGE_KEYS, releaseKeys, type BlockUnit, type UnitKeys } from "./overlay_blocks.js";
import { shuffle } from "./stats.js";
import { compareBytewise, isBytewiseComparator } from "../base/comparator.js";

/** What the lookups cost (OverlayMeasurement.lookups) and what they could not resolve. */
export interface LookupTally {
  lookups: { tablesConsulted: number; filterRejections: number; dataBlocksRead: number };
  unresolved: number;
}

/** What the pass found for one key: the newest entry's sequence number and its internal key + value bytes. */
export interface MergeHit {
  seqno: number;
  bytes: number;
}

/** Whether keys of `t` may be looked up by a merge pass. */
export function mergeable(t: SstTable): boolean {
  return isBytewiseComparator(t.comparator) && t.format !== "pebble" && !t.rangeDelHandle();
}

/** The first key of `keys` that is ≥ `bound` (with `strict`: > `bound`). */
function firstKeyFrom(keys: UnitKeys, bound: Buffer, strict: boolean): number {
  return lowerBound(keys.n, (i) => {
    const c = compareBytewise(keys.bytes, keys.start[i]!, keys.start[i + 1]!, bound, 0, bound.length);
    return c < 0 || (strict && c === 0);
  });
}

/**
 * Look the keys `idx` of `keys` (ascending) up in `t` by one pass over the data blocks from the first
 * one's on: `hits[i]` is set for each key idx[i] the table holds. The pass stops after `maxBlocks`
 * blocks; the keys it answered are answered (a key below the last entry read is settled either way)
 * and the position in `idx` of the first key it did not reach is returned (idx.length when it reached
 * them all), with the blocks read. Throws what the reader throws (a corrupt block): the caller counts
 * the keys unresolved.
 */
export function mergeLookups(
  t: SstTable,
  keys: UnitKeys,
  idx: readonly number[],
  hits: (MergeHit | undefined)[],
  maxBlocks: number,
): { reached: number; blocks: number } {
  let blocks = 0;
  let j = 0;
  const n = idx.length;
  if (n === 0) return { reached: 0, blocks: 0 };
  const { bytes, start } = keys;
  const cmp = (i: number, b: Buffer, len: number) =>
    compareBytewise(bytes, start[idx[i]!]!, start[idx[i]! + 1]!, b, 0, len);
  // the data blocks from the first key's on, up to the one whose separator reaches the last key (at
  // most maxBlocks), read at once: a pass through a lower level's table for the keys of a drawn
  // block reads several blocks side by side, one call each before (a LevelDB store of 1.1 GB: ~8
  // blocks a pass, 1,130 passes)
  const handles: BlockHandle[] = [];
  const span = new BlockSpan();
  const last = keyAt(keys, idx[n - 1]!);
  const userKeys = t.indexKeyIsUserKey;
  // whether the budget cut the pass short of the last key's block
  let cut = false;
  t.forEachIndexHandle(
    (offset, size, _partition, sep, sepLength) => {
      if (handles.length >= maxBlocks) {
        cut = true;
        return false;
      }
      handles.push({ offset, size });
      span.add(offset, size);
      const userLength = userKeys ? sepLength : sepLength - 8;
      return compareBytewise(sep, 0, Math.max(0, userLength), last, 0, last.length) < 0;
    },
    true,
    keyAt(keys, idx[0]!),
  );
  const pass = () => {
    for (const handle of handles) {
      // each block is done with before the next is read: the thread's one transient buffer serves
      // the pass (a buffer of each table's own was fresh memory for every table a pass visits)
      const c = t.readDataBlock(handle, { lifetime: "transient" }).cursor();
      blocks++;
      while (c.next()) {
        const userLength = c.keyLength - 8;
        if (userLength < 0) continue;
        // keys below this entry's user key are not in the table
        let d = 0;
        while (j < n && (d = cmp(j, c.key, userLength)) < 0) j++;
        if (j >= n) return;
        // the first entry of a user key is its newest version in the table (internal key order)
        while (d === 0) {
          hits[j] = { seqno: c.seqno, bytes: c.keyLength + c.valueLength };
          if (++j >= n) return;
          d = cmp(j, c.key, userLength);
        }
      }
    }
  };
  if (handles.length > 1) t.blocks.file.withSpan(span.start, span.end, pass);
  else pass();
  // where the block budget stopped the pass (-1: it did not)
  const stoppedAt = cut && j < n ? j : -1;
  // every key reached, or past the table's last block: no key left is in it
  return { reached: stoppedAt >= 0 ? stoppedAt : n, blocks };
}

/** lookUpUnits' per-key state of the unit it is looking up (one unit at a time). */
let olderScratch = new Float64Array(64);
let failedScratch = new Uint8Array(64);

/**
 * Look up the keys of `units` (from `from` on) below, unit by unit in a uniform order; `filesFor` gives
 * a unit's tables below in walk order. Each key stops at its nearest older version (the first table in
 * walk order whose newest entry for it has a smaller sequence number), exactly as a Get walk per key
 * would. Fills each unit's checked / shadowing / shadowedBytes and lets its keys go. When the next
 * unit's lookups (keys × tables) would take the lookups past `budget`, it and every unit after it in
 * that order are left unchecked (a uniform subsample of units is checked): returns the keys left.
 */
export function lookUpUnits(
  units: BlockUnit[],
  from: number,
  filesFor: (u: BlockUnit) => SstFileModel[],
  cache: TableCache,
  random: () => number,
  budget: number,
  tally: LookupTally,
  skip: (f: SstFileModel, e: unknown) => void,
): number {
  const order: number[] = [];
  for (let i = from; i < units.length; i++) order.push(i);
  // a uniform order, so that when the budget ends the lookups, the units checked are a uniform
  // subsample of those drawn
  shuffle(order, random);
  const bounds = new Map<SstFileModel, [Buffer, Buffer]>();
  let dropped = 0;
  let stop = false;
  for (const ui of order) {
    const u = units[ui]!;
    const files = stop ? [] : filesFor(u);
    if (stop || tally.lookups.tablesConsulted + u.keys.n * files.length > budget) {
      stop = true;
      dropped += u.keys.n;
      releaseKeys(u);
      continue;
    }
    const n = u.keys.n;
    // bytes of the older version found per key, -1 while none; keys whose lookup failed (this unit's
    // part of arrays the units share: two arrays per unit were most of a one-key unit's lookups' garbage)
    if (n > olderScratch.length) {
      olderScratch = new Float64Array(2 * n);
      failedScratch = new Uint8Array(2 * n);
    }
    const older = olderScratch;
    const failed = failedScratch;
    older.fill(-1, 0, n);
    failed.fill(0, 0, n);
    for (const f of files) {
      let b = bounds.get(f);
      if (!b) bounds.set(f, (b = [fromHex(f.smallestKey), fromHex(f.largestKey)]));
      const [lo, hi] = b;
      // the keys within the table's range (sorted: two binary searches), not answered yet
      const idx: number[] = [];
      const end = firstKeyFrom(u.keys, hi, true);
      for (let k = firstKeyFrom(u.keys, lo, false); k < end; k++) if (older[k]! < 0) idx.push(k);
      if (idx.length === 0) continue;
      lookUpInTable(f, u, idx, older, failed, cache, tally, skip);
    }
    for (let k = 0; k < n; k++) {
      const bytes = older[k]!;
      if (bytes < 0 && failed[k] === 1) {
        tally.unresolved++;
        continue;
      }
      u.checked++;
      if (bytes >= 0) {
        u.shadowing++;
        u.shadowedBytes += bytes;
      }
    }
    releaseKeys(u);
  }
  return dropped;
}

/** The keys `idx` of unit `u` (key order) in table `f`: older[k] = bytes of the older version found (else -1). */
function lookUpInTable(
  f: SstFileModel,
  u: BlockUnit,
  idx: number[],
  older: Float64Array,
  failed: Uint8Array,
  cache: TableCache,
  tally: LookupTally,
  skip: (f: SstFileModel, e: unknown) => void,
): void {
  let t: SstTable;
  try {
    if (!f.present) throw new Error("missing");
    t = cache.acquire(f.path);
  } catch (e) {
    skip(f, e);
    for (const k of idx) failed[k] = 1;
    return;
  }
  const readsBefore = tally.lookups.dataBlocksRead;
  try {
    tally.lookups.tablesConsulted += idx.length;
    u.cost.visits += idx.length;
    let point = idx;
    if (idx.length >= MIN_MERGE_KEYS && mergeable(t)) {
      // a pass while it reads at most one block per two keys; the keys it did not reach: point lookups
      const hits: (MergeHit | undefined)[] = [];
      let pass;
      try {
        pass = mergeLookups(t, u.keys, idx, hits, Math.floor(idx.length / 2));
      } catch (e) {
        skip(f, e);
        for (const k of idx) failed[k] = 1;
        return;
      }
      tally.lookups.dataBlocksRead += pass.blocks;
      for (let i = 0; i < pass.reached; i++) {
        const h = hits[i];
        const k = idx[i]!;
        if (h && h.seqno < u.keys.seqno[k]!) older[k] = h.bytes;
      }
      point = idx.slice(pass.reached);
    }
    // this table's lookups alone until the next unit: its blocks read transiently, not a buffer each
    const lastBlock: LastDataBlock = { transient: true };
    // one count of what the lookups read, for all of them
    const stats = emptyLookupStats();
    for (const k of point) {
      const key = keyAt(u.keys, k);
      const seqno = u.keys.seqno[k]!;
      let r;
      try {
        r = t.get(key, stats, lastBlock);
      } catch (e) {
        skip(f, e);
        failed[k] = 1;
        continue;
      }
      if (r.filterRejected) tally.lookups.filterRejections++;
      if (r.found && r.seqno !== undefined && r.seqno < seqno)
        older[k] = key.length + 8 + (r.value?.length ?? 0);
    }
    tally.lookups.dataBlocksRead += stats.dataBlocksRead;
    u.cost.reads += tally.lookups.dataBlocksRead - readsBefore;
    let held = 0;
    for (const k of idx) if (older[k]! >= 0) held++;
    u.cost.pointReads += held + (idx.length - held) * missedReads(t);
  } finally {
    cache.release(t);
  }
}

/**
 * The data blocks a point lookup reads, on average, for a key the table does not hold: its whole-key
 * filter's false-positive rate (its own geometry's estimate, else 1% as at 10 bits a key), every
 * time without one (the index then sends the key to a block).
 */
function missedReads(t: SstTable): number {
  let f;
  try {
    f = t.filter;
  } catch {
    return 1; // damaged filter metadata: its lookups say so; the cost model takes no filter
  }
  if (f.kind === "none" || f.degenerate === "always-true" || !f.wholeKeyFiltering) return 1;
  return f.estimatedFpRate ?? 0.01;
}
