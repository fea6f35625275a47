/**
 * The datadir model: every store under a directory, read from CURRENT, MANIFEST, OPTIONS, WAL and blob
 * files without an engine. Entry point: inspectDatadir().
 */
export { inspectDatadir, incompleteLine, incompleteReasons, noReadableStoreError } from "./inspect.js";
export type * from "./model.js";
export type {
  OptionsFileModel,
  CfOptionsModel,
  DbOptionsModel,
  TableOptionsModel,
  FilterPolicyInfo,
} from "./options_file.js";
export { parseOptionsFile, parseFilterPolicy, parseOptionMap, findOptionsFiles } from "./options_file.js";
export { replayManifest, readCurrent } from "./manifest.js";
export type { ManifestReplay, ReplayedColumnFamily, ReplayedBlobFile, CurrentFile } from "./manifest.js";
export { decodeVersionEdit } from "./version_edit.js";
export type { VersionEdit, NewFileEntry } from "./version_edit.js";
export { decodeInternalKey, VALUE_TYPE_NAMES, type InternalKey } from "../base/internal_key.js";
export { scanLogFile, scanLogBuffer } from "./log_reader.js";
export type { LogRecord, LogIssue, LogScanResult, LogScanOptions } from "./log_reader.js";
export { decodeWriteBatch } from "./write_batch.js";
export type { DecodedBatch } from "./write_batch.js";
export { scanWal } from "./wal.js";
export type { WalScan } from "./wal.js";
export { readBlobFile } from "./blob_file.js";
export { BESU_SEGMENTS, displayCfName } from "./clients.js";
export { gethKeyCategory } from "../eth/geth_schema.js";
export { renderDatadirText } from "./text_dump.js";
