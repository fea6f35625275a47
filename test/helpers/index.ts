/**
 * Helpers shared by every test area: repository paths, temp dirs under os.tmpdir(), private copies of
 * stores, db_bench runs, and a snapshot of a directory tree to prove a read-only command wrote nothing.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { Writable } from "node:stream";
import type { SummaryRow } from "../../src/summary/index.js";

export const REPO = join(import.meta.dirname, "..", "..");
export const SAMPLES = join(REPO, "samples");

/** A stream that keeps what is written to it as one string (`text()`), as a pipe's reader would see it. */
export function stringSink(): { sink: Writable; text: () => string } {
  let text = "";
  const sink = new Writable({
    decodeStrings: false,
    write(chunk: string, _enc, done) {
      text += chunk;
      done();
    },
  });
  return { sink, text: () => text };
}

/** Every table file (.sst, LevelDB .ldb) under `dir`, depth first, in name order. */
export function tableFilesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...tableFilesUnder(p));
    else if (name.endsWith(".sst") || name.endsWith(".ldb")) out.push(p);
  }
  return out;
}

/**
 * `fn`, each of whose answers is computed at the first call with its arguments (compared as JSON): for
 * an oracle's answer on an input that no test changes, asked by several tests.
 */
export function memoized<A extends unknown[], V>(fn: (...args: A) => V): (...args: A) => V {
  const answers = new Map<string, V>();
  return (...args) => {
    const key = JSON.stringify(args);
    if (!answers.has(key)) answers.set(key, fn(...args));
    return answers.get(key)!;
  };
}

export function tempDir(prefix = "lsmscope-test-"): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/** Temp dirs remembered for one cleanup call (afterAll). */
export function trackedTempDirs(defaultPrefix: string): {
  tempDir(prefix?: string): string;
  cleanupTemps(): void;
} {
  const temps: string[] = [];
  return {
    tempDir(prefix = defaultPrefix) {
      const d = tempDir(prefix);
      temps.push(d);
      return d;
    },
    cleanupTemps() {
      for (const d of temps.splice(0)) removeDir(d);
    },
  };
}

/** A private copy of the directory `src` inside `parent` (as `name`, default its own name); returns it. */
export function copyInto(src: string, parent: string, name = basename(src)): string {
  const d = join(parent, name);
  cpSync(src, d, { recursive: true });
  return d;
}

/** Run RocksDB's db_bench on `db` (no statistics, seed 42, then `args`); throws with its stderr. */
export function dbBench(db: string, args: string[]): void {
  const r = spawnSync("db_bench", [`--db=${db}`, "--statistics=0", "--seed=42", ...args], {
    encoding: "utf8",
    timeout: 120_000,
  });
  if (r.status !== 0) throw new Error(`db_bench failed: ${r.stderr}`);
}

/**
 * Relative path → "size mtime sha256" of every file under `dir` (recursive, sorted): equal snapshots
 * mean nothing was written, touched or added.
 */
export function snapshotTree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string, rel: string) => {
    for (const n of readdirSync(d).sort()) {
      const p = join(d, n);
      const st = statSync(p);
      if (st.isDirectory()) walk(p, `${rel}${n}/`);
      else
        out[`${rel}${n}`] =
          `${st.size} ${st.mtimeMs} ${createHash("sha256").update(readFileSync(p)).digest("hex")}`;
    }
  };
  walk(dir, "");
  return out;
}

/** A summary row of one column family holding one byte in one table (the summary renderers' tests). */
export function summaryRow(instance: string, cf: string): SummaryRow {
  return {
    instance,
    cf,
    kind: "cf",
    sstBytes: 1,
    blobFileBytes: 0,
    walBytes: 0,
    freezerBytes: 0,
    totalBytes: 1,
    files: 1,
    bytesAboveBottom: 0,
  };
}
