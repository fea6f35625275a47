/**
 * VersionEdit decoder: one MANIFEST log record = one VersionEdit (RocksDB db/version_edit.h/.cc,
 * LevelDB db/version_edit.cc). See manifest_format.md beside this file.
 *
 * An edit is a sequence of (varint32 tag, fields) until the record ends:
 *
 *   1  Comparator           lenprefixed name
 *   2  LogNumber            varint64
 *   3  NextFileNumber       varint64
 *   4  LastSequence         varint64
 *   5  CompactCursor        varint32 level, lenprefixed internal key   (LevelDB: compact pointer)
 *   6  DeletedFile          varint32 level, varint64 file number
 *   7  NewFile (LevelDB)    varint32 level, varint64 number, varint64 size, ikey smallest, ikey largest
 *   9  PrevLogNumber        varint64
 *   10 MinLogNumberToKeep   varint64
 *   100 NewFile2            level, number, size, smallest, largest, varint64 smallest_seqno, largest_seqno
 *   102 NewFile3            level, number, varint32 path_id, size, smallest, largest, seqnos
 *   103 NewFile4            level, number, size, smallest, largest, smallest_seqno, largest_seqno,
 *                           then custom fields (varint32 tag, lenprefixed value) until tag 1:
 *                             2 need_compaction (1 byte)        3 min_log_number_to_keep (fixed64)
 *                             4 oldest_blob_file_number (v64)   5 oldest_ancester_time (v64)
 *                             6 file_creation_time (v64)        7 file_checksum   8 checksum func name
 *                             9 temperature (1 byte)            10/11 min/max timestamp
 *                             12 unique id (16/24 bytes)        13 epoch_number (v64)
 *                             14 compensated_range_deletion_size 15 tail_size (v64)
 *                             16 user_defined_timestamps_persisted (1 byte) 17 file open metadata
 *                             65 path_id (1 byte; tags with bit 6 set must be understood)
 *   200 ColumnFamily        varint32 id (the CF this edit applies to; 0 when absent)
 *   201 ColumnFamilyAdd     lenprefixed name
 *   202 ColumnFamilyDrop    (no fields)
 *   203 MaxColumnFamily     varint32
 *   300 InAtomicGroup       varint32 remaining edits in the group after this one
 *   400 BlobFileAddition    v64 number, v64 total count, v64 total bytes, lenprefixed checksum method,
 *                           lenprefixed checksum value, custom fields (tag, lenprefixed) until tag 0
 *   401 BlobFileGarbage     v64 number, v64 garbage count, v64 garbage bytes, custom fields until 0
 *   tags with bit 13 (8192) set are forward-compatible and carry a varint32 length:
 *   8193 DbId (lenprefixed)  8194/8195 deprecated blob addition/garbage (same body as 400/401)
 *   8196 WalAddition         v64 log number, (v32 tag 2 + v64 synced size)*, v32 tag 1
 *   8197 WalDeletion         v64 log number (WALs below it are gone)
 *   8198 FullHistoryTsLow    lenprefixed
 *   8199 WalAddition2 / 8200 WalDeletion2   lenprefixed body of 8196 / 8197
 *   8201 PersistUserDefinedTimestamps (lenprefixed 1 byte)  8202 SubcompactionProgress
 *   8203 LastCompactedManifestFileSize (lenprefixed varint64)
 *
 * Internal keys: user key ‖ fixed64 LE (sequence << 8 | value type).
 */
import {
  cursor,
  getFixed64,
  getLengthPrefixed,
  getVarint32,
  getVarint64,
  getVarint64Number,
  type Cursor,
} from "../util/coding.js";
import { toHex } from "../util/bytes.js";
import type { InternalKey } from "../base/internal_key.js";
import { EDIT_KEYS } from "./key_arena.js";
import { sharedString } from "../util/shared_text.js";

export interface NewFileEntry {
  level: number;
  fileNumber: number;
  pathId: number;
  fileSize: number;
  smallest: InternalKey;
  largest: InternalKey;
  /** Absent for LevelDB's NewFile (tag 7), which records no sequence numbers per file. */
  smallestSeqno?: number;
  largestSeqno?: number;
  /** Which tag added it: 7 (LevelDB), 100, 102, 103. */
  tag: number;
  markedForCompaction?: boolean;
  oldestBlobFileNumber?: number;
  oldestAncesterTime?: number;
  fileCreationTime?: number;
  fileChecksum?: string;
  fileChecksumFuncName?: string;
  temperature?: number;
  epochNumber?: number;
  uniqueId?: string;
  compensatedRangeDeletionSize?: number;
  tailSize?: number;
  userDefinedTimestampsPersisted?: boolean;
  minTimestamp?: string;
  maxTimestamp?: string;
  unknownCustomTags?: number[];
  /** Pebble: a virtual table over part of this backing table's file number. */
  virtualBacking?: number;
  /** Pebble (NewFile5): the table holds range keys between these bounds. */
  rangeKeyBounds?: { smallest: InternalKey; largest: InternalKey };
  /** Pebble (NewFile5): false when the table holds range keys only. */
  hasPointKeys?: boolean;
  /**
   * Pebble: values of this table kept in blob files (blob file id, value bytes referenced; for a
   * virtual table, also the value bytes its backing table references, custom field 70).
   */
  blobReferences?: { blobFileId: number; valueSize: number; backingValueSize?: number }[];
}

export interface BlobFileAdditionEntry {
  blobFileNumber: number;
  totalBlobCount: number;
  totalBlobBytes: number;
  checksumMethod: string;
  checksumValue: string;
}

export interface BlobFileGarbageEntry {
  blobFileNumber: number;
  garbageBlobCount: number;
  garbageBlobBytes: number;
}

export interface VersionEdit {
  dbId?: string;
  comparator?: string;
  logNumber?: number;
  prevLogNumber?: number;
  nextFileNumber?: number;
  lastSequence?: number;
  maxColumnFamily?: number;
  minLogNumberToKeep?: number;
  columnFamily: number;
  columnFamilyAdd?: Uint8Array;
  columnFamilyDrop: boolean;
  /** Remaining edits in the atomic group after this one, if this edit is part of one. */
  atomicGroupRemaining?: number;
  deletedFiles: { level: number; fileNumber: number }[];
  newFiles: NewFileEntry[];
  compactCursors: { level: number; key: InternalKey }[];
  blobFileAdditions: BlobFileAdditionEntry[];
  blobFileGarbage: BlobFileGarbageEntry[];
  walAdditions: { logNumber: number; syncedSize?: number }[];
  walDeletions: number[];
  fullHistoryTsLow?: string;
  persistUserDefinedTimestamps?: boolean;
  lastCompactedManifestFileSize?: number;
  /** Forward-compatible tags we skipped. */
  ignoredTags: number[];
  /** Pebble: physical files that virtual tables read (file number, size) and backings dropped. */
  createdBackingTables?: { fileNumber: number; size: number }[];
  removedBackingTables?: number[];
  /** Pebble: blob files (value separation) added and deleted, by blob file id. */
  newBlobFiles?: PebbleBlobFile[];
  deletedBlobFiles?: { blobFileId: number; fileNumber: number }[];
  /** Pebble: live tables this edit marks for compaction (tag 11). */
  tablesMarkedForCompaction?: { level: number; fileNumber: number }[];
  /** Pebble: the key ranges an excise removed (tag 10; the files it changed are this edit's own). */
  excises?: { start: Uint8Array; end: Uint8Array; endInclusive: boolean; seqno: number }[];
}

/** A Pebble blob file as its MANIFEST entry records it. */
export interface PebbleBlobFile {
  blobFileId: number;
  fileNumber: number;
  size: number;
  valueSize: number;
  creationTime: number;
}

export const Tag = {
  Comparator: 1,
  LogNumber: 2,
  NextFileNumber: 3,
  LastSequence: 4,
  CompactCursor: 5,
  DeletedFile: 6,
  NewFile: 7,
  PrevLogNumber: 9,
  MinLogNumberToKeep: 10,
  NewFile2: 100,
  NewFile3: 102,
  NewFile4: 103,
  ColumnFamily: 200,
  ColumnFamilyAdd: 201,
  ColumnFamilyDrop: 202,
  MaxColumnFamily: 203,
  InAtomicGroup: 300,
  BlobFileAddition: 400,
  BlobFileGarbage: 401,
  SafeIgnoreMask: 1 << 13,
  DbId: (1 << 13) + 1,
  BlobFileAdditionDeprecated: (1 << 13) + 2,
  BlobFileGarbageDeprecated: (1 << 13) + 3,
  WalAddition: (1 << 13) + 4,
  WalDeletion: (1 << 13) + 5,
  FullHistoryTsLow: (1 << 13) + 6,
  WalAddition2: (1 << 13) + 7,
  WalDeletion2: (1 << 13) + 8,
  PersistUserDefinedTimestamps: (1 << 13) + 9,
  SubcompactionProgress: (1 << 13) + 10,
  LastCompactedManifestFileSize: (1 << 13) + 11,
} as const;

const NewFileCustom = {
  Terminate: 1,
  NeedCompaction: 2,
  MinLogNumberToKeepHack: 3,
  OldestBlobFileNumber: 4,
  OldestAncesterTime: 5,
  FileCreationTime: 6,
  FileChecksum: 7,
  FileChecksumFuncName: 8,
  Temperature: 9,
  MinTimestamp: 10,
  MaxTimestamp: 11,
  UniqueId: 12,
  EpochNumber: 13,
  CompensatedRangeDeletionSize: 14,
  TailSize: 15,
  UserDefinedTimestampsPersisted: 16,
  FileOpenMetadata: 17,
  NonSafeIgnoreMask: 1 << 6,
  PathId: (1 << 6) + 1,
} as const;

/** Thrown for a malformed edit; `at` is the offset inside the record. */
export class EditDecodeError extends Error {
  constructor(
    message: string,
    readonly at: number,
  ) {
    super(message);
  }
}

const latin1 = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString("latin1");
const utf8 = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString("utf8");

export function seqToNumber(v: bigint): number {
  return Number(v);
}

/** A real copy (Buffer#slice would return a view). */
function copyBytes(b: Uint8Array): Uint8Array {
  return Uint8Array.prototype.slice.call(b);
}

export function getInternalKey(c: Cursor): InternalKey {
  // one copy straight out of the record (the log reader reuses its buffer after the callback), into
  // the edit decoders' shared chunks rather than a buffer per key (key_arena.ts)
  const len = getVarint32(c);
  if (c.pos + len > c.end) throw new RangeError("internal key runs past end of record");
  const key = EDIT_KEYS.copyInternalKey(c.buf, c.pos, c.pos + len);
  c.pos += len;
  return key;
}

export function getSeq(c: Cursor): number {
  const start = c.pos;
  try {
    return getVarint64Number(c);
  } catch {
    // above 2^53 (the 2^56−1 sentinel): approximate, never throws for a well-formed varint
    c.pos = start;
    return seqToNumber(getVarint64(c));
  }
}

function decodeNewFile4Custom(c: Cursor, f: NewFileEntry, edit: VersionEdit): void {
  // each field's value read in place through one cursor re-pointed per field: a MANIFEST carries five
  // or six custom fields per table, and a view and a cursor per field were ~40% of decoding a NewFile4
  // in a cold replay (4,354 edits of an L0 pile-up)
  const v = cursor(c.buf, 0, 0);
  for (;;) {
    const tag = getVarint32(c);
    if (tag === NewFileCustom.Terminate) return;
    const len = getVarint32(c);
    if (c.pos + len > c.end) throw new RangeError("length-prefixed slice runs past end of buffer");
    const start = (v.pos = c.pos);
    const end = (v.end = c.pos += len);
    switch (tag) {
      case NewFileCustom.PathId:
        if (len !== 1) throw new RangeError("path_id field wrong size");
        f.pathId = c.buf[start]!;
        break;
      case NewFileCustom.NeedCompaction:
        f.markedForCompaction = len > 0 && c.buf[start] === 1;
        break;
      case NewFileCustom.MinLogNumberToKeepHack:
        edit.minLogNumberToKeep = Number(getFixed64(v));
        break;
      case NewFileCustom.OldestBlobFileNumber:
        f.oldestBlobFileNumber = getVarint64Number(v);
        break;
      case NewFileCustom.OldestAncesterTime:
        f.oldestAncesterTime = getVarint64Number(v);
        break;
      case NewFileCustom.FileCreationTime:
        f.fileCreationTime = getVarint64Number(v);
        break;
      case NewFileCustom.FileChecksum:
        f.fileChecksum = toHex(c.buf, start, end);
        break;
      case NewFileCustom.FileChecksumFuncName:
        // one string for every table's "Unknown", not one each
        f.fileChecksumFuncName = sharedString(utf8(c.buf.subarray(start, end)));
        break;
      case NewFileCustom.Temperature:
        f.temperature = len > 0 ? c.buf[start] : undefined;
        break;
      case NewFileCustom.MinTimestamp:
        f.minTimestamp = toHex(c.buf, start, end);
        break;
      case NewFileCustom.MaxTimestamp:
        f.maxTimestamp = toHex(c.buf, start, end);
        break;
      case NewFileCustom.UniqueId:
        f.uniqueId = toHex(c.buf, start, end);
        break;
      case NewFileCustom.EpochNumber:
        f.epochNumber = getVarint64Number(v);
        break;
      case NewFileCustom.CompensatedRangeDeletionSize:
        f.compensatedRangeDeletionSize = getVarint64Number(v);
        break;
      case NewFileCustom.TailSize:
        f.tailSize = getVarint64Number(v);
        break;
      case NewFileCustom.UserDefinedTimestampsPersisted:
        f.userDefinedTimestampsPersisted = len > 0 && c.buf[start] === 1;
        break;
      case NewFileCustom.FileOpenMetadata:
        break;
      default:
        if (tag & NewFileCustom.NonSafeIgnoreMask)
          throw new RangeError(`new-file4 custom field ${tag} must be understood and is not`);
        (f.unknownCustomTags ??= []).push(tag);
    }
  }
}

function decodeCustomFieldsUntilEnd(c: Cursor, what: string): void {
  for (;;) {
    const tag = getVarint32(c);
    if (tag === 0) return; // kEndMarker
    if (tag & (1 << 6)) throw new RangeError(`${what}: forward incompatible custom field ${tag}`);
    getLengthPrefixed(c);
  }
}

function decodeWalAddition(c: Cursor): { logNumber: number; syncedSize?: number } {
  const logNumber = getVarint64Number(c);
  const out: { logNumber: number; syncedSize?: number } = { logNumber };
  for (;;) {
    const tag = getVarint32(c);
    if (tag === 1) return out;
    if (tag === 2) out.syncedSize = getVarint64Number(c);
    else throw new RangeError(`WalAddition: unknown tag ${tag}`);
  }
}

/**
 * One tag of a VersionEdit: the field it carries, named as a corruption error names it (LevelDB's
 * VersionEdit::DecodeFrom: "VersionEdit: new-file entry"), and how it is read into the edit.
 */
export interface EditField {
  name: string;
  decode(c: Cursor, edit: VersionEdit, tag: number): void;
}

/** A format's fields by tag, and what an unknown tag is (skipped when it may be, else an EditDecodeError). */
export interface EditFormat {
  fields: ReadonlyMap<number, EditField>;
  unknownTag(tag: number, tagStart: number, c: Cursor, edit: VersionEdit): void;
}

export const editField = (name: string, decode: EditField["decode"]): EditField => ({ name, decode });

/**
 * One VersionEdit record as tag/field pairs, each field read by its format's decoder (RocksDB's tags or
 * Pebble's). Throws EditDecodeError naming the field and the offset of its tag inside the record; a
 * TypeError is a bug in a decoder and stays one.
 */
export function decodeEditRecord(rec: Uint8Array, format: EditFormat): VersionEdit {
  const edit = emptyEdit();
  const c = cursor(rec);
  while (c.pos < c.end) {
    const tagStart = c.pos;
    let tag: number;
    try {
      tag = getVarint32(c);
    } catch (e) {
      throw asEditError(e, "tag", tagStart);
    }
    const field = format.fields.get(tag);
    try {
      if (field) field.decode(c, edit, tag);
      else format.unknownTag(tag, tagStart, c, edit);
    } catch (e) {
      throw asEditError(e, `${field?.name ?? "field"} (tag ${tag})`, tagStart);
    }
  }
  return edit;
}

/** Decode one RocksDB/LevelDB VersionEdit record. Throws EditDecodeError naming the offset inside the record. */
export function decodeVersionEdit(rec: Uint8Array): VersionEdit {
  return decodeEditRecord(rec, ROCKSDB_EDIT);
}

/** A malformed field as an EditDecodeError at its tag's offset; a TypeError (a bug) passes through. */
function asEditError(e: unknown, what: string, tagStart: number): unknown {
  if (e instanceof EditDecodeError || e instanceof TypeError) return e;
  return new EditDecodeError(
    `malformed VersionEdit ${what}: ${e instanceof Error ? e.message : String(e)}`,
    tagStart,
  );
}

export function emptyEdit(): VersionEdit {
  return {
    columnFamily: 0,
    columnFamilyDrop: false,
    deletedFiles: [],
    newFiles: [],
    compactCursors: [],
    blobFileAdditions: [],
    blobFileGarbage: [],
    walAdditions: [],
    walDeletions: [],
    ignoredTags: [],
  };
}

// --------------------------------------------------------------------------- RocksDB's and LevelDB's tags

/** NewFile (LevelDB), NewFile2, NewFile3 (path id), NewFile4 (custom fields). */
function decodeNewFile(c: Cursor, edit: VersionEdit, tag: number): void {
  const level = getVarint32(c);
  const fileNumber = getVarint64Number(c);
  const pathId = tag === Tag.NewFile3 ? getVarint32(c) : 0;
  const fileSize = getVarint64Number(c);
  const smallest = getInternalKey(c);
  const largest = getInternalKey(c);
  let smallestSeqno: number | undefined;
  let largestSeqno: number | undefined;
  if (tag !== Tag.NewFile) {
    // LevelDB's NewFile records no sequence numbers per file
    smallestSeqno = getSeq(c);
    largestSeqno = getSeq(c);
  }
  const f: NewFileEntry = {
    level,
    fileNumber,
    pathId,
    fileSize,
    smallest,
    largest,
    smallestSeqno,
    largestSeqno,
    tag,
  };
  if (tag === Tag.NewFile4) decodeNewFile4Custom(c, f, edit);
  edit.newFiles.push(f);
}

function decodeBlobFileAddition(c: Cursor, edit: VersionEdit): void {
  const blobFileNumber = getVarint64Number(c);
  const totalBlobCount = getVarint64Number(c);
  const totalBlobBytes = getVarint64Number(c);
  const checksumMethod = utf8(getLengthPrefixed(c));
  const checksumValue = toHex(getLengthPrefixed(c));
  decodeCustomFieldsUntilEnd(c, "BlobFileAddition");
  edit.blobFileAdditions.push({
    blobFileNumber,
    totalBlobCount,
    totalBlobBytes,
    checksumMethod,
    checksumValue,
  });
}

function decodeBlobFileGarbage(c: Cursor, edit: VersionEdit): void {
  const blobFileNumber = getVarint64Number(c);
  const garbageBlobCount = getVarint64Number(c);
  const garbageBlobBytes = getVarint64Number(c);
  decodeCustomFieldsUntilEnd(c, "BlobFileGarbage");
  edit.blobFileGarbage.push({ blobFileNumber, garbageBlobCount, garbageBlobBytes });
}

const newFile = editField("new-file entry", decodeNewFile);
const blobFileAddition = editField("blob file addition", decodeBlobFileAddition);
const blobFileGarbage = editField("blob file garbage", decodeBlobFileGarbage);

/**
 * The fields LevelDB defined that RocksDB and Pebble read alike (tags 1-4 and 9; LevelDB's compaction
 * pointer and deleted file differ in Pebble, which checks the level).
 */
export const LEVELDB_FIELDS: readonly (readonly [number, EditField])[] = [
  [
    Tag.Comparator,
    editField("comparator name", (c, e) => {
      e.comparator = latin1(getLengthPrefixed(c));
    }),
  ],
  [
    Tag.LogNumber,
    editField("log number", (c, e) => {
      e.logNumber = getVarint64Number(c);
    }),
  ],
  [
    Tag.PrevLogNumber,
    editField("previous log number", (c, e) => {
      e.prevLogNumber = getVarint64Number(c);
    }),
  ],
  [
    Tag.NextFileNumber,
    editField("next file number", (c, e) => {
      e.nextFileNumber = getVarint64Number(c);
    }),
  ],
  [
    Tag.LastSequence,
    editField("last sequence number", (c, e) => {
      e.lastSequence = getSeq(c);
    }),
  ],
];

/** RocksDB's and LevelDB's fields by tag (db/version_edit.cc VersionEdit::DecodeFrom). */
const ROCKSDB_EDIT: EditFormat = {
  fields: new Map<number, EditField>([
    ...LEVELDB_FIELDS,
    [
      Tag.MaxColumnFamily,
      editField("max column family", (c, e) => {
        e.maxColumnFamily = getVarint32(c);
      }),
    ],
    [
      Tag.MinLogNumberToKeep,
      editField("min log number to keep", (c, e) => {
        e.minLogNumberToKeep = getVarint64Number(c);
      }),
    ],
    [
      Tag.CompactCursor,
      editField("compaction pointer", (c, e) => {
        const level = getVarint32(c);
        e.compactCursors.push({ level, key: getInternalKey(c) });
      }),
    ],
    [
      Tag.DeletedFile,
      editField("deleted file", (c, e) => {
        const level = getVarint32(c);
        e.deletedFiles.push({ level, fileNumber: getVarint64Number(c) });
      }),
    ],
    [Tag.NewFile, newFile],
    [Tag.NewFile2, newFile],
    [Tag.NewFile3, newFile],
    [Tag.NewFile4, newFile],
    [
      Tag.ColumnFamily,
      editField("column family", (c, e) => {
        e.columnFamily = getVarint32(c);
      }),
    ],
    [
      Tag.ColumnFamilyAdd,
      editField("column family add", (c, e) => {
        e.columnFamilyAdd = copyBytes(getLengthPrefixed(c));
      }),
    ],
    [
      Tag.ColumnFamilyDrop,
      editField("column family drop", (_c, e) => {
        e.columnFamilyDrop = true;
      }),
    ],
    [
      Tag.InAtomicGroup,
      editField("atomic group", (c, e) => {
        e.atomicGroupRemaining = getVarint32(c);
      }),
    ],
    [Tag.BlobFileAddition, blobFileAddition],
    [Tag.BlobFileAdditionDeprecated, blobFileAddition],
    [Tag.BlobFileGarbage, blobFileGarbage],
    [Tag.BlobFileGarbageDeprecated, blobFileGarbage],
    [
      Tag.DbId,
      editField("db id", (c, e) => {
        e.dbId = utf8(getLengthPrefixed(c));
      }),
    ],
    [
      Tag.WalAddition,
      editField("wal addition", (c, e) => {
        e.walAdditions.push(decodeWalAddition(c));
      }),
    ],
    [
      Tag.WalAddition2,
      editField("wal addition", (c, e) => {
        e.walAdditions.push(decodeWalAddition(cursor(getLengthPrefixed(c))));
      }),
    ],
    [
      Tag.WalDeletion,
      editField("wal deletion", (c, e) => {
        e.walDeletions.push(getVarint64Number(c));
      }),
    ],
    [
      Tag.WalDeletion2,
      editField("wal deletion", (c, e) => {
        e.walDeletions.push(getVarint64Number(cursor(getLengthPrefixed(c))));
      }),
    ],
    [
      Tag.FullHistoryTsLow,
      editField("full history ts low", (c, e) => {
        e.fullHistoryTsLow = toHex(getLengthPrefixed(c));
      }),
    ],
    [
      Tag.PersistUserDefinedTimestamps,
      editField("persist user-defined timestamps", (c, e) => {
        e.persistUserDefinedTimestamps = getLengthPrefixed(c)[0] === 1;
      }),
    ],
    [
      Tag.LastCompactedManifestFileSize,
      editField("last compacted manifest file size", (c, e) => {
        e.lastCompactedManifestFileSize = getVarint64Number(cursor(getLengthPrefixed(c)));
      }),
    ],
  ]),
  unknownTag(tag, tagStart, c, edit) {
    if (!(tag & Tag.SafeIgnoreMask)) throw new EditDecodeError(`unknown VersionEdit tag ${tag}`, tagStart);
    // forward-compatible tag (incl. SubcompactionProgress): length-prefixed, skip it
    getLengthPrefixed(c);
    edit.ignoredTags.push(tag);
  },
};
