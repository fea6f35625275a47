/** Probe test helpers: db_bench stores in temp dirs, and a content+mtime digest of a directory tree. */
import { join } from "node:path";

export const SAMPLES = join(import.meta.dirname, "..", "..", "samples");
export const PROBES = join(import.meta.dirname, "..", "..", "probes");
export const BIN = join(import.meta.dirname, "..", "..", "bin", "lsmscope.js");

import { dbBench as runDbBench } from "../helpers/index.js";

export { removeDir, snapshotTree, tempDir } from "../helpers/index.js";

/** A store written by RocksDB's own db_bench (16-byte keys, 100-byte values, 4 KiB blocks, LZ4). */
export function dbBench(db: string, args: string[]): string {
  runDbBench(db, [
    "--key_size=16",
    "--value_size=100",
    "--block_size=4096",
    "--compression_type=lz4",
    ...args,
  ]);
  return db;
}
