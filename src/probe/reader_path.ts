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
import { SstTable, openTable, type IndexEntry } from "../format/table.js";
import { Block, BlockCursor } from "../format/block.js";
import { BLOCK_TRAILER_SIZE, type BlockHandle } from "../format/handle.js";
import { ValueType } from "../format/internal_key.js";
import { fromHex } from "../util/bytes.js";
import { decodeBlobIndex, readBlobRecord } from "./blob.js";
import { replayWals, type Memtable } from "./memtable.js";
import type { LookupTrace, ProbeFile, ProbeTarget } from "./types.js";

interface OpenedTable {
  file: ProbeFile;
  table: SstTable;
  smallest: Buffer;
  largest: Buffer;
  /** User-key part of every index separator, with its data block handle, in order. */
  separators: Buffer[];
  handles: BlockHandle[];
  indexLevels: number;
  useFilter: boolean;
  filterBlockBased: boolean;
}

export interface ReaderOpenStats {
  tables: number;
  /** Bytes read opening the tables (metadata, index, filter). */
  openBytes: number;
  /** Files whose filter the lookups consult, skip, or cannot use (and why). */
  filterUse: {
    consulted: number;
    noFilterInFile: number;
    noPolicyInOptions: number;
    optimizedForHits: number;
    notWholeKey: number;
  };
  memtableEntries: number;
  notes: string[];
}

const WHOLE_KEY_POLICIES = /^(rocksdb\.BuiltinBloomFilter|leveldb\.BuiltinBloomFilter2)$/;

export class LsmReader {
  readonly target: ProbeTarget;
  readonly leveldb: boolean;
  private readonly mem: Memtable;
  private readonly l0: OpenedTable[] = [];
  private readonly levels: OpenedTable[][] = [];
  readonly openStats: ReaderOpenStats;

  constructor(target: ProbeTarget) {
    this.target = target;
    this.leveldb = target.engine === "leveldb";
    const notes: string[] = [];
    this.mem = replayWals(target.wals, target.cfId);
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
    const byLevel = new Map<number, ProbeFile[]>();
    for (const f of target.files) {
      if (!byLevel.has(f.level)) byLevel.set(f.level, []);
      byLevel.get(f.level)!.push(f);
    }
    const l0 = [...(byLevel.get(0) ?? [])].sort((a, b) =>
      this.leveldb
        ? b.fileNumber - a.fileNumber
        : (b.largestSeqno ?? 0) - (a.largestSeqno ?? 0) ||
          (b.smallestSeqno ?? 0) - (a.smallestSeqno ?? 0) ||
          b.fileNumber - a.fileNumber,
    );
    let rangeDelFiles = 0;
    const open = (f: ProbeFile, lastInLevel: boolean): OpenedTable => {
      const table = openTable(f.path);
      const separators: Buffer[] = [];
      const handles: BlockHandle[] = [];
      for (const e of table.iterateIndex() as Iterable<IndexEntry>) {
        separators.push(
          e.separatorIsInternal ? e.separator.subarray(0, e.separator.length - 8) : e.separator,
        );
        handles.push(e.handle);
      }
      const fi = table.filter; // loads the full filter / partition index, as the table reader does at open
      let useFilter = false;
      if (fi.kind === "none") filterUse.noFilterInFile++;
      else if (!policyConfigured || !WHOLE_KEY_POLICIES.test(fi.policy ?? "")) filterUse.noPolicyInOptions++;
      else if (
        target.options.optimizeFiltersForHits &&
        (f.level > 0 || lastInLevel) &&
        f.level === nonEmpty - 1
      )
        filterUse.optimizedForHits++;
      else if (!fi.wholeKeyFiltering) filterUse.notWholeKey++;
      else {
        useFilter = true;
        filterUse.consulted++;
      }
      if (table.meta("rocksdb.range_del")) rangeDelFiles++;
      openBytes += table.io.bytes;
      return {
        file: f,
        table,
        smallest: fromHex(f.smallestKey),
        largest: fromHex(f.largestKey),
        separators,
        handles,
        indexLevels: table.indexType === "two-level" ? 2 : 1,
        useFilter,
        filterBlockBased: fi.blockBased,
      };
    };
    l0.forEach((f, i) => this.l0.push(open(f, i === l0.length - 1)));
    const maxLevel = nonEmpty - 1;
    for (let lv = 1; lv <= maxLevel; lv++) {
      const files = [...(byLevel.get(lv) ?? [])].sort((a, b) =>
        fromHex(a.smallestKey).compare(fromHex(b.smallestKey)),
      );
      this.levels[lv] = files.map((f, i) => open(f, i === files.length - 1));
    }
    if (rangeDelFiles > 0)
      notes.push(`${rangeDelFiles} tables carry range deletions; the reader path does not apply them`);
    if (filterUse.notWholeKey > 0)
      notes.push(
        `${filterUse.notWholeKey} tables have whole_key_filtering=false (prefix-only filters): the reader path does not query prefix filters for them`,
      );
    this.openStats = {
      tables: this.l0.length + this.levels.reduce((n, l) => n + (l?.length ?? 0), 0),
      openBytes,
      filterUse,
      memtableEntries: this.mem.entries.size,
      notes,
    };
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
    const m = this.mem.entries.get(key.toString("hex"));
    if (m) {
      tr.level = "memtable";
      tr.found = m.kind !== "deletion";
      if (m.kind === "blobIndex" && m.value) this.readBlob(m.value, key, tr);
      return tr;
    }
    for (const t of this.l0) {
      if (key.compare(t.smallest) < 0 || key.compare(t.largest) > 0) continue;
      const r = this.tableGet(t, key, tr);
      if (r !== undefined) return this.finish(tr, r, 0);
    }
    for (let lv = 1; lv < this.levels.length; lv++) {
      const files = this.levels[lv];
      if (!files || files.length === 0) continue;
      let lo = 0;
      let hi = files.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (files[mid]!.largest.compare(key) < 0) lo = mid + 1;
        else hi = mid;
      }
      const t = files[lo];
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
    const idx = decodeBlobIndex(value);
    const n = readBlobRecord(idx, key.length, this.target.blobFiles);
    if (n > 0) {
      tr.blobReads++;
      tr.bytes += n;
    }
  }

  /** The table-level lookup; undefined when the table has no entry for the key (search goes on). */
  private tableGet(t: OpenedTable, key: Buffer, tr: LookupTrace): { found: boolean } | undefined {
    tr.files++;
    if (t.useFilter && !t.filterBlockBased) {
      const s = {
        filterChecked: 0,
        filterRejected: 0,
        indexBlocksRead: 0,
        filterBlocksRead: 0,
        dataBlocksRead: 0,
        bytesRead: 0,
      };
      const ok = t.table.mayContain(key, s);
      tr.filterChecks += s.filterChecked;
      tr.filterRejections += s.filterRejected;
      tr.filterBlocks += s.filterBlocksRead;
      tr.bytes += s.bytesRead;
      if (ok === false) return undefined;
    }
    // index: first separator whose user key is >= key
    let lo = 0;
    let hi = t.separators.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (t.separators[mid]!.compare(key) < 0) lo = mid + 1;
      else hi = mid;
    }
    tr.indexBlocks += t.indexLevels;
    if (lo >= t.handles.length) return undefined;
    if (t.useFilter && t.filterBlockBased) {
      // LevelDB-style filter: one Bloom per 2 KiB of data, queried with the data block's offset
      const s = {
        filterChecked: 0,
        filterRejected: 0,
        indexBlocksRead: 0,
        filterBlocksRead: 0,
        dataBlocksRead: 0,
        bytesRead: 0,
      };
      const ok = t.table.mayContain(key, s);
      tr.filterChecks += s.filterChecked;
      tr.filterRejections += s.filterRejected;
      if (ok === false) return undefined;
    }
    const cmp = (k: Buffer, len: number) => k.compare(key, 0, key.length, 0, len - 8);
    for (let i = lo; i < t.handles.length; i++) {
      const h = t.handles[i]!;
      const db = t.table.readDataBlock(h);
      tr.dataBlocks++;
      tr.bytes += h.size + BLOCK_TRAILER_SIZE;
      tr.dataBlockIds?.push(`${t.file.fileNumber}:${h.offset}:${h.size + BLOCK_TRAILER_SIZE}`);
      const c = new BlockCursor().reset(db.block as Block);
      if (!c.seek(cmp)) {
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
      if (type === ValueType.Deletion || type === ValueType.SingleDeletion) return { found: false };
      // merge operands and other types: counted as found (the probe has no merge operator)
      return { found: true };
    }
    return undefined;
  }
}
