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
import { decodeInternalKey, type InternalKey } from "../base/internal_key.js";

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
  /** Pebble: values of this table kept in blob files (blob file id, value bytes referenced). */
  blobReferences?: { blobFileId: number; valueSize: number }[];
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
  // one copy straight out of the record: the log reader reuses its buffer after the callback
  const len = getVarint32(c);
  if (c.pos + len > c.end) throw new RangeError("internal key runs past end of record");
  const bytes = Uint8Array.prototype.slice.call(c.buf, c.pos, c.pos + len);
  c.pos += len;
  return decodeInternalKey(bytes);
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

function fieldVarint(field: Uint8Array): number {
  return getVarint64Number(cursor(field));
}

function decodeNewFile4Custom(c: Cursor, f: NewFileEntry, edit: VersionEdit): void {
  for (;;) {
    const tag = getVarint32(c);
    if (tag === NewFileCustom.Terminate) return;
    const field = getLengthPrefixed(c);
    switch (tag) {
      case NewFileCustom.PathId:
        if (field.length !== 1) throw new RangeError("path_id field wrong size");
        f.pathId = field[0]!;
        break;
      case NewFileCustom.NeedCompaction:
        f.markedForCompaction = field[0] === 1;
        break;
      case NewFileCustom.MinLogNumberToKeepHack:
        edit.minLogNumberToKeep = Number(getFixed64(cursor(field)));
        break;
      case NewFileCustom.OldestBlobFileNumber:
        f.oldestBlobFileNumber = fieldVarint(field);
        break;
      case NewFileCustom.OldestAncesterTime:
        f.oldestAncesterTime = fieldVarint(field);
        break;
      case NewFileCustom.FileCreationTime:
        f.fileCreationTime = fieldVarint(field);
        break;
      case NewFileCustom.FileChecksum:
        f.fileChecksum = toHex(field);
        break;
      case NewFileCustom.FileChecksumFuncName:
        f.fileChecksumFuncName = utf8(field);
        break;
      case NewFileCustom.Temperature:
        f.temperature = field[0];
        break;
      case NewFileCustom.MinTimestamp:
        f.minTimestamp = toHex(field);
        break;
      case NewFileCustom.MaxTimestamp:
        f.maxTimestamp = toHex(field);
        break;
      case NewFileCustom.UniqueId:
        f.uniqueId = toHex(field);
        break;
      case NewFileCustom.EpochNumber:
        f.epochNumber = fieldVarint(field);
        break;
      case NewFileCustom.CompensatedRangeDeletionSize:
        f.compensatedRangeDeletionSize = fieldVarint(field);
        break;
      case NewFileCustom.TailSize:
        f.tailSize = fieldVarint(field);
        break;
      case NewFileCustom.UserDefinedTimestampsPersisted:
        f.userDefinedTimestampsPersisted = field[0] === 1;
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

/** Decodes one tag's field into the edit; throws on an unknown required tag. */
export type TagDecoder = (tag: number, tagStart: number, c: Cursor, edit: VersionEdit) => void;

/**
 * One VersionEdit record as tag/field pairs, each field decoded by `decodeTag` (RocksDB's tags or
 * Pebble's). Throws EditDecodeError naming the offset inside the record.
 */
export function decodeEditRecord(rec: Uint8Array, decodeTag: TagDecoder): VersionEdit {
  const edit = emptyEdit();
  const c = cursor(rec);
  let tagStart = 0;
  let tag = 0;
  try {
    while (c.pos < c.end) {
      tagStart = c.pos;
      tag = getVarint32(c);
      decodeTag(tag, tagStart, c, edit);
    }
  } catch (e) {
    throw asEditError(e, tag, tagStart);
  }
  return edit;
}

/** Decode one RocksDB/LevelDB VersionEdit record. Throws EditDecodeError naming the offset inside the record. */
export function decodeVersionEdit(rec: Uint8Array): VersionEdit {
  return decodeEditRecord(rec, decodeRocksTag);
}

/** A malformed field as an EditDecodeError at the tag's offset. */
export function asEditError(e: unknown, tag: number, tagStart: number): EditDecodeError {
  if (e instanceof EditDecodeError) return e;
  return new EditDecodeError(
    `malformed VersionEdit field (tag ${tag}): ${e instanceof Error ? e.message : String(e)}`,
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

/** Decode the fields of one RocksDB/LevelDB tag into `edit`. */
function decodeRocksTag(tag: number, tagStart: number, c: Cursor, edit: VersionEdit): void {
  switch (tag) {
    case Tag.Comparator:
      edit.comparator = latin1(getLengthPrefixed(c));
      break;
    case Tag.LogNumber:
      edit.logNumber = getVarint64Number(c);
      break;
    case Tag.PrevLogNumber:
      edit.prevLogNumber = getVarint64Number(c);
      break;
    case Tag.NextFileNumber:
      edit.nextFileNumber = getVarint64Number(c);
      break;
    case Tag.LastSequence:
      edit.lastSequence = getSeq(c);
      break;
    case Tag.MaxColumnFamily:
      edit.maxColumnFamily = getVarint32(c);
      break;
    case Tag.MinLogNumberToKeep:
      edit.minLogNumberToKeep = getVarint64Number(c);
      break;
    case Tag.CompactCursor: {
      const level = getVarint32(c);
      edit.compactCursors.push({ level, key: getInternalKey(c) });
      break;
    }
    case Tag.DeletedFile: {
      const level = getVarint32(c);
      edit.deletedFiles.push({ level, fileNumber: getVarint64Number(c) });
      break;
    }
    case Tag.NewFile:
    case Tag.NewFile2:
    case Tag.NewFile3:
    case Tag.NewFile4: {
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
      break;
    }
    case Tag.ColumnFamily:
      edit.columnFamily = getVarint32(c);
      break;
    case Tag.ColumnFamilyAdd:
      edit.columnFamilyAdd = copyBytes(getLengthPrefixed(c));
      break;
    case Tag.ColumnFamilyDrop:
      edit.columnFamilyDrop = true;
      break;
    case Tag.InAtomicGroup:
      edit.atomicGroupRemaining = getVarint32(c);
      break;
    case Tag.BlobFileAddition:
    case Tag.BlobFileAdditionDeprecated: {
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
      break;
    }
    case Tag.BlobFileGarbage:
    case Tag.BlobFileGarbageDeprecated: {
      const blobFileNumber = getVarint64Number(c);
      const garbageBlobCount = getVarint64Number(c);
      const garbageBlobBytes = getVarint64Number(c);
      decodeCustomFieldsUntilEnd(c, "BlobFileGarbage");
      edit.blobFileGarbage.push({ blobFileNumber, garbageBlobCount, garbageBlobBytes });
      break;
    }
    case Tag.DbId:
      edit.dbId = utf8(getLengthPrefixed(c));
      break;
    case Tag.WalAddition:
      edit.walAdditions.push(decodeWalAddition(c));
      break;
    case Tag.WalAddition2:
      edit.walAdditions.push(decodeWalAddition(cursor(getLengthPrefixed(c))));
      break;
    case Tag.WalDeletion:
      edit.walDeletions.push(getVarint64Number(c));
      break;
    case Tag.WalDeletion2:
      edit.walDeletions.push(getVarint64Number(cursor(getLengthPrefixed(c))));
      break;
    case Tag.FullHistoryTsLow:
      edit.fullHistoryTsLow = toHex(getLengthPrefixed(c));
      break;
    case Tag.PersistUserDefinedTimestamps: {
      const v = getLengthPrefixed(c);
      edit.persistUserDefinedTimestamps = v[0] === 1;
      break;
    }
    case Tag.LastCompactedManifestFileSize:
      edit.lastCompactedManifestFileSize = getVarint64Number(cursor(getLengthPrefixed(c)));
      break;
    default:
      if (tag & Tag.SafeIgnoreMask) {
        // forward-compatible tag (incl. SubcompactionProgress): length-prefixed, skip it
        getLengthPrefixed(c);
        edit.ignoredTags.push(tag);
      } else {
        throw new EditDecodeError(`unknown VersionEdit tag ${tag}`, tagStart);
      }
  }
}
