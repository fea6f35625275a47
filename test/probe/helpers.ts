/** Probe test helpers: db_bench stores in temp dirs, and a content+mtime digest of a directory tree. */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const SAMPLES = join(import.meta.dirname, "..", "..", "samples");
export const PROBES = join(import.meta.dirname, "..", "..", "probes");
export const BIN = join(import.meta.dirname, "..", "..", "bin", "lsmscope.js");

export function tempDir(prefix = "lsmscope-probe-test-"): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/** A store written by RocksDB's own db_bench (16-byte keys, 100-byte values, 4 KiB blocks, LZ4). */
export function dbBench(db: string, args: string[]): string {
  const r = spawnSync(
    "db_bench",
    [
      `--db=${db}`,
      "--statistics=0",
      "--seed=42",
      "--key_size=16",
      "--value_size=100",
      "--block_size=4096",
      "--compression_type=lz4",
      ...args,
    ],
    { encoding: "utf8", timeout: 120_000 },
  );
  if (r.status !== 0) throw new Error(`db_bench failed: ${r.stderr}`);
  return db;
}

/** sha256 over every file's relative path, size, mtime and content, recursively. */
export function treeDigest(dir: string): string {
  const h = createHash("sha256");
  const walk = (d: string, rel: string) => {
    for (const n of readdirSync(d).sort()) {
      const p = join(d, n);
      const st = statSync(p);
      if (st.isDirectory()) walk(p, `${rel}${n}/`);
      else {
        h.update(`${rel}${n}\0${st.size}\0${st.mtimeMs}\0`);
        h.update(readFileSync(p));
      }
    }
  };
  walk(dir, "");
  return h.digest("hex");
}
