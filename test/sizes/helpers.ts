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

/** Live keys as RocksDB itself iterates them (ldb scan, one line per key). */
export function ldbScanCount(db: string, cf?: string): number {
  const args = [`--db=${db}`, "scan", "--hex"];
  if (cf) args.splice(1, 0, `--column_family=${cf}`);
  const out = execFileSync("ldb", args, { encoding: "latin1", maxBuffer: 512 * 1024 * 1024 });
  return out.split("\n").filter((l) => l.includes(" : ")).length;
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
