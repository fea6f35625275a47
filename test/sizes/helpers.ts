/**
 * Helpers for the sizes tests: the committed samples with their ground truth, temp stores written by
 * db_bench and the engine addon, and the oracles (ldb scan, sst_dump properties).
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";

export const SAMPLES = resolve(import.meta.dirname, "../../samples");

export interface CfTruth {
  nameHex: string;
  keys: number;
}

export interface SizeTruth {
  count: number;
  totalBytes: number;
  min: number;
  max: number;
  p50: number;
  p90: number;
  p99: number;
  atMax: number;
}

export interface Truth {
  client: string;
  accounts: { total: number; eoa: number; delegatedEoa: number; contract: number };
  code: {
    entries: number;
    distinctContractBytecodes: number;
    distinctDelegationCodes: number;
    contractsPerDistinctBytecode: number;
    distinctSizes: SizeTruth;
    perContractSizes: SizeTruth;
  };
  instances: Record<string, { columnFamilies: Record<string, CfTruth> }>;
  /** Samples written after a pre-run (besu-snapshot). */
  history?: { preRunRewrittenAccounts: number };
}

export function truth(sample: string): Truth {
  return JSON.parse(readFileSync(join(SAMPLES, `${sample}.truth.json`), "utf8")) as Truth;
}

export { dbBench, removeDir, tempDir } from "../helpers/index.js";
import { copyInto } from "../helpers/index.js";

/** Live keys as RocksDB itself iterates them (ldb scan, one line per key). */
export function ldbScanCount(db: string, cf?: string): number {
  const args = [`--db=${db}`, "scan", "--hex"];
  if (cf) args.splice(1, 0, `--column_family=${cf}`);
  const out = execFileSync("ldb", args, { encoding: "latin1", maxBuffer: 512 * 1024 * 1024 });
  return out.split("\n").filter((l) => l.includes(" : ")).length;
}

/**
 * Value lengths of every live key as RocksDB returns them (`ldb scan` on a copy made in `scratch`: ldb
 * may open a store read-write), sorted: blob-indexed values resolved by RocksDB itself.
 */
export function ldbValueLengths(db: string, scratch: string): number[] {
  const copy = copyInto(db, scratch, "copy");
  const out = execFileSync("ldb", [`--db=${copy}`, "scan", "--hex"], {
    encoding: "latin1",
    maxBuffer: 512 * 1024 * 1024,
  });
  const lens: number[] = [];
  for (const line of out.split("\n")) {
    const m = / : 0x([0-9A-Fa-f]*)$/.exec(line);
    if (m) lens.push(m[1]!.length / 2);
  }
  return lens.sort((a, b) => a - b);
}

/** Nearest-rank percentile of sorted sizes (sizes' own definition, dist.ts). */
export const rank = (sorted: readonly number[], p: number): number =>
  sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)]!;

/**
 * The entries sst_dump counts in every table of a directory, from one run over it (`# entries` of
 * each table's properties; a process per table took seconds over an L0 pile-up's hundreds).
 */
export function sstDumpEntriesUnder(dir: string, tables: number): number {
  const out = execFileSync("sst_dump", [`--file=${dir}`, "--show_properties"], {
    encoding: "latin1",
    maxBuffer: 256 * 1024 * 1024,
  });
  const counts = [...out.matchAll(/^ {2}# entries: (\d+)$/gm)].map((m) => Number(m[1]));
  // one count per table, or a table sst_dump skipped would go unnoticed
  if (counts.length !== tables) throw new Error(`sst_dump counted ${counts.length} tables of ${tables}`);
  return counts.reduce((a, b) => a + b, 0);
}

/** Every property of one SST as sst_dump prints it ("data block size", "# entries", ...). */
export function sstDumpProperties(file: string): Record<string, string> {
  const out = execFileSync("sst_dump", [`--file=${file}`, "--show_properties"], {
    encoding: "latin1",
    maxBuffer: 64 * 1024 * 1024,
  });
  const props: Record<string, string> = {};
  for (const line of out.split("\n")) {
    const m = /^\s*([^:]+?):\s(.*)$/.exec(line);
    if (m) props[m[1]!.trim()] = m[2]!.trim();
  }
  return props;
}
