/**
 * The live contents of a column family, read without an engine: what a reader of the store would see,
 * whatever file or level holds each key. Shared by the compaction digest (compact/digest.ts) and `diff`.
 *
 *   sources  : every live SST of the CF (from the MANIFEST) + the writes still only in live WALs
 *   merge    : k-way merge by (user key asc, sequence desc); the first entry of a user key is its newest
 *   live     : newest entry is a value or blob index, and no range tombstone with a higher sequence
 *              covers it (deletions and single deletions hide the key)
 *   blobs    : blob index (type u8 | varint64 file | varint64 offset | varint64 size | compression u8)
 *              resolved by reading `size` bytes at `offset` of <file>.blob and decompressing them
 *
 * Merge operands and wide-column entities have no single value without the engine's operators: reading
 * them refuses rather than guesses. Bytewise comparator only.
 */
import { join } from "node:path";
import {
  expectedFileSize,
  type ColumnFamilyModel,
  type InstanceModel,
  type SstFileModel,
} from "../datadir/model.js";
import { PebbleBlobStore, withBlobValues } from "./pebble_blob_values.js";
import { ValueType } from "../base/internal_key.js";
import { BlobFileReader, decodeBlobIndex } from "../format/blob.js";
import { LsmscopeError } from "../util/errors.js";
import { BlobFileGate } from "../datadir/blob_file.js";
import { memCount, memEntriesIn, type MemLayer } from "../datadir/memtable.js";
import { loadLiveWal, type WalLayers } from "./wal_layers.js";
import { toHex } from "../util/bytes.js";
import {
  Fate,
  levelRuns,
  mergeReadAhead,
  MemRun,
  NewestCursor,
  TableRun,
  type BlockSink,
  type RangeTombstone,
  type Run,
} from "./merge.js";
import { TableCache, uncachedTables, type TableSource } from "./table_cache.js";
import { Version } from "./version.js";
import { newestVersion, shadowsOf } from "./newest.js";
import { TailEstimate } from "../util/tail_estimate.js";
import { TablesInTurn } from "../format/tables_in_turn.js";
import { isBytewiseComparator } from "../base/comparator.js";

const noBlocks: BlockSink = { block() {} };

/** How much of each table's end openLiveSources reads at once, learned from the tables read before. */
const rangeDelTail = new TailEstimate();

/** The sorted runs and range tombstones of one column family; close() releases the tables. */
export interface LiveSources {
  runs: Run[];
  rangeDels: RangeTombstone[];
  /** Entries of this CF still only in live WALs. */
  walEntries: number;
  close(): void;
}

/** User keys lo ≤ k < hi. */
export interface KeyRange {
  lo: Buffer;
  hi: Buffer;
}

function requireBytewise(cf: ColumnFamilyModel): void {
  if (!isBytewiseComparator(cf.comparator))
    throw new LsmscopeError(
      `column family ${cf.displayName} uses comparator ${cf.comparator}; reading its live keys needs bytewise`,
    );
}

export function openLiveSources(
  inst: InstanceModel,
  cf: ColumnFamilyModel,
  blocks: BlockSink = noBlocks,
  range?: KeyRange,
  /** What many range reads of the column family share (its WAL replayed, range deletions, open tables). */
  shared?: LiveRangeReads,
  /** Where its WAL layer comes from when not `shared` (else it is replayed for it alone). */
  walLayers?: WalLayers,
): LiveSources {
  requireBytewise(cf);
  const rangeDels: RangeTombstone[] = [];
  const runs: Run[] = [];
  const blobs = inst.engine === "pebble" ? new PebbleBlobStore(cf) : undefined;
  const close = () => {
    for (const r of runs) r.close();
    blobs?.close();
  };
  // a table's key range covers its range tombstones too: tables outside the range hold nothing for it
  const loHex = range?.lo.toString("hex");
  const hiHex = range?.hi.toString("hex");
  const overlaps = (f: { smallestKey: string; largestKey: string }) =>
    loHex === undefined || (f.largestKey >= loHex && f.smallestKey < hiHex!);
  const levels = cf.levels.map((l) => ({ ...l, files: l.files.filter(overlaps) }));
  try {
    rangeDels.push(...(shared ? shared.rangeDeletions() : readRangeDeletions(levels)));
    const tableRuns = levelRuns(levels);
    // shared: the tables come from its cache, whole (their indexes kept from one range to the next),
    // each with its own read-ahead; else a merge over many runs reads them lean (TableRun)
    const readAhead = shared ? undefined : mergeReadAhead(tableRuns.length);
    const tables = shared?.tables ?? uncachedTables({ readAhead });
    // Pebble: values separated into blob files are read from them (the MANIFEST's blob references)
    const source = blobs && !blobs.empty ? withBlobValues(tables, blobs) : shared?.tables;
    for (const files of tableRuns)
      runs.push(new TableRun(files, range?.lo, range?.hi, blocks, source, readAhead));
    const wal = shared?.wal ?? walLayers?.of(inst, cf) ?? loadLiveWal(inst, cf);
    rangeDels.push(...wal.rangeDels);
    // the memtable layer comes sorted: key ascending, newest first
    const entries = range ? memEntriesIn(wal.entries, range.lo, range.hi) : wal.entries;
    if (memCount(entries) > 0) runs.push(new MemRun(entries));
    return { runs, rangeDels, walEntries: memCount(entries), close };
  } catch (e) {
    close();
    throw e;
  }
}

/**
 * The range deletions of every table of `levels`. Each table is opened for them (they hold for every
 * run): each one's end in one read, read ahead by the helper where there are many (an L0 pile-up's
 * thousands, one after another).
 */
function readRangeDeletions(levels: readonly { files: readonly SstFileModel[] }[]): RangeTombstone[] {
  const rangeDels: RangeTombstone[] = [];
  const inTurn = new TablesInTurn(
    levels.flatMap((l) => l.files.map((f) => f.path)),
    rangeDelTail,
  );
  for (const level of levels) {
    for (const f of level.files) {
      if (!f.present) throw new LsmscopeError(`live table is missing`, { file: f.path });
      const opts = { verifyChecksums: true, expectedSize: expectedFileSize(f) };
      rangeDels.push(...inTurn.read(f.path, opts, (t) => t.rangeDeletions()));
    }
  }
  return rangeDels;
}

/**
 * Read-ahead of a table kept by LiveRangeReads: none, its blocks read one at a time. A narrow range
 * reads a block or two of each table: with 64 KiB windows the Besu pile-up's `sizes --sample 100`
 * (below) read and checked 64 KiB of every table at every seek, 10.5 against 10.1 s.
 */
const RANGE_READ_AHEAD = 0;
/** Idle tables' index and filter blocks (and a per-table allowance) LiveRangeReads keeps, at most. */
const RANGE_IDLE_BYTES = 64 * 1024 * 1024;

/**
 * What many range reads of one column family share: its live WALs' writes replayed once, every table's
 * range deletions read once, and the tables kept open from one range to the next (their indexes parsed
 * once, their buffers' pages touched once; bounded by bytes, descriptors by TableFile). The contract
 * sampler (sizes/contracts/sample.ts) reads hundreds of narrow ranges: over an L0 pile-up each range
 * opened every table twice (its range deletions, then its run), 33 s for `sizes --sample 100` of a
 * Besu store of 2,419 tables (three state column families piled up in L0).
 */
export class LiveRangeReads {
  readonly wal: MemLayer;
  readonly tables = new TableCache(
    { verifyChecksums: true, readAhead: RANGE_READ_AHEAD },
    Number.MAX_SAFE_INTEGER,
    {
      maxIdleBytes: RANGE_IDLE_BYTES,
    },
  );
  private rangeDels: RangeTombstone[] | undefined;

  constructor(
    inst: InstanceModel,
    private readonly cf: ColumnFamilyModel,
  ) {
    this.wal = loadLiveWal(inst, cf);
  }

  /** Every table's range deletions (read at the first call). */
  rangeDeletions(): RangeTombstone[] {
    return (this.rangeDels ??= readRangeDeletions(this.cf.levels));
  }

  close(): void {
    this.tables.close();
  }
}

/** Turns merged entries into live values: blob indexes resolved, one descriptor per blob file. */
export class LiveValues {
  /** Live values read from blob files so far. */
  blobValues = 0;
  private readonly reader = new BlobFileReader();
  /** Blob files RocksDB would not open (their header or footer): their values are unreadable. */
  private readonly gate: BlobFileGate;
  constructor(
    private readonly dir: string,
    private readonly cf: ColumnFamilyModel,
  ) {
    this.gate = new BlobFileGate(cf.id);
  }

  /** The live value of a merged entry, or undefined when the entry is shadowed, deleted or range-deleted. */
  value(r: Run, fate: Fate): Uint8Array | undefined {
    if (fate === Fate.Shadowed) return undefined;
    const value = r.data.subarray(r.vOff, r.vOff + r.vLen);
    return this.valueOf(r.type, fate === Fate.RangeDeleted, value, r.key, r.ukLen);
  }

  /**
   * The live value a key's newest entry stands for (its type and stored value), or undefined for a deletion
   * of any kind (`rangeDeleted`: a newer range tombstone covers it). Merge operands and wide-column
   * entities are refused, covered or not: the store holds values only the engine can resolve.
   */
  valueOf(
    type: number,
    rangeDeleted: boolean,
    value: Uint8Array,
    key: Uint8Array,
    /** The user key: key[0, userKeyLength) (a view of it made only for a blob record, whose key it checks). */
    userKeyLength = key.length,
  ): Uint8Array | undefined {
    if (type === ValueType.Merge || type === ValueType.WideColumnEntity)
      throw new LsmscopeError(
        `column family ${this.cf.displayName} holds ${type === ValueType.Merge ? "merge operands" : "wide-column entities"}; their values cannot be resolved without the engine`,
      );
    if (rangeDeleted) return undefined;
    if (type === ValueType.Value) return value;
    if (type === ValueType.BlobIndex) {
      this.blobValues++;
      return this.resolveBlob(Buffer.from(value), key.subarray(0, userKeyLength));
    }
    // value with preferred seqno: value ‖ fixed64 unix write time / seqno
    if (type === ValueType.ValuePreferredSeqno) return value.subarray(0, Math.max(0, value.length - 8));
    return undefined;
  }

  private resolveBlob(index: Buffer, userKey: Uint8Array): Buffer {
    const keyHex = () => toHex(userKey);
    const kind = index[0];
    if (kind === 0) throw new LsmscopeError(`inlined-TTL blob index for key ${keyHex()} is not supported`);
    if (kind !== 1 && kind !== 2)
      throw new LsmscopeError(`unknown blob index type ${kind} for key ${keyHex()}`);
    const idx = decodeBlobIndex(index, 0, index.length, { lenient: true });
    const path = join(this.dir, `${String(idx.fileNumber).padStart(6, "0")}.blob`);
    // a Get fails at the file's header or footer (BlobFileReader::Create) before it reads the record
    this.gate.check(path);
    // the whole record, checksums and key checked, as RocksDB's GetBlob reads it
    return this.reader.readValue(path, idx, userKey);
  }

  close(): void {
    this.reader.close();
  }
}

/** One live key and its value; both valid until the cursor's next call. */
export interface LiveEntry {
  key: Uint8Array;
  value: Uint8Array;
}

/** Pulls the live keys of a column family in key order (for walking two stores in step). */
export class LiveCursor {
  private readonly sources: LiveSources;
  private readonly values: LiveValues;
  private readonly cursor: NewestCursor;
  private readonly entry: LiveEntry = { key: Buffer.alloc(0), value: Buffer.alloc(0) };

  constructor(
    inst: InstanceModel,
    cf: ColumnFamilyModel,
    blocks?: BlockSink,
    range?: KeyRange,
    shared?: LiveRangeReads,
    walLayers?: WalLayers,
  ) {
    this.sources = openLiveSources(inst, cf, blocks, range, shared, walLayers);
    this.values = new LiveValues(inst.path, cf);
    this.cursor = new NewestCursor(this.sources.runs, this.sources.rangeDels);
  }

  /**
   * Go on from the first key at or past `target`, which must lie at or past every key next() gave since
   * the last seek but the last one (NewestCursor.seek).
   */
  seek(target: Buffer): void {
    this.cursor.seek(target);
  }

  next(): LiveEntry | undefined {
    for (;;) {
      const r = this.cursor.next();
      if (!r) return undefined;
      const v = this.values.value(r, this.cursor.fate);
      if (v === undefined) continue;
      this.entry.key = r.key.subarray(0, r.ukLen);
      this.entry.value = v;
      return this.entry;
    }
  }

  close(): void {
    this.sources.close();
    this.values.close();
  }
}

/**
 * The live value of one key (a copy), or undefined when the store holds none: its newest version as a
 * Get sees it (newest.ts: the live WALs' writes, then the tables), resolved as the merge resolves it.
 */
export function readLiveValue(
  inst: InstanceModel,
  cf: ColumnFamilyModel,
  key: Buffer,
  source: TableSource = uncachedTables({ verifyChecksums: true }),
  walLayers?: WalLayers,
): Buffer | undefined {
  requireBytewise(cf);
  // Pebble: a value separated into a blob file is read from it (the MANIFEST's blob references)
  const blobs = inst.engine === "pebble" && cf.pebbleBlobFiles?.length ? new PebbleBlobStore(cf) : undefined;
  try {
    return readLiveValueFrom(inst, cf, key, blobs ? withBlobValues(source, blobs) : source, walLayers);
  } finally {
    blobs?.close();
  }
}

function readLiveValueFrom(
  inst: InstanceModel,
  cf: ColumnFamilyModel,
  key: Buffer,
  tables: TableSource,
  walLayers: WalLayers | undefined,
): Buffer | undefined {
  const version = Version.of(cf.levels);
  const missing = version.filesFor(toHex(key)).find((f) => f.present === false);
  if (missing) throw new LsmscopeError(`live table is missing`, { file: missing.path });
  if (walLayers && !walLayers.holds(key)) throw new Error("readLiveValue: the WAL layers hold other keys");
  const wal = walLayers ? walLayers.of(inst, cf) : loadLiveWal(inst, cf);
  const newest = newestVersion(key, shadowsOf(wal), version, tables);
  if (!newest) return undefined;
  const values = new LiveValues(inst.path, cf);
  try {
    const v = values.valueOf(newest.type, newest.rangeDeleted, newest.value ?? Buffer.alloc(0), key);
    return v === undefined ? undefined : Buffer.from(v);
  } finally {
    values.close();
  }
}
