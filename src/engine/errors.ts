/**
 * RocksDB reports failures as a Status string ("IO error: ...", "Corruption: ...", "Invalid argument:
 * ..."). The addon throws a plain Error carrying that string; here it becomes a one-line LsmscopeError
 * naming the store, with the few cases a user meets often (a held LOCK, a cancelled compaction, a
 * table format this RocksDB cannot read) said plainly.
 */
import { LsmscopeError } from "../util/errors.js";
import { escapeText } from "../util/bytes.js";

/** A failed RocksDB call. `status` is RocksDB's own Status::ToString(); `code` its leading category. */
export class EngineError extends LsmscopeError {
  readonly status: string;
  readonly code: string;
  constructor(message: string, status: string, dir?: string) {
    super(message, { file: dir, cause: new Error(status) });
    this.name = "EngineError";
    this.status = status;
    this.code = status.match(/^([A-Za-z ]+?):/)?.[1] ?? "Unknown";
  }
}

/** The store's LOCK is held by another process (a running client, another lsmscope). */
export class StoreLockedError extends EngineError {
  constructor(status: string, dir: string) {
    super("store is locked by another process (is the client still running?)", status, dir);
    this.name = "StoreLockedError";
  }
}

/** A manual compaction stopped because it was cancelled (Ctrl-C, close()). */
export class CompactionCanceledError extends EngineError {
  constructor(status: string, dir?: string) {
    super("manual compaction cancelled", status, dir);
    this.name = "CompactionCanceledError";
  }
}

/** Turn an error thrown by the addon into an EngineError; programming errors (TypeError) pass through. */
export function translateEngineError(err: unknown, dir?: string): unknown {
  if (!(err instanceof Error) || err instanceof TypeError || err instanceof LsmscopeError) return err;
  // Statuses can quote column family names or keys: escape them before they reach a terminal.
  const status = escapeText(err.message);
  if (
    /(^IO error: lock |While lock file).*(Resource temporarily unavailable|No locks available)/.test(status)
  )
    return new StoreLockedError(status, dir ?? "");
  if (/^(Result incomplete|Incomplete): .*(paused|cancel)/i.test(status))
    return new CompactionCanceledError(status, dir);
  if (/Unsupported BlockBasedTable format_version/.test(status))
    return new EngineError(
      `the store's OPTIONS ask for a table format_version the system RocksDB cannot write (newer writer): ${status}`,
      status,
      dir,
    );
  if (/Unknown Footer version|Unknown checksum type/i.test(status))
    return new EngineError(
      `the system RocksDB cannot read this table format (newer writer?): ${status}`,
      status,
      dir,
    );
  return new EngineError(`rocksdb: ${status}`, status, dir);
}
