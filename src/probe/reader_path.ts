/**
 * The reader path: a point lookup in TypeScript that walks the LSM the way RocksDB 7.8.3's DBImpl::GetImpl
 * and Version::Get do (LevelDB's Version::Get for LevelDB stores), counting what each lookup touches.
 *
 *   1. memtable (the live WALs replayed, as DB::OpenForReadOnly does): a put or delete ends the lookup;
 *   2. L0: every file whose [smallest, largest] user-key range holds the key, newest first (largest
 *      seqno, then smallest seqno, then file number, descending: NewestFirstBySeqNo; LevelDB: file number);
 *   3. L1..Ln: one candidate file per level, found by binary search on the files' largest keys
 *      (FindFileInRange), skipped when the key sorts before its smallest key;
 *   4. in a table (BlockBasedTable::Get): the full/partitioned filter when the options in force carry a
 *      filter policy and the file has a whole-key filter (skipped on the last non-empty level under
 *      optimize_filters_for_hits), then the index, then the data block. When the seek lands past the
 *      end of the data block (the key falls between the block's last key and the index separator),
 *      RocksDB moves on to the next index entry and reads that block too; LevelDB does not.
 *      LevelDB's block-based filter is checked after the index seek, with the block offset.
 *   5. a blob index is resolved by reading the blob record (BlobFileReader::GetBlob).
 *
 * Block "cache" model, consistent with the engine run with fill_cache=false: every table is opened
 * before the lookups (footer, metaindex, properties, top-level index, full filter or filter partition
 * index: the table reader holds them, as RocksDB does with cache_index_and_filter_blocks=false or its
 * prefetch at open with =true); index partitions are read at open too (RocksDB pins/prefetches them);
 * data blocks, filter partitions and blob records are read anew on every lookup.
 */
import { SstTable, emptyLookupStats } from "../format/table.js";
import { TablesInTurn } from "../format/tables_in_turn.js";
import { BLOCK_TRAILER_SIZE } from "../format/handle.js";
import { isTombstone, ValueType } from "../base/internal_key.js";
import { fromHex } from "../util/bytes.js";
import { lowerBound } from "../util/lower_bound.js";
import { Version } from "../lsm/version.js";
import { HASH_INDEX_METADATA, HASH_INDEX_PREFIXES, type PrefixHashIndex } from "../format/hash_index.js";
import { decodeFilterBits, type FilterBits } from "../format/filter_bits.js";
import { BlockKind, META_RANGE_DEL } from "../format/block_kind.js";
import { decodeBlobIndex, readBlobRecord } from "../format/blob.js";
import { BlobFileGate } from "../datadir/blob_file.js";
import { replayWals, type Memtable } from "./memtable.js";
import type { LookupTrace, ProbeFile, ProbeTarget } from "./types.js";
import { plural } from "../util/words.js";
import { PackedIndex } from "../format/packed_index.js";
import type { LookupStats } from "../format/read_stats.js";
import { compareBytewise } from "../base/comparator.js";

interface OpenedTable {
  file: ProbeFile;
  table: SstTable;
  smallest: Buffer;
  largest: Buffer;
  /** User-key part of every index separator and its data block, packed (one table can have millions). */
  index: PackedIndex;
  indexLevels: number;
  separatorsInternal: boolean;
  useFilter: boolean;
  filterBlockBased: boolean;
  hashIndex?: HashIndex;
  /** whole_key_filtering=false with a prefix extractor: the full filter holds prefixes (PrefixMayMatch). */
  prefixFilter?: { bits: FilterBits; length: number; fixed: boolean };
}

/** A table's prefix hash index (format/hash_index.ts) with the prefix extractor it applies under. */
interface HashIndex {
  prefixLength: number;
  fixed: boolean;
  index: PrefixHashIndex;
}

function prefixExtractorLength(name: string | undefined): { length: number; fixed: boolean } | undefined {
  const m = /^(?:rocksdb\.)?(CappedPrefix|FixedPrefix|capped|fixed)[.:](\d+)$/.exec((name ?? "").trim());
  if (!m) return undefined;
  return { length: Number(m[2]), fixed: /fixed/i.test(m[1]!) };
}

export interface ReaderOpenStats {
  tables: number;
  /** Bytes read opening the tables: each one's tail in one read, and index or filter beyond it. */
  openBytes: number;
  /** Files whose filter the lookups consult, skip, or cannot use (and why). */
  filterUse: {
    consulted: number;
    noFilterInFile: number;
    noPolicyInOptions: number;
    optimizedForHits: number;
    notWholeKey: number;
  };
  notes: string[];
}

const WHOLE_KEY_POLICIES = /^(rocksdb\.BuiltinBloomFilter|leveldb\.BuiltinBloomFilter2)$/;

export class LsmReader {
  readonly target: ProbeTarget;
  readonly leveldb: boolean;
  private readonly mem: Memtable;
  private readonly l0: OpenedTable[] = [];
  private readonly levels: OpenedTable[][] = [];
  /** Every table this reader opened, by path. */
  private readonly byPath = new Map<string, SstTable>();
  /** The counters of one table's filter check (tableGet), reused. */
  private readonly filterStats = emptyLookupStats();
  /** Blob files as RocksDB checks them when it first opens one. */
  private readonly blobFiles: BlobFileGate;
  readonly openStats: ReaderOpenStats;

  constructor(target: ProbeTarget) {
    this.target = target;
    this.blobFiles = new BlobFileGate(target.cfId);
    this.leveldb = target.engine === "leveldb";
    const notes: string[] = [];
    this.mem = replayWals(target.wals, target.cfId, { pebble: target.engine === "pebble" });
    if (this.mem.rangeDeletions > 0)
      notes.push(`${this.mem.rangeDeletions} range deletions in the WAL are not applied by the reader path`);
    const filterUse = {
      consulted: 0,
      noFilterInFile: 0,
      noPolicyInOptions: 0,
      optimizedForHits: 0,
      notWholeKey: 0,
    };
    const policyConfigured = this.leveldb || !/^(nullptr|)$/.test(target.options.filterPolicy.trim());
    const nonEmpty = target.files.reduce((m, f) => Math.max(m, f.level), -1) + 1; // num_non_empty_levels
    let openBytes = 0;
    // the lookup order of the one LSM view; this walk keeps its own instrumentation
    const version = new Version(target.files);
    const l0 = version.l0;
    let rangeDelFiles = 0;
    let hashIndexFiles = 0;
    // every table opened up front, one after another on this thread: each one's metadata in one read
    // of its tail, as RocksDB's table reader prefetches it, and those tails read ahead on other threads
    // by the read-ahead helper (util/tail_batches.ts) where there are many, as inspect reads them (an
    // L0 pile-up of 4,865 tables: five or six reads a table, ~0.55 s of a ~2 s probe)
    const ordered = [...version.l0, ...version.levels.slice(1, nonEmpty).flatMap((files) => files ?? [])];
    // how much of each table's end to read is learned from this reader's own tables (a point's
    // openBytes then does not depend on what the process opened earlier)
    const inTurn = new TablesInTurn(ordered.map((f) => f.path));
    const open = (f: ProbeFile, lastInLevel: boolean): OpenedTable => {
      const table = inTurn.open(f.path, { verifyChecksums: true });
      const index = table.packedIndex();
      const fi = table.filterInFull; // loads the filter / partition index, as the table reader does at open
      let useFilter = false;
      let prefixFilter: OpenedTable["prefixFilter"];
      if (fi.kind === "none") filterUse.noFilterInFile++;
      else if (!policyConfigured || !WHOLE_KEY_POLICIES.test(fi.policy ?? "")) filterUse.noPolicyInOptions++;
      else if (
        target.options.optimizeFiltersForHits &&
        (f.level > 0 || lastInLevel) &&
        f.level === nonEmpty - 1
      )
        filterUse.optimizedForHits++;
      else if (!fi.wholeKeyFiltering) {
        const pl = prefixExtractorLength(target.options.prefixExtractor);
        const builtWith = prefixExtractorLength(table.props.prefixExtractorName ?? "");
        const fh = fi.metaBlock ? table.meta(fi.metaBlock) : undefined;
        if (
          pl &&
          builtWith &&
          builtWith.length === pl.length &&
          builtWith.fixed === pl.fixed &&
          fh &&
          !fi.partitioned &&
          !fi.blockBased
        ) {
          prefixFilter = {
            bits: decodeFilterBits(table.readMetaBlockRaw(fh, BlockKind.Filter)),
            ...pl,
          };
          filterUse.consulted++;
        } else filterUse.notWholeKey++;
      } else {
        useFilter = true;
        filterUse.consulted++;
      }
      if (table.meta(META_RANGE_DEL)) rangeDelFiles++;
      let hashIndex: HashIndex | undefined;
      const pl = prefixExtractorLength(target.options.prefixExtractor);
      const pMeta = table.meta(HASH_INDEX_PREFIXES);
      const mMeta = table.meta(HASH_INDEX_METADATA);
      const builtWith = prefixExtractorLength(table.props.prefixExtractorName ?? "");
      if (
        table.indexType === "hash-search" &&
        pl &&
        pMeta &&
        mMeta &&
        builtWith &&
        builtWith.length === pl.length &&
        builtWith.fixed === pl.fixed
      ) {
        hashIndex = { prefixLength: pl.length, fixed: pl.fixed, index: table.readHashIndex()! };
        hashIndexFiles++;
      }
      openBytes += table.io.bytes;
      this.byPath.set(f.path, table);
      inTurn.done(table);
      // what the lookups need of the tail (index, filter) is read by now: kept open for as long as the
      // reader is, thousands of tails would stay in memory
      table.blocks.file.dropTail();
      return {
        file: f,
        table,
        smallest: fromHex(f.smallestKey),
        largest: fromHex(f.largestKey),
        index,
        indexLevels: table.indexType === "two-level" ? 2 : 1,
        separatorsInternal: !table.indexKeyIsUserKey,
        hashIndex,
        prefixFilter,
        useFilter,
        filterBlockBased: fi.blockBased,
      };
    };
    l0.forEach((f, i) => this.l0.push(open(f, i === l0.length - 1)));
    const maxLevel = nonEmpty - 1;
    for (let lv = 1; lv <= maxLevel; lv++) {
      const files = version.levels[lv] ?? [];
      this.levels[lv] = files.map((f, i) => open(f, i === files.length - 1));
    }
    if (hashIndexFiles > 0)
      notes.push(
        `${plural(hashIndexFiles, "table")} are looked up through their prefix hash index (kHashSearch)`,
      );
    if (rangeDelFiles > 0)
      notes.push(
        `${plural(rangeDelFiles, "table")} carry range deletions; the reader path does not apply them`,
      );
    if (filterUse.notWholeKey > 0)
      notes.push(
        `${plural(filterUse.notWholeKey, "table")} have whole_key_filtering=false and a partitioned or block-based prefix filter, or a prefix extractor other than the one they were built with: the reader path does not query their filters`,
      );
    this.openStats = {
      tables: this.l0.length + this.levels.reduce((n, l) => n + (l?.length ?? 0), 0),
      openBytes,
      filterUse,
      notes,
    };
  }

  /** The table at `path` as this reader opened it for its lookups (closed with the reader), if it did. */
  openedTable(path: string): SstTable | undefined {
    return this.byPath.get(path);
  }

  close(): void {
    for (const t of this.l0) t.table.close();
    for (const l of this.levels) for (const t of l ?? []) t.table.close();
  }

  /** One point lookup, with its counters. */
  get(key: Buffer, collectBlockIds = true): LookupTrace {
    const tr: LookupTrace = {
      found: false,
      level: "none",
      files: 0,
      filterChecks: 0,
      filterRejections: 0,
      indexBlocks: 0,
      filterBlocks: 0,
      dataBlocks: 0,
      blobReads: 0,
      bytes: 0,
    };
    if (collectBlockIds) tr.dataBlockIds = [];
    const m = this.mem.get(key);
    if (m) {
      tr.level = "memtable";
      tr.found = m.kind !== "deletion";
      if (m.kind === "blobIndex" && m.value) this.readBlob(m.value, key, tr);
      return tr;
    }
    const kl = key.length;
    for (const t of this.l0) {
      // a JS compare: the key differs from most ranges' ends within a byte or two, and Buffer.compare's
      // native call cost more than the rest of the lookup on an L0 pile-up (4,354 files per lookup)
      if (
        compareBytewise(key, 0, kl, t.smallest, 0, t.smallest.length) < 0 ||
        compareBytewise(key, 0, kl, t.largest, 0, t.largest.length) > 0
      )
        continue;
      const r = this.tableGet(t, key, tr);
      if (r !== undefined) return this.finish(tr, r, 0);
    }
    for (let lv = 1; lv < this.levels.length; lv++) {
      const files = this.levels[lv];
      if (!files || files.length === 0) continue;
      // FindFileInRange: the first file whose largest key is ≥ the key (as Version.fileFor)
      const t = files[lowerBound(files.length, (i) => files[i]!.largest.compare(key) < 0)];
      if (!t || key.compare(t.smallest) < 0) continue;
      const r = this.tableGet(t, key, tr);
      if (r !== undefined) return this.finish(tr, r, lv);
    }
    return tr;
  }

  private finish(tr: LookupTrace, r: { found: boolean }, level: number): LookupTrace {
    tr.found = r.found;
    tr.level = `L${level}`;
    return tr;
  }

  private readBlob(value: Buffer, key: Buffer, tr: LookupTrace): void {
    const idx = decodeBlobIndex(value, 0, value.length, { lenient: true });
    // a Get fails at the file's header or footer (BlobFileReader::Create, once per file as RocksDB's
    // blob file cache keeps its reader) before it reads the record; not counted in the lookup's bytes
    const path = this.target.blobFiles[String(idx.fileNumber)];
    if (path !== undefined) this.blobFiles.check(path);
    const n = readBlobRecord(idx, key.length, this.target.blobFiles);
    if (n > 0) {
      tr.blobReads++;
      tr.bytes += n;
    }
  }

  /** The table-level lookup; undefined when the table has no entry for the key (search goes on). */
  private tableGet(t: OpenedTable, key: Buffer, tr: LookupTrace): { found: boolean } | undefined {
    tr.files++;
    const pf = t.prefixFilter;
    if (pf && (!pf.fixed || key.length >= pf.length)) {
      // BlockBasedTable::FullFilterKeyMayMatch without whole keys: PrefixMayMatch(prefix)
      tr.filterChecks++;
      if (!pf.bits.mayMatch(key.subarray(0, Math.min(pf.length, key.length)))) {
        tr.filterRejections++;
        return undefined;
      }
    }
    if (t.useFilter && !t.filterBlockBased) {
      // as SstTable.mayContain without its per-call view, closure and counters (a full or partitioned
      // filter needs no data block offset): one counter object reset per table
      const s = resetStats(this.filterStats);
      const ok = t.table.filterReader.mayContain(key, s);
      tr.filterChecks += s.filterChecked;
      tr.filterRejections += s.filterRejected;
      tr.filterBlocks += s.filterBlocksRead;
      tr.bytes += s.bytesRead;
      if (ok === false) return undefined;
    }
    tr.indexBlocks += t.indexLevels;
    let lo: number;
    if (t.hashIndex && (!t.hashIndex.fixed || key.length >= t.hashIndex.prefixLength)) {
      const r = hashIndexSeek(t, key);
      if (r === undefined) return undefined;
      lo = r;
    } else {
      // index: first separator whose user key is >= key
      const index = t.index;
      lo = lowerBound(index.count, (i) => index.compare(i, key) < 0);
    }
    if (lo >= t.index.count) return undefined;
    if (t.useFilter && t.filterBlockBased) {
      // LevelDB-style filter: one Bloom per 2 KiB of data, queried with the data block's offset
      const s = emptyLookupStats();
      const ok = t.table.mayContain(key, s);
      tr.filterChecks += s.filterChecked;
      tr.filterRejections += s.filterRejected;
      if (ok === false) return undefined;
    }
    const cmp = (k: Buffer, len: number) => k.compare(key, 0, key.length, 0, len - 8);
    for (let i = lo; i < t.index.count; i++) {
      const h = t.index.handle(i);
      const db = t.table.readDataBlock(h);
      tr.dataBlocks++;
      tr.bytes += h.size + BLOCK_TRAILER_SIZE;
      tr.dataBlockIds?.push(`${t.file.fileNumber}:${h.offset}:${h.size + BLOCK_TRAILER_SIZE}`);
      const c = db.seek(cmp);
      if (!c) {
        if (this.leveldb) return undefined; // LevelDB stops at the first block
        continue; // RocksDB: the key may sit in the next block
      }
      if (c.keyLength < 8 || key.compare(c.key, 0, c.keyLength - 8) !== 0) return undefined;
      const type = c.key[c.keyLength - 8]!;
      if (type === ValueType.Value) return { found: true };
      if (type === ValueType.BlobIndex) {
        this.readBlob(c.valueCopy(), key, tr);
        return { found: true };
      }
      if (isTombstone(type)) return { found: false };
      // merge operands and other types: counted as found (the probe has no merge operator)
      return { found: true };
    }
    return undefined;
  }
}

/** `s` with every counter zero. */
function resetStats(s: LookupStats): LookupStats {
  s.filterChecked = 0;
  s.filterRejected = 0;
  s.indexBlocksRead = 0;
  s.filterBlocksRead = 0;
  s.dataBlocksRead = 0;
  s.bytesRead = 0;
  return s;
}

/** Separator i against the target (user key, kMaxSequenceNumber): CompareBlockKey in block.cc. */
function compareBlockKey(t: OpenedTable, i: number, key: Buffer): number {
  const c = t.index.compare(i, key);
  // an internal separator with the same user key carries a real seqno, which sorts after kMaxSequenceNumber
  return c === 0 && t.separatorsInternal ? 1 : c;
}

/**
 * IndexBlockIter::PrefixSeek + BinaryBlockIndexSeek (table/block_based/block.cc): the index entry a Get
 * reads, or undefined when the hash index rules the key out (no data block is read).
 *
 * BinaryBlockIndexSeek's loop (`left <= right`, break at `left == right`) is a lower bound over the
 * prefix's block ids: it ends with left == right at the first id whose separator is ≥ the key, or with
 * left > right, right = n - 1, when there is none. Written here as lowerBound, with its two endings.
 */
function hashIndexSeek(t: OpenedTable, key: Buffer): number | undefined {
  const h = t.hashIndex!;
  const prefix = key.subarray(0, Math.min(h.prefixLength, key.length));
  const ids = h.index.blocksFor(prefix);
  const n = ids.length;
  if (n === 0) return undefined;
  const at = lowerBound(n, (i) => compareBlockKey(t, ids[i]!, key) < 0);
  if (at < n) {
    // the block before, when the prefix does not list it, must not start past the key
    const id = ids[at]!;
    if (id > 0 && (at === 0 || ids[at - 1] !== id - 1) && compareBlockKey(t, id - 1, key) > 0)
      return undefined;
    return id;
  }
  // every listed block ends before the key: the next one may hold it
  const next = ids[n - 1]! + 1;
  if (next < t.index.count && compareBlockKey(t, next, key) >= 0) return next;
  return undefined;
}
