/**
 * Checksum types of block-based tables (include/rocksdb/table.h ChecksumType), stored in the footer
 * from format_version 1 on, with their OPTIONS spelling ("kXXH3") and the name lsmscope prints ("xxh3").
 */

export enum ChecksumType {
  None = 0,
  CRC32c = 1,
  XXHash = 2,
  XXHash64 = 3,
  XXH3 = 4,
}

/** Display names. */
export const CHECKSUM_NAMES: Readonly<Record<ChecksumType, string>> = {
  [ChecksumType.None]: "none",
  [ChecksumType.CRC32c]: "crc32c",
  [ChecksumType.XXHash]: "xxhash",
  [ChecksumType.XXHash64]: "xxhash64",
  [ChecksumType.XXH3]: "xxh3",
};

const OPTIONS_SPELLINGS: Readonly<Record<ChecksumType, string>> = {
  [ChecksumType.None]: "kNoChecksum",
  [ChecksumType.CRC32c]: "kCRC32c",
  [ChecksumType.XXHash]: "kxxHash",
  [ChecksumType.XXHash64]: "kxxHash64",
  [ChecksumType.XXH3]: "kXXH3",
};

const BY_OPTIONS: ReadonlyMap<string, string> = new Map(
  Object.entries(OPTIONS_SPELLINGS).map(([t, o]) => [o, CHECKSUM_NAMES[Number(t) as ChecksumType]]),
);

export function isKnownChecksumType(t: number): boolean {
  return t >= ChecksumType.None && t <= ChecksumType.XXH3;
}

/** OPTIONS spelling → display name ("kXXH3" → "xxh3"); undefined when not a known spelling. */
export function checksumNameFromOptions(v: string): string | undefined {
  return BY_OPTIONS.get(v);
}
