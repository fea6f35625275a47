/**
 * Pebble's VersionEdit (internal/manifest/version_edit.go), decoded into the same VersionEdit shape as
 * RocksDB's (version_edit.ts). Pebble keeps LevelDB's tags 1-9 and RocksDB's NewFile2-4 (100, 102, 103),
 * has no column families (tags 200-203 are corruption to Pebble), and reuses or adds:
 *
 *   10  ExciseBoundsRecord   lenprefixed start, lenprefixed end, uvarint boundary kind (0 exclusive,
 *                            1 inclusive end), uvarint seqno (RocksDB's tag 10 is MinLogNumberToKeep)
 *   11  TableMarkedForCompaction  uvarint level, uvarint table number (a live table; the replay marks it)
 *   103 NewFile4 / 104 NewFile5  NewFile5 adds range keys: after the size, one marker byte
 *                            (bit 0: has point keys, bit 1: smallest bound is a point key, bit 2: largest
 *                            is), point bounds if bit 0, then the range-key bounds; then seqnos and
 *                            custom fields until tag 1:
 *                              2 needs-compaction (lenprefixed)  6 creation time (lenprefixed uvarint)
 *                              7 no range-key sets (empty)       65 path id (unsupported by Pebble)
 *                              66 virtual: uvarint backing file number (not length-prefixed)
 *                              67/68 synthetic prefix / suffix (lenprefixed)
 *                              69/70 blob references: uvarint depth, uvarint n, n x (uvarint blob file
 *                                    id, uvarint value size[, 70: uvarint backing value size])
 *                              other tags below 64 are lenprefixed and safe to skip
 *   105 CreatedBackingTable  uvarint file number, uvarint size
 *   106 RemovedBackingTable  uvarint file number
 *   107 NewBlobFile          uvarint blob file id, uvarint file number, size, value size, creation time
 *   108 DeletedBlobFile      uvarint blob file id, uvarint file number
 */
import { cursor, getLengthPrefixed, getVarint32, getVarint64Number, type Cursor } from "../util/coding.js";
import {
  decodeEditRecord,
  EditDecodeError,
  editField,
  LEVELDB_FIELDS,
  type EditField,
  type EditFormat,
  getInternalKey,
  getSeq,
  type NewFileEntry,
  type VersionEdit,
} from "./version_edit.js";
import type { InternalKey } from "../base/internal_key.js";

const PebbleTag = {
  Comparator: 1,
  LogNumber: 2,
  NextFileNumber: 3,
  LastSequence: 4,
  CompactPointer: 5,
  DeletedFile: 6,
  NewFile: 7,
  PrevLogNumber: 9,
  ExciseBoundsRecord: 10,
  TableMarkedForCompaction: 11,
  NewFile2: 100,
  NewFile3: 102,
  NewFile4: 103,
  NewFile5: 104,
  CreatedBackingTable: 105,
  RemovedBackingTable: 106,
  NewBlobFile: 107,
  DeletedBlobFile: 108,
} as const;

const Custom = {
  Terminate: 1,
  NeedsCompaction: 2,
  CreationTime: 6,
  NoRangeKeySets: 7,
  NonSafeIgnoreMask: 1 << 6,
  PathId: 65,
  Virtual: 66,
  SyntheticPrefix: 67,
  SyntheticSuffix: 68,
  BlobReferences: 69,
  BlobReferences2: 70,
} as const;

/** Pebble has 7 levels; a larger one is a corrupt edit (Pebble refuses it too). */
export const PEBBLE_NUM_LEVELS = 7;

const MASK_CONTAINS_POINT_KEYS = 1 << 0;
const MASK_SMALLEST_IS_POINT = 1 << 1;
const MASK_LARGEST_IS_POINT = 1 << 2;

function getLevel(c: Cursor): number {
  const level = getVarint32(c);
  if (level >= PEBBLE_NUM_LEVELS) throw new RangeError(`level ${level} >= ${PEBBLE_NUM_LEVELS}`);
  return level;
}

function decodeNewFile(tag: number, c: Cursor): NewFileEntry {
  const level = getLevel(c);
  const fileNumber = getVarint64Number(c);
  if (tag === PebbleTag.NewFile3) getVarint32(c); // path id, unused
  const fileSize = getVarint64Number(c);
  let point: { smallest: InternalKey; largest: InternalKey } | undefined;
  let range: { smallest: InternalKey; largest: InternalKey } | undefined;
  let marker = MASK_CONTAINS_POINT_KEYS | MASK_SMALLEST_IS_POINT | MASK_LARGEST_IS_POINT;
  if (tag !== PebbleTag.NewFile5) {
    point = { smallest: getInternalKey(c), largest: getInternalKey(c) };
  } else {
    if (c.pos >= c.end) throw new RangeError("NewFile5: bounds marker runs past the record");
    marker = c.buf[c.pos++]!;
    if (marker & MASK_CONTAINS_POINT_KEYS)
      point = { smallest: getInternalKey(c), largest: getInternalKey(c) };
    else if (marker & (MASK_SMALLEST_IS_POINT | MASK_LARGEST_IS_POINT))
      throw new RangeError(`NewFile5: table without point keys has point key bounds (marker ${marker})`);
    range = { smallest: getInternalKey(c), largest: getInternalKey(c) };
  }
  const f: NewFileEntry = {
    level,
    fileNumber,
    pathId: 0,
    fileSize,
    // a table's bounds are its point bounds or its range-key bounds, whichever the marker names
    smallest: marker & MASK_SMALLEST_IS_POINT ? point!.smallest : range!.smallest,
    largest: marker & MASK_LARGEST_IS_POINT ? point!.largest : range!.largest,
    tag,
  };
  if (range) {
    f.rangeKeyBounds = range;
    f.hasPointKeys = point !== undefined;
  }
  if (tag !== PebbleTag.NewFile) {
    f.smallestSeqno = getSeq(c);
    f.largestSeqno = getSeq(c);
  }
  if (tag === PebbleTag.NewFile4 || tag === PebbleTag.NewFile5) decodeCustomFields(c, f);
  return f;
}

function decodeCustomFields(c: Cursor, f: NewFileEntry): void {
  for (;;) {
    const tag = getVarint32(c);
    switch (tag) {
      case Custom.Terminate:
        return;
      case Custom.CreationTime:
        f.fileCreationTime = getVarint64Number(cursor(getLengthPrefixed(c)));
        break;
      case Custom.NeedsCompaction:
        f.markedForCompaction = getLengthPrefixed(c)[0] === 1;
        break;
      case Custom.Virtual:
        f.virtualBacking = getVarint64Number(c);
        break;
      case Custom.BlobReferences:
      case Custom.BlobReferences2: {
        getVarint64Number(c); // blob reference depth
        const n = getVarint64Number(c);
        if (n > c.end - c.pos) throw new RangeError(`${n} blob references in a shorter record`);
        f.blobReferences = [];
        for (let i = 0; i < n; i++) {
          const blobFileId = getVarint64Number(c);
          const valueSize = getVarint64Number(c);
          if (tag === Custom.BlobReferences2)
            f.blobReferences.push({ blobFileId, valueSize, backingValueSize: getVarint64Number(c) });
          else f.blobReferences.push({ blobFileId, valueSize });
        }
        break;
      }
      case Custom.PathId:
        throw new RangeError("new-file4: path-id field not supported (Pebble refuses it too)");
      default:
        if (
          tag & Custom.NonSafeIgnoreMask &&
          tag !== Custom.SyntheticPrefix &&
          tag !== Custom.SyntheticSuffix
        )
          throw new RangeError(`new-file4: custom field ${tag} not understood`);
        getLengthPrefixed(c);
        if (tag !== Custom.NoRangeKeySets && tag !== Custom.SyntheticPrefix && tag !== Custom.SyntheticSuffix)
          (f.unknownCustomTags ??= []).push(tag);
    }
  }
}

/** Decode one Pebble VersionEdit record. Throws EditDecodeError naming the offset inside the record. */
export function decodePebbleVersionEdit(rec: Uint8Array): VersionEdit {
  return decodeEditRecord(rec, PEBBLE_EDIT);
}

const newFile = editField("new-file entry", (c, e, tag) => {
  e.newFiles.push(decodeNewFile(tag, c));
});

/** Pebble's fields by tag (internal/manifest/version_edit.go Decode); Pebble has no column-family tags. */
const PEBBLE_EDIT: EditFormat = {
  fields: new Map<number, EditField>([
    ...LEVELDB_FIELDS,
    [
      PebbleTag.CompactPointer,
      editField("compaction pointer", (c) => {
        getLevel(c);
        getLengthPrefixed(c);
      }),
    ],
    [
      PebbleTag.DeletedFile,
      editField("deleted file", (c, e) => {
        e.deletedFiles.push({ level: getLevel(c), fileNumber: getVarint64Number(c) });
      }),
    ],
    [
      PebbleTag.ExciseBoundsRecord,
      editField("excise bounds", (c, e) => {
        const start = getLengthPrefixed(c);
        const end = getLengthPrefixed(c);
        // base.BoundaryKind: 0 exclusive, 1 inclusive
        const kind = getVarint64Number(c);
        (e.excises ??= []).push({ start, end, endInclusive: kind === 1, seqno: getSeq(c) });
      }),
    ],
    [
      PebbleTag.TableMarkedForCompaction,
      editField("table marked for compaction", (c, e) => {
        (e.tablesMarkedForCompaction ??= []).push({ level: getLevel(c), fileNumber: getVarint64Number(c) });
      }),
    ],
    [PebbleTag.NewFile, newFile],
    [PebbleTag.NewFile2, newFile],
    [PebbleTag.NewFile3, newFile],
    [PebbleTag.NewFile4, newFile],
    [PebbleTag.NewFile5, newFile],
    [
      PebbleTag.CreatedBackingTable,
      editField("created backing table", (c, e) => {
        (e.createdBackingTables ??= []).push({
          fileNumber: getVarint64Number(c),
          size: getVarint64Number(c),
        });
      }),
    ],
    [
      PebbleTag.RemovedBackingTable,
      editField("removed backing table", (c, e) => {
        (e.removedBackingTables ??= []).push(getVarint64Number(c));
      }),
    ],
    [
      PebbleTag.NewBlobFile,
      editField("new blob file", (c, e) => {
        (e.newBlobFiles ??= []).push({
          blobFileId: getVarint64Number(c),
          fileNumber: getVarint64Number(c),
          size: getVarint64Number(c),
          valueSize: getVarint64Number(c),
          creationTime: getVarint64Number(c),
        });
      }),
    ],
    [
      PebbleTag.DeletedBlobFile,
      editField("deleted blob file", (c, e) => {
        (e.deletedBlobFiles ??= []).push({
          blobFileId: getVarint64Number(c),
          fileNumber: getVarint64Number(c),
        });
      }),
    ],
  ]),
  unknownTag(tag, tagStart) {
    throw new EditDecodeError(
      tag >= 200 && tag <= 203
        ? `column family tag ${tag} in a Pebble MANIFEST (Pebble has none)`
        : `unknown Pebble VersionEdit tag ${tag}`,
      tagStart,
    );
  },
};
