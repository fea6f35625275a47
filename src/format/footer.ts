/**
 * Table footers (table/format.cc Footer::DecodeFrom in RocksDB, table/format.cc in LevelDB).
 *
 * The footer is the last bytes of the file; the 8-byte magic number at the very end says which layout.
 *
 * Legacy / LevelDB footer (magic 0xdb4775248b80fb57; RocksDB calls it format_version 0), 48 bytes:
 *   metaindex handle (varint64 offset, varint64 size)
 *   index handle     (varint64 offset, varint64 size)
 *   zero padding up to 40 bytes
 *   magic            fixed64 LE
 *
 * Block-based footer, format_version 1..5 (magic 0x88e241b785f4cff7), 53 bytes:
 *   checksum type    1 byte (0 none, 1 crc32c, 2 xxHash, 3 xxHash64, 4 XXH3)
 *   metaindex handle, index handle, zero padding up to 40 bytes
 *   format_version   fixed32 LE
 *   magic            fixed64 LE
 *
 * Block-based footer, format_version >= 6, 53 bytes:
 *   checksum type          1 byte
 *   extended magic         4 bytes 0x3e 0x00 0x7a 0x00
 *   footer checksum        fixed32: checksum (of the footer's checksum type) over all 53 bytes with
 *                          this field zeroed, plus ChecksumModifierForContext(base, footer offset)
 *   base context checksum  fixed32 (non-zero); block checksums add a per-offset modifier of it
 *   metaindex size         fixed32; the metaindex block ends right before the footer (and its trailer)
 *   16 bytes unchecked padding, 8 bytes that must be zero
 *   format_version         fixed32 LE
 *   magic                  fixed64 LE
 *   The index handle is no longer in the footer: it is the metaindex entry "rocksdb.index".
 *
 * Pebble footer, magic bytes f0 9f aa b3 f0 9f aa b3 (pebble.ts; Pebble's sstable/table.go): versions 1-5
 * have the 53-byte layout of format_version 1..5 above, with Pebble's own version number. Longer from
 * (Pebble,v6), the fields before the version growing at its front end:
 *   v6      57 bytes: checksum type | metaindex handle | index handle | padding to 41 bytes |
 *           footer checksum fixed32 | version fixed32 | magic
 *   v7, v8  61 bytes: ... padding to 41 bytes | attributes fixed32 | footer checksum | version | magic
 * The footer checksum is the masked CRC32C of the footer's bytes without the checksum field; the
 * attributes a bit set of what the table holds (PEBBLE_ATTRIBUTES). Pebble writes CRC32C or xxHash64
 * block checksums only.
 *
 * Plain (0x8242229663bf9564, legacy 0x4f3418eb7a8f13b8) and cuckoo (0x926789d0c5f17873) tables are
 * recognised and refused.
 */
import { cursor, readFixed32 } from "../util/coding.js";
import { CorruptionError, LsmscopeError } from "../util/errors.js";
import { BLOCK_TRAILER_SIZE, decodeBlockHandle, type BlockHandle } from "./handle.js";
import { computeChecksum, checksumModifierForContext } from "./checksum.js";
import { ChecksumType, isKnownChecksumType } from "../base/checksum_type.js";
import { PEBBLE_LAST_KNOWN_FORMAT, PEBBLE_MAGIC } from "./pebble.js";
import { maskedCrc32c } from "../base/crc.js";

export const LEGACY_MAGIC = 0xdb4775248b80fb57n;
export const BLOCK_BASED_MAGIC = 0x88e241b785f4cff7n;
export const PLAIN_MAGIC = 0x8242229663bf9564n;
export const LEGACY_PLAIN_MAGIC = 0x4f3418eb7a8f13b8n;
export const CUCKOO_MAGIC = 0x926789d0c5f17873n;

export const LEGACY_FOOTER_SIZE = 48;
export const FOOTER_SIZE = 53;
/** The longest footer of any format ((Pebble,v7)): what a reader fetches from the end of a table. */
export const MAX_FOOTER_SIZE = 61;
/** Newest block-based format_version we know the layout of (7 only adds a compression-manager name). */
export const LATEST_FORMAT_VERSION = 7;

const EXTENDED_MAGIC = [0x3e, 0x00, 0x7a, 0x00];

export interface Footer {
  /**
   * "legacy" = LevelDB / RocksDB format_version 0 magic; "block-based" = RocksDB block-based magic;
   * "pebble" = Pebble's magic (formatVersion is then Pebble's table format version).
   */
  magic: "legacy" | "block-based" | "pebble";
  formatVersion: number;
  checksumType: ChecksumType;
  metaindexHandle: BlockHandle;
  /** Absent in the footer for format_version >= 6 (read from the metaindex "rocksdb.index" entry). */
  indexHandle: BlockHandle | undefined;
  /** Format >= 6: non-zero seed of the per-block context checksum modifier; else 0. */
  baseContextChecksum: number;
  /** File offset of the footer's first byte. */
  footerOffset: number;
  /** Format >= 6, (Pebble,v6)+: stored footer checksum (verified while decoding). */
  footerChecksum?: number;
  /** (Pebble,v7)+: the footer's attributes bit set (PEBBLE_ATTRIBUTES). */
  attributes?: number;
}

/** Pebble's footer attribute bits (sstable/attributes.go), lowest first. */
export const PEBBLE_ATTRIBUTES = [
  "ValueBlocks",
  "RangeKeySets",
  "RangeKeyUnsets",
  "RangeKeyDels",
  "RangeDels",
  "TwoLevelIndex",
  "BlobValues",
  "PointKeys",
] as const;

/** Bytes of a Pebble footer of this version. */
function pebbleFooterSize(version: number): number {
  return version >= 7 ? MAX_FOOTER_SIZE : version === 6 ? 57 : FOOTER_SIZE;
}

/**
 * The bytes at the end of a table its footer takes, from the file's last bytes (`tail`, at least the
 * 12 of version and magic): a Pebble (v6)+ footer's length, else the 53 every other reader reads.
 */
export function footerSize(tail: Uint8Array): number {
  if (tail.length < 12 || readMagic(tail, tail.length - 8) !== PEBBLE_MAGIC) return FOOTER_SIZE;
  return Math.max(FOOTER_SIZE, pebbleFooterSize(readFixed32(tail, tail.length - 12)));
}

const BLOCK_BASED_LOW = Number(BLOCK_BASED_MAGIC & 0xffffffffn);
const BLOCK_BASED_HIGH = Number(BLOCK_BASED_MAGIC >> 32n);

function readMagic(buf: Uint8Array, pos: number): bigint {
  const low = readFixed32(buf, pos);
  const high = readFixed32(buf, pos + 4);
  // the magic of nearly every table read: no BigInt made per table
  if (low === BLOCK_BASED_LOW && high === BLOCK_BASED_HIGH) return BLOCK_BASED_MAGIC;
  return (BigInt(high) << 32n) | BigInt(low);
}

/**
 * A footer's family, decided once from its magic number and version (as RocksDB's Footer::DecodeFrom
 * does): each family has its own layout and decoder below.
 */
type FooterFamily =
  /** LevelDB's footer (RocksDB's format_version 0): two handles, 48 bytes. */
  | { kind: "leveldb" }
  /** Block-based format_version 1..5, and Pebble v1-5 in the same layout: checksum type, two handles. */
  | { kind: "handles"; pebble: boolean; formatVersion: number }
  /** Block-based format_version >= 6: checksummed, the index handle in the metaindex. */
  | { kind: "rocksdb-v6"; formatVersion: number }
  /** (Pebble,v6)+: longer, checksummed, with attributes from v7. */
  | { kind: "pebble-v6"; version: number };

/**
 * Which family the footer in `tail` is, from its magic number and version; refuses plain and cuckoo
 * tables, an unknown magic, an unknown version and a tail too short for the family's footer.
 */
function footerFamily(file: string, tail: Uint8Array, tailOffset: number): FooterFamily {
  const magicPos = tail.length - 8;
  const magic = readMagic(tail, magicPos);
  const at = (p: number) => tailOffset + p;
  if (magic === PLAIN_MAGIC || magic === LEGACY_PLAIN_MAGIC || magic === CUCKOO_MAGIC) {
    throw new LsmscopeError(
      `${magic === CUCKOO_MAGIC ? "cuckoo" : "plain"} table format is not supported (only block-based and LevelDB tables)`,
      { file, offset: at(magicPos) },
    );
  }
  if (magic === LEGACY_MAGIC) return { kind: "leveldb" };
  const pebble = magic === PEBBLE_MAGIC;
  if (pebble) {
    const version = tail.length >= 12 ? readFixed32(tail, magicPos - 4) : 0;
    if (version < 1 || version > PEBBLE_LAST_KNOWN_FORMAT) {
      throw new CorruptionError(
        `footer: Pebble table with an unknown format version ${version}`,
        file,
        at(magicPos - 4),
      );
    }
    if (version >= 6) return { kind: "pebble-v6", version };
  } else if (magic !== BLOCK_BASED_MAGIC) {
    throw new CorruptionError(
      `footer: bad table magic number 0x${magic.toString(16).padStart(16, "0")} (not an SST file or truncated)`,
      file,
      at(magicPos),
    );
  }
  if (tail.length < FOOTER_SIZE) {
    throw new CorruptionError("footer: file too short for a block-based footer", file, tailOffset);
  }
  const formatVersion = readFixed32(tail, magicPos - 4);
  if (!pebble && (formatVersion < 1 || formatVersion > LATEST_FORMAT_VERSION)) {
    throw new CorruptionError(
      `footer: corrupt or unsupported format_version ${formatVersion}`,
      file,
      at(magicPos - 4),
    );
  }
  return !pebble && formatVersion >= 6
    ? { kind: "rocksdb-v6", formatVersion }
    : { kind: "handles", pebble, formatVersion };
}

/**
 * Decode the footer from `tail`, the last min(fileSize, 53) bytes of the file (`tailOffset` is the
 * file offset of tail[0]).
 */
export function decodeFooter(file: string, tail: Uint8Array, tailOffset: number): Footer {
  if (tail.length < LEGACY_FOOTER_SIZE) {
    throw new CorruptionError(
      `file too short to be a table (${tailOffset + tail.length} bytes)`,
      file,
      tailOffset,
    );
  }
  const family = footerFamily(file, tail, tailOffset);
  switch (family.kind) {
    case "leveldb":
      return decodeLevelDbFooter(file, tail, tailOffset);
    case "handles":
      return decodeHandlesFooter(file, tail, tailOffset, family.pebble, family.formatVersion);
    case "rocksdb-v6":
      return decodeRocksDbV6Footer(file, tail, tailOffset, family.formatVersion);
    case "pebble-v6":
      return decodeCheckedPebbleFooter(file, tail, tailOffset, family.version);
  }
}

/** The metaindex and index handles at the cursor; `what` names the footer in the error. */
function decodeHandles(
  c: ReturnType<typeof cursor>,
  what: string,
  file: string,
  offset: number,
): { metaindexHandle: BlockHandle; indexHandle: BlockHandle } {
  try {
    const metaindexHandle = decodeBlockHandle(c);
    const indexHandle = decodeBlockHandle(c);
    return { metaindexHandle, indexHandle };
  } catch (err) {
    throw new CorruptionError(`${what}: bad block handle (${(err as Error).message})`, file, offset, err);
  }
}

/** The checksum type byte at `start`, refused when unknown. */
function checksumTypeAt(
  file: string,
  tail: Uint8Array,
  start: number,
  what: string,
  offset: number,
): ChecksumType {
  const checksumByte = tail[start]!;
  if (!isKnownChecksumType(checksumByte)) {
    throw new CorruptionError(`${what}: unknown checksum type ${checksumByte}`, file, offset);
  }
  return checksumByte as ChecksumType;
}

/** LevelDB's footer (RocksDB's format_version 0): CRC32C blocks, two handles. */
function decodeLevelDbFooter(file: string, tail: Uint8Array, tailOffset: number): Footer {
  const start = tail.length - LEGACY_FOOTER_SIZE;
  const footerOffset = tailOffset + start;
  const c = cursor(tail, start, tail.length - 8);
  return {
    magic: "legacy",
    formatVersion: 0,
    checksumType: ChecksumType.CRC32c,
    ...decodeHandles(c, "footer", file, footerOffset),
    baseContextChecksum: 0,
    footerOffset,
  };
}

/** Block-based format_version 1..5 or Pebble v1-5: checksum type, then the two handles. */
function decodeHandlesFooter(
  file: string,
  tail: Uint8Array,
  tailOffset: number,
  pebble: boolean,
  formatVersion: number,
): Footer {
  const start = tail.length - FOOTER_SIZE;
  const footerOffset = tailOffset + start;
  const what = pebble ? "Pebble table footer" : "footer";
  const checksumType = checksumTypeAt(file, tail, start, what, footerOffset);
  const c = cursor(tail, start + 1, tail.length - 12);
  return {
    magic: pebble ? "pebble" : "block-based",
    formatVersion,
    checksumType,
    ...decodeHandles(c, what, file, tailOffset + start + 1),
    baseContextChecksum: 0,
    footerOffset,
  };
}

/** Block-based format_version >= 6: extended magic, footer checksum, base context, metaindex size. */
function decodeRocksDbV6Footer(
  file: string,
  tail: Uint8Array,
  tailOffset: number,
  formatVersion: number,
): Footer {
  const start = tail.length - FOOTER_SIZE;
  const footerOffset = tailOffset + start;
  const at = (p: number) => tailOffset + p;
  const checksumType = checksumTypeAt(file, tail, start, "footer", footerOffset);
  for (let i = 0; i < 4; i++) {
    if (tail[start + 1 + i] !== EXTENDED_MAGIC[i]) {
      throw new CorruptionError(
        "footer: bad extended magic number (format_version >= 6)",
        file,
        at(start + 1),
      );
    }
  }
  const stored = readFixed32(tail, start + 5);
  const base = readFixed32(tail, start + 9);
  const metaindexSize = readFixed32(tail, start + 13);
  if (checksumModifierForContext(base, 0) === 0) {
    throw new CorruptionError("footer: invalid base context checksum 0", file, at(start + 9));
  }
  if (checksumType !== ChecksumType.None) {
    const copy = Uint8Array.from(tail.subarray(start, start + FOOTER_SIZE));
    copy[5] = copy[6] = copy[7] = copy[8] = 0;
    const computed =
      (computeChecksum(checksumType, copy) + checksumModifierForContext(base, footerOffset)) >>> 0;
    if (computed !== stored) {
      throw new CorruptionError(
        `footer: checksum mismatch (stored ${stored}, computed ${computed})`,
        file,
        footerOffset,
      );
    }
  }
  for (let i = start + 33; i < start + 41; i++) {
    if (tail[i] !== 0) {
      throw new LsmscopeError("footer: file uses a future feature (reserved bytes are not zero)", {
        file,
        offset: at(i),
      });
    }
  }
  const metaindexEnd = footerOffset - BLOCK_TRAILER_SIZE;
  if (metaindexSize > metaindexEnd) {
    throw new CorruptionError(`footer: metaindex size ${metaindexSize} exceeds file`, file, at(start + 13));
  }
  return {
    magic: "block-based",
    formatVersion,
    checksumType,
    metaindexHandle: { offset: metaindexEnd - metaindexSize, size: metaindexSize },
    indexHandle: undefined,
    baseContextChecksum: base,
    footerOffset,
    footerChecksum: stored,
  };
}

/** A (Pebble,v6)+ footer: longer, checksummed, with attributes from v7. */
function decodeCheckedPebbleFooter(
  file: string,
  tail: Uint8Array,
  tailOffset: number,
  version: number,
): Footer {
  const size = pebbleFooterSize(version);
  const at = (p: number) => tailOffset + p;
  if (tail.length < size) throw new CorruptionError("Pebble table footer: file too short", file, tailOffset);
  const start = tail.length - size;
  const footerOffset = at(start);
  const checksumAt = tail.length - 16;
  const stored = readFixed32(tail, checksumAt);
  const body = Buffer.concat([tail.subarray(start, checksumAt), tail.subarray(checksumAt + 4)]);
  const computed = maskedCrc32c(body);
  if (computed !== stored) {
    throw new CorruptionError(
      `Pebble table footer: checksum mismatch (stored ${stored}, computed ${computed})`,
      file,
      footerOffset,
    );
  }
  const checksumByte = tail[start]!;
  if (checksumByte !== ChecksumType.CRC32c && checksumByte !== ChecksumType.XXHash64) {
    throw new CorruptionError(
      `Pebble table footer: unsupported checksum type ${checksumByte}`,
      file,
      footerOffset,
    );
  }
  const c = cursor(tail, start + 1, version >= 7 ? checksumAt - 4 : checksumAt);
  const footer: Footer = {
    magic: "pebble",
    formatVersion: version,
    checksumType: checksumByte as ChecksumType,
    ...decodeHandles(c, "Pebble table footer", file, at(start + 1)),
    baseContextChecksum: 0,
    footerOffset,
    footerChecksum: stored,
  };
  if (version >= 7) footer.attributes = readFixed32(tail, checksumAt - 4);
  return footer;
}
