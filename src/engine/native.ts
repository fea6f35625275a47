/**
 * Lazy loading of the optional native engine addon (build/Release/lsmscope_engine.node, built from
 * native/engine.cc by scripts/build-addon.mjs). Nothing is loaded until an engine function is called,
 * so read-only features never need librocksdb-dev. When the addon cannot be loaded, the reason is one
 * line naming what is missing and the command that installs it.
 */
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { MissingDependencyError } from "../util/errors.js";
import { nativeBuildPath } from "../util/package_root.js";

export const INSTALL_COMMAND = "sudo apt-get install -y librocksdb-dev && npm run build:addon";
export const ROCKSDB_HEADER = "/usr/include/rocksdb/db.h";

/** What the addon exports (see native/engine.cc); the typed API in index.ts wraps it. */
export interface NativeDb {
  columnFamilyNames(): Buffer[];
  notes(): string[];
  put(cf: Buffer, key: Buffer, value: Buffer): void;
  delete(cf: Buffer, key: Buffer): void;
  write(
    ops: { type: string; cf: Buffer; key: Buffer; value?: Buffer }[],
    opts: { disableWal?: boolean; sync?: boolean },
  ): void;
  get(cf: Buffer, key: Buffer, fillCache: boolean): Buffer | undefined;
  getManyWithStats(cf: Buffer, keys: Buffer[], fillCache: boolean, countOnly: boolean): unknown;
  flush(cf?: Buffer): void;
  compactRange(cf: Buffer, opts: object): void;
  compactRangeAsync(cf: Buffer, opts: object): Promise<void>;
  cancelManualCompaction(): void;
  cancelAllBackgroundWork(wait: boolean): void;
  getProperty(cf: Buffer, name: string): string | undefined;
  latestSequenceNumber(): number;
  createColumnFamily(name: Buffer, options: string): void;
  close(): void;
}

export interface NativeAddon {
  rocksdbVersion: string;
  Db: new (dir: string, opts: object) => NativeDb;
  listColumnFamilies(dir: string): Buffer[];
  loadLatestOptions(dir: string): {
    dbOptions: string;
    columnFamilies: { name: Buffer; options: string; tableOptions: string; tableFactory?: string }[];
  };
  dropFileCache(path: string): void;
}

let loaded: { addon?: NativeAddon; reason?: string } | undefined;

function load(): { addon?: NativeAddon; reason?: string } {
  if (process.env.LSMSCOPE_ENGINE_DISABLE === "1")
    return {
      reason: `engine addon disabled by LSMSCOPE_ENGINE_DISABLE=1; unset it, or run: ${INSTALL_COMMAND}`,
    };
  const file = nativeBuildPath("lsmscope_engine");
  if (file === undefined || !existsSync(file)) {
    const why = existsSync(ROCKSDB_HEADER)
      ? "build/Release/lsmscope_engine.node missing"
      : "librocksdb-dev missing";
    return { reason: `engine addon not built: ${why}; run: ${INSTALL_COMMAND}` };
  }
  try {
    return { addon: createRequire(import.meta.url)(file) as NativeAddon };
  } catch (err) {
    const first = String(err instanceof Error ? err.message : err).split("\n")[0];
    return { reason: `engine addon failed to load (${first}); run: ${INSTALL_COMMAND}` };
  }
}

function state(): { addon?: NativeAddon; reason?: string } {
  // LSMSCOPE_ENGINE_DISABLE is read on every call so tests and workers can switch it per process.
  if (process.env.LSMSCOPE_ENGINE_DISABLE === "1") return load();
  loaded ??= load();
  return loaded;
}

export function engineAvailable(): boolean {
  return state().addon !== undefined;
}

export function engineUnavailableReason(): string | undefined {
  return state().reason;
}

/** The loaded addon, or a MissingDependencyError with the one-line reason. */
export function addon(): NativeAddon {
  const s = state();
  if (s.addon === undefined) throw new MissingDependencyError(s.reason ?? "engine addon unavailable");
  return s.addon;
}
