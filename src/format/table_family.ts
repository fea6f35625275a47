/**
 * What differs between the table families SstTable opens (RocksDB block-based, LevelDB, Pebble row and
 * columnar), decided once from the footer, and the codecs their blocks need.
 */
import { createCodecs } from "./compression.js";
import type { Footer } from "./footer.js";
import { hasValuePrefix, type PebbleEntries } from "./pebble.js";
import { isColumnar } from "./pebble/columnar.js";
import type { TableFormat } from "./table_types.js";
import { BYTEWISE_COMPARATOR } from "../base/comparator.js";

/**
 * Codecs for a table's blocks. Pebble compresses as RocksDB's format_version 2 does (a varint of the
 * uncompressed size before ZSTD, LZ4 and zlib payloads), whatever its own version number.
 */
export function tableCodecs(footer: Footer) {
  return createCodecs(footer.magic === "pebble" ? 2 : footer.formatVersion, footer.magic === "legacy");
}

/**
 * What differs between the table families this reader opens, decided by the footer's magic number.
 * Another family (a different footer magic, block layout or properties) adds its case to familyOf().
 */
export interface TableFamily {
  format: TableFormat;
  /** Comparator when the table names none. */
  defaultComparator: string;
  /** Filter keys hashed with LevelDB's (unsigned) hash flavour. */
  leveldbHash: boolean;
  /** Pebble's row tables: how their entries differ (pebble.ts). */
  pebbleEntries?: PebbleEntries;
  /** Pebble's columnar tables ((Pebble,v5)+): every block but the filter is columnar. */
  columnar?: boolean;
}

export function familyOf(footer: Footer, hasProperties: boolean): TableFamily {
  if (footer.magic === "pebble" && isColumnar(footer.formatVersion))
    return {
      format: "pebble",
      defaultComparator: "",
      leveldbHash: false,
      columnar: true,
      // the columnar cursor strips value prefixes itself; it resolves values through these
      pebbleEntries: { valuePrefix: true },
    };
  if (footer.magic === "pebble")
    return {
      format: "pebble",
      defaultComparator: "",
      leveldbHash: false,
      pebbleEntries: { valuePrefix: hasValuePrefix(footer.formatVersion) },
    };
  // RocksDB format_version 0 shares LevelDB's magic; only LevelDB tables lack a properties block
  if (footer.magic === "legacy" && !hasProperties)
    return { format: "leveldb", defaultComparator: BYTEWISE_COMPARATOR, leveldbHash: true };
  return { format: "block-based", defaultComparator: "", leveldbHash: false };
}
