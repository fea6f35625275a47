/**
 * The pure-TypeScript SST reader: RocksDB block-based tables and LevelDB tables.
 */
export {
  openTable,
  SstTable,
  DataBlock,
  type OpenTableOptions,
  type TableFormat,
  type IndexType,
  type FilterKind,
  type FilterInfo,
  type MetaBlockEntry,
  type IndexEntry,
  type LookupStats,
  type GetResult,
  type EntryView,
  type ScanSummary,
  emptyLookupStats,
} from "./table.js";
export { BlockKind } from "./block_kind.js";
export { BlockCorruptionError } from "./errors.js";
export { verifyTable, problemOf, type TableVerification, type VerifyProblem } from "./verify.js";
export type { IndexReader, IndexLayout } from "./index_reader.js";
export type { FilterReader } from "./filter_reader.js";
export type { TableProperties } from "./properties.js";
export type { Footer } from "./footer.js";
export type { BlockHandle } from "./handle.js";
export type { IoStats } from "./table_file.js";
export { ChecksumType, CHECKSUM_NAMES } from "../base/checksum_type.js";
export { CompressionType, compressionName } from "../base/compression_type.js";
export { ValueType, valueTypeName, parseInternalKey, type ParsedInternalKey } from "../base/internal_key.js";
export {
  NUMERIC_PROPERTIES,
  STRING_PROPERTIES,
  NUMERIC_FIELDS,
  STRING_FIELDS,
  type PropertyValue,
} from "./properties.js";
export { hash64 as rocksdbHash64, bloomHash32 } from "./hash.js";
