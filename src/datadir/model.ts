/**
 * The typed picture of a datadir that inspectDatadir() returns. Plain data only (JSON-serialisable:
 * numbers, strings, booleans, arrays, objects), so `--json` prints it as is and the report/TUI/check
 * layers consume it without touching files again. Byte strings (keys, raw CF names) are hex.
 */
import type { OptionsFileModel } from "./options_file.js";

export type Severity = "error" | "warn" | "info";

/** A problem met while reading: the model still comes out, with what could be read. */
import type { Placement } from "./placement.js";
import type { TableReadHook } from "./table_details.js";

export interface Finding {
  severity: Severity;
  /** Stable machine id, e.g. "manifest-corrupt", "sst-missing", "wal-torn-tail". */
  code: string;
  /** Path of the file concerned (absolute), or the directory. */
  file: string;
  /** Byte offset inside `file`, when known. */
  offset?: number;
  message: string;
}

export type EngineKind = "rocksdb" | "leveldb" | "pebble" | "unknown";
export type ClientKind = "besu" | "nethermind" | "geth" | "generic";

export interface InternalKeyInfo {
  /** User key, hex. */
  userKey: string;
  /** Sequence number (the 2^56−1 range-deletion sentinel is shown approximately). */
  seqno: number;
  /** Value type byte (db/dbformat.h) and its name. */
  type: number;
  typeName: string;
}

/** What the SST reader told us about one table (only with tableDetails: "cheap"). */
export interface TableDetails {
  formatVersion?: number;
  checksum?: string;
  compression?: string;
  /** estimatedFpRate: the false-positive rate the filter's own geometry gives (RocksDB's estimators). */
  filter?: { kind: string; partitioned?: boolean; bitsPerKey?: number; estimatedFpRate?: number };
  indexType?: string;
  numEntries?: number;
  numDataBlocks?: number;
  dataSize?: number;
  indexSize?: number;
  filterSize?: number;
  rawKeySize?: number;
  rawValueSize?: number;
  filterPolicy?: string;
  columnFamilyName?: string;
  /** Every property as the reader gave it (RocksDB names → value). */
  properties?: Record<string, string | number>;
  /** The reader failed on this file: why. */
  error?: string;
}

/**
 * The size a table's file has by its MANIFEST entry, for a reader to confirm with its tail read
 * instead of an fstat; undefined for a virtual table, whose MANIFEST size is its part of the backing
 * file, not the file's.
 */
export function expectedFileSize(f: { fileSize?: number; virtualBacking?: number }): number | undefined {
  return f.virtualBacking === undefined ? f.fileSize : undefined;
}

export interface SstFileModel {
  fileNumber: number;
  /** "000123.sst" (or ".ldb" for LevelDB), as found on disk; the expected name if missing. */
  fileName: string;
  path: string;
  /** Index into db_paths / cf_paths (0 = the store's own directory). */
  pathId: number;
  /** Size recorded in the MANIFEST. */
  fileSize: number;
  /** Size on disk, when the file exists. */
  diskSize?: number;
  present: boolean;
  level: number;
  /** Smallest/largest user key, hex. */
  smallestKey: string;
  largestKey: string;
  smallest: InternalKeyInfo;
  largest: InternalKeyInfo;
  /** Absent for LevelDB, whose MANIFEST records no sequence numbers per file. */
  smallestSeqno?: number;
  largestSeqno?: number;
  epochNumber?: number;
  oldestBlobFileNumber?: number;
  oldestAncesterTime?: number;
  fileCreationTime?: number;
  fileChecksum?: string;
  fileChecksumFuncName?: string;
  markedForCompaction?: boolean;
  temperature?: number;
  tailSize?: number;
  compensatedRangeDeletionSize?: number;
  uniqueId?: string;
  /** Pebble: the table lives on remote storage (its remote object catalog): the locator, the object's name. */
  remote?: { locator: string; name?: string };
  /** Pebble: a virtual table; it reads part of this backing table's file (`fileName` names that file). */
  virtualBacking?: number;
  /** Pebble: range keys lie between these user keys (hex), when the table holds any. */
  rangeKeyBounds?: { smallestKey: string; largestKey: string };
  /**
   * Pebble: values this table keeps in blob files (value separation), one entry per blob reference (a
   * value handle names the reference by its position here): the blob file id and the value bytes
   * (uncompressed, as a Get returns them) of the values it references there; for a virtual table,
   * backingValueBytes: those its backing table references.
   */
  blobReferences?: { blobFileId: number; valueBytes: number; backingValueBytes?: number }[];
  details?: TableDetails;
}

export interface LevelModel {
  level: number;
  files: SstFileModel[];
  /** Sum of the MANIFEST file sizes. */
  bytes: number;
}

export interface BlobFileHeaderInfo {
  version: number;
  columnFamilyId: number;
  compression: number;
  compressionName: string;
  hasTtl: boolean;
  expirationRange: [number, number];
}

export interface BlobFileFooterInfo {
  blobCount: number;
  expirationRange: [number, number];
  crcOk: boolean;
}

export interface BlobFileModel {
  fileNumber: number;
  fileName: string;
  path: string;
  present: boolean;
  diskSize?: number;
  /** From the MANIFEST (BlobFileAddition). */
  totalBlobCount: number;
  /** Blob record bytes (the MANIFEST's total_blob_bytes; the CF totals' blobRecordBytes sum them). */
  recordBytes: number;
  checksumMethod: string;
  checksumValue: string;
  /** From the MANIFEST (BlobFileGarbage, summed). */
  garbageBlobCount: number;
  /** Record bytes of garbage blobs (the CF totals' blobGarbageRecordBytes sum them). */
  garbageRecordBytes: number;
  /** SSTs whose oldest blob file is this one. */
  linkedSsts: number[];
  header?: BlobFileHeaderInfo;
  /** Absent when the file has no footer (still being written, or torn). */
  footer?: BlobFileFooterInfo;
}

/**
 * A Pebble blob file (value separation, pebble_blob_files.ts): what the MANIFEST records (new-blob-file)
 * and what its footer and index say.
 */
export interface PebbleBlobFileModel {
  /** The id tables' blob references name; the physical file may be replaced under it. */
  blobFileId: number;
  fileNumber: number;
  fileName: string;
  path: string;
  present: boolean;
  diskSize?: number;
  /** From the MANIFEST: the file's size and the value bytes (uncompressed) it holds. */
  fileSize: number;
  valueBytes: number;
  /** From the MANIFEST: creation time, Unix seconds. */
  creationTime: number;
  /** Live tables that reference it, and the value bytes their references count. */
  referencingTables: number[];
  referencedValueBytes: number;
  /** From the file (absent when it could not be read): format ("blobV1"/"blobV2"), checksum, value blocks. */
  format?: string;
  checksum?: string;
  valueBlocks?: number;
}

/** Writes by operation, as counted in WAL WriteBatches. */
export interface WalOpCounts {
  put: number;
  delete: number;
  singleDelete: number;
  deleteRange: number;
  merge: number;
  blobIndex: number;
  putEntity: number;
  timedPut: number;
  /** LogData, Noop and 2PC markers: carried, not applied. */
  other: number;
}

export interface WalCfStats {
  columnFamilyId: number;
  /** Name when the CF is known from the MANIFEST. */
  name?: string;
  ops: WalOpCounts;
  /** Writes (ops that take a sequence number) for this CF in this WAL. */
  writes: number;
  keyBytes: number;
  valueBytes: number;
  /** This WAL is at or after the CF's log number: its writes are not in any SST yet. */
  unflushed: boolean;
}

export interface WalFileModel {
  file: string;
  path: string;
  logNumber: number;
  size: number;
  /** Logical log records (= WriteBatches). */
  records: number;
  /** Sum of the WriteBatch sizes (the records' payloads; `size` is the file's bytes). */
  batchBytes: number;
  /** Sequence range of the writes; absent for an empty WAL. */
  firstSeq?: number;
  lastSeq?: number;
  ops: WalOpCounts;
  perColumnFamily: WalCfStats[];
  /** Writes that are in this WAL and in no SST yet. */
  unflushedWrites: number;
  /** Needed for recovery: its number is at or after some live CF's log number. */
  live: boolean;
  /** True when the MANIFEST does not decode: `live` and `unflushedWrites` are then not known (false / 0). */
  livenessUnknown?: boolean;
  /** "inert: N bytes, nothing unflushed", "holds K unflushed writes for CFs …" or "holds K writes; … unknown". */
  summary: string;
  recyclable: boolean;
  /** Torn tail / stale recycled bytes / zero-filled tail at the end (normal). */
  tail?: { kind: string; offset: number; bytes: number; message: string };
  /** WAL compression type when the WAL is compressed (ZSTD's records are decoded, another type's not). */
  compressionType?: number;
}

export interface ColumnFamilyModel {
  id: number;
  /** The name as text when printable ASCII, else hex of the raw bytes. */
  name: string;
  /** The raw name bytes, hex. */
  nameHex: string;
  /** Client-aware name, e.g. "cf06 ACCOUNT_INFO_STATE", "flat/Account", "default". */
  displayName: string;
  comparator?: string;
  /** WALs with a smaller number hold nothing for this CF. */
  logNumber: number;
  /** Typed options from the newest OPTIONS file (absent when that file lacks this CF). */
  options?: import("./options_file.js").CfOptionsModel;
  levels: LevelModel[];
  blobFiles: BlobFileModel[];
  /** Pebble stores: the blob files of value separation (their size counts in totals.blobFileBytes). */
  pebbleBlobFiles?: PebbleBlobFileModel[];
  fullHistoryTsLow?: string;
  /** Bottom level and what sits above it (src/datadir/placement.ts); absent when the CF holds no table. */
  placement?: Placement;
  totals: {
    files: number;
    bytes: number;
    /**
     * Entries in the tables: the sum of "rocksdb.num.entries" when every table carries it; for tables
     * without properties (LevelDB) counted by `inspect --deep`; else null (unknown, never 0).
     */
    entries: number | null;
    blobFiles: number;
    /** Blob files' sizes on disk. */
    blobFileBytes: number;
    /**
     * Blob record bytes the MANIFEST counts (total_blob_bytes: per record its 32-byte header, key and
     * stored value; a file adds its 30-byte header and 32-byte footer), and the garbage among them.
     */
    blobRecordBytes: number;
    blobGarbageRecordBytes: number;
    /** Writes for this CF in live WALs, not yet flushed. */
    unflushedWrites: number;
  };
}

export interface ManifestSummary {
  file: string;
  path: string;
  size: number;
  records: number;
  edits: number;
  comparator?: string;
  dbId?: string;
  logNumber: number;
  prevLogNumber: number;
  nextFileNumber: number;
  lastSequence: number;
  maxColumnFamily: number;
  minLogNumberToKeep: number;
  /** WALs tracked in the MANIFEST (track_and_verify_wals_in_manifest). */
  trackedWals: { logNumber: number; syncedSize?: number }[];
  droppedColumnFamilies: number;
  /** The MANIFEST ended in a torn record (normal) at this offset. */
  tornTailAt?: number;
}

export interface InstanceModel {
  /** Absolute path of the store directory. */
  path: string;
  /** Path relative to the scanned root ("." for the root itself). */
  relPath: string;
  engine: EngineKind;
  client: ClientKind;
  /** Client-specific naming: Nethermind database name and network, Besu metadata, geth role. */
  clientDetail?: {
    database?: string;
    network?: string;
    besuFormat?: string;
    besuVersion?: number;
    role?: string;
  };
  /** False for stores whose MANIFEST could not be read at all. */
  readable: boolean;
  /** What CURRENT (or, in a Pebble store, the manifest marker) names. */
  current?: string;
  /** Pebble stores: what Pebble's own files say (pebble_store.ts). */
  pebble?: PebbleStoreModel;
  manifest?: ManifestSummary;
  options?: OptionsFileModel;
  columnFamilies: ColumnFamilyModel[];
  wal: WalFileModel[];
  /** Files on disk that no live version references (obsolete, or left by a crash). */
  unreferencedTables: string[];
  unreferencedBlobFiles: string[];
  /** Table and blob file bytes on disk (blobFileBytes), WAL file bytes. */
  totals: { sstFiles: number; sstBytes: number; blobFiles: number; blobFileBytes: number; walBytes: number };
  findings: Finding[];
}

export interface PebbleStoreModel {
  /** From the format-version marker; undefined when the store has none. */
  formatMajorVersion?: number;
  /** Pebble's name of it, e.g. "FormatFlushableIngest". */
  formatMajorVersionName?: string;
  /** The marker file naming the current MANIFEST, when present (Pebble reads it rather than CURRENT). */
  manifestMarker?: string;
  /** The newest OPTIONS file, in Pebble's format. */
  options?: {
    file: string;
    path: string;
    pebbleVersion?: string;
    options: Record<string, string>;
    levels: Record<number, Record<string, string>>;
  };
}

export interface ClientInfo {
  kind: ClientKind | "pebble" | "unknown";
  /** Why we think so: files seen. */
  evidence: string[];
  besu?: { metadataFile: string; format?: string; version?: number; raw?: unknown };
  nethermind?: { network?: string; databases: string[] };
}

/** Which chain a datadir holds (read by src/identity/, when the caller asks for it). */
export interface DatadirIdentity {
  client: string;
  /** The head block the store points at; absent when it could not be read (see `note`). */
  chainHead?: { number: number; hash: string };
  /** State root in the head block's header, 0x-hex. */
  stateRoot?: string;
  /** "RocksDB 7.8.3" from the newest OPTIONS file(s); absent for LevelDB, which records no version. */
  writtenBy?: string;
  /** Why a figure is absent. */
  note?: string;
  /** The head's keys could not be read (a damaged block, an unreadable file): where, and why. */
  damage?: { file?: string; offset?: number; message: string };
}

export interface DatadirModel {
  /** Absolute path scanned. */
  root: string;
  client: ClientInfo;
  instances: InstanceModel[];
  /** Every finding, datadir-level and per instance. */
  findings: Finding[];
  /** True when nothing kept the picture from being whole (no error findings). */
  complete: boolean;
  /** Chain head, state root, client and writer (src/identity/), when the caller read them. */
  identity?: DatadirIdentity;
  /** geth freezers below the root (src/freezer/), when the caller read them. */
  freezers?: import("../freezer/index.js").FreezerModel[];
  /** Time spent building the model, milliseconds. */
  elapsedMs: number;
}

export interface InspectOptions {
  /** Per-SST details through the SST reader: "none" (MANIFEST only, default) or "cheap" (footer + properties). */
  tableDetails?: "none" | "cheap";
  /** With tableDetails "cheap": called with each table read, before it closes (TableReadHook). */
  onTableRead?: TableReadHook;
  /**
   * "caller": the caller opens every present table after the model is built (inspect --deep), so
   * their sizes on disk are left to those opens instead of a stat each; it then calls
   * settleCallerTableSizes (column_families.ts). Default "stat".
   */
  tableSizes?: "stat" | "caller";
  /** Read WAL files (default true). */
  readWal?: boolean;
  /** How deep to look for stores below `dir` (default 4). */
  maxDepth?: number;
  /** Progress callback for large stores. */
  onProgress?: (done: number, total: number, what: string) => void;
  /**
   * Called once every store's outline (recognition, OPTIONS, MANIFEST version, WALs; no table details
   * yet) is read, before the tables are: `snapshot()` returns the model as read so far (its instances
   * filled in place as the tables are read). With it the table loops yield to the event loop every
   * TABLES_PER_YIELD tables (util/event_loop.ts), so a caller that shows the model while it is read (the TUI) can draw and
   * take keys; the tables are read once the promise it may return settles (the first screen drawn).
   * The model returned at the end is the same with or without it.
   */
  onOutline?: (snapshot: () => DatadirModel) => void | Promise<void>;
  /** Stops the table loops at their next yield (with onOutline), throwing the signal's reason. */
  signal?: AbortSignal;
}
