/**
 * Helpers for the compact tests: temp copies of committed samples (never compact a sample in place),
 * `ldb scan --hex` dumps as an oracle, directory snapshots to prove "nothing written", and a larger store
 * written through the engine for the SIGKILL test.
 */
import { createHash } from "node:crypto";
import { join } from "node:path";
import { execFileSync } from "node:child_process";
import * as engine from "../../src/engine/index.js";
import { putVarint32 } from "../../src/util/coding.js";

import { copyInto, SAMPLES, trackedTempDirs } from "../helpers/index.js";

export { SAMPLES, snapshotTree } from "../helpers/index.js";

export const { tempDir, cleanupTemps } = trackedTempDirs("lsmscope-compact-");

/** A private copy of a committed sample; returns the copy's root. */
export function copySample(name: string): string {
  return copyInto(join(SAMPLES, name), tempDir());
}

/** `ldb scan --hex` of one CF (read-only open; run only on temp copies). */
export function ldbScan(storeDir: string, cf: Buffer): string {
  return execFileSync(
    "ldb",
    [`--db=${storeDir}`, `--column_family=${cf.toString("latin1")}`, "scan", "--hex"],
    {
      encoding: "utf8",
      maxBuffer: 1 << 30,
    },
  );
}

export function ldbScanAll(storeDir: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const cf of engine.listColumnFamilies(storeDir)) out.set(cf.toString("hex"), ldbScan(storeDir, cf));
  return out;
}

/** The digest.ts digest computed from an `ldb scan --hex` dump: the oracle for the pure-TS digest. */
export function digestOfLdbScan(dump: string): { keys: number; sha256: string } {
  const h = createHash("sha256");
  let keys = 0;
  const len = (n: number) => {
    const o: number[] = [];
    putVarint32(o, n);
    return Buffer.from(o);
  };
  for (const line of dump.split("\n")) {
    if (!line) continue;
    const m = /^0x([0-9A-F]*) : 0x([0-9A-F]*)$/.exec(line);
    if (!m) throw new Error(`unexpected ldb line: ${line.slice(0, 80)}`);
    const k = Buffer.from(m[1]!, "hex");
    const v = Buffer.from(m[2]!, "hex");
    h.update(len(k.length)).update(k).update(len(v.length)).update(v);
    keys++;
  }
  return { keys, sha256: h.digest("hex") };
}

export { BESU_LIKE, writeOverlayStore } from "../../bench/overlay_store.js";
