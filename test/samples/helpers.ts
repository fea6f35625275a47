/**
 * Oracles for the sample tests: RocksDB's own tools (ldb, sst_dump from Debian rocksdb-tools 7.8.3)
 * run on temporary copies of the committed samples, so nothing in `samples/` is ever touched.
 */
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, readdirSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";

import { copyInto, trackedTempDirs } from "../helpers/index.js";

export const REPO = new URL("../../", import.meta.url).pathname;
export const SAMPLES = join(REPO, "samples");

export function haveTool(name: string): boolean {
  const r = spawnSync(name, ["--help"], { encoding: "utf8" });
  return !r.error;
}
export const haveRocksTools = haveTool("ldb") && haveTool("sst_dump");

export const { tempDir, cleanupTemps } = trackedTempDirs("lsmscope-samples-");

/** A private copy of a store directory. */
export function copyStore(dir: string): string {
  return copyInto(dir, tempDir());
}

function run(cmd: string, args: string[]): string {
  const r = spawnSync(cmd, args, { encoding: "latin1", maxBuffer: 512 * 1024 * 1024 });
  if (r.error) throw r.error;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")} exited ${r.status}: ${r.stderr}`);
  return r.stdout;
}

/** `ldb scan --hex` of one column family (name as a JS string; Besu names are one raw byte). */
export function ldbScan(dir: string, cf: string): [Buffer, Buffer][] {
  const out = run("ldb", [`--db=${dir}`, `--column_family=${cf}`, "--try_load_options", "scan", "--hex"]);
  const rows: [Buffer, Buffer][] = [];
  for (const line of out.split("\n")) {
    const m = /^0x([0-9A-F]*) : 0x([0-9A-F]*)$/.exec(line.trim());
    if (m) rows.push([Buffer.from(m[1]!, "hex"), Buffer.from(m[2]!, "hex")]);
  }
  return rows;
}

/** `ldb list_column_families`, the names between the braces. */
export function ldbColumnFamilies(dir: string): string {
  return run("ldb", [`--db=${dir}`, "list_column_families"]);
}

/** `ldb dump_wal`: number of PUT records in one WAL file. */
export function ldbWalPuts(walFile: string): number {
  const out = run("ldb", ["dump_wal", `--walfile=${walFile}`, "--print_value=false"]);
  return (out.match(/PUT\(\d+\)/g) ?? []).length;
}

/** `sst_dump --show_properties` as name → value. */
export function sstProperties(file: string): Record<string, string> {
  const out = run("sst_dump", [`--file=${file}`, "--show_properties"]);
  const props: Record<string, string> = {};
  for (const line of out.split("\n")) {
    const m = /^\s+([^:]+?):\s?(.*)$/.exec(line);
    if (m && !(m[1]! in props)) props[m[1]!] = m[2]!;
  }
  return props;
}

/** Footer format version from `sst_dump --command=raw` (run on a copy: it writes a dump file beside it). */
export function sstFormatVersion(file: string): number {
  const d = tempDir();
  const copy = join(d, basename(file));
  cpSync(file, copy);
  run("sst_dump", [`--file=${copy}`, "--command=raw"]);
  const dump = readFileSync(copy.replace(/\.sst$/, "_dump.txt"), "latin1");
  const m = /format version: (\d+)/.exec(dump);
  if (!m) throw new Error(`no format version in raw dump of ${file}`);
  return Number(m[1]);
}

/** Level of every live SST per column family ID, from `ldb manifest_dump --hex`. */
export function manifestLevels(dir: string): Map<number, Map<number, number>> {
  const out = run("ldb", ["manifest_dump", `--db=${dir}`, "--hex"]);
  const result = new Map<number, Map<number, number>>();
  let cf = -1;
  let level = -1;
  const re = /Column family "[\s\S]*?"\s+\(ID (\d+)\)|--- level (\d+) ---|(?:^|\n)\s*(\d+):(\d+)\[/g;
  for (let m = re.exec(out); m; m = re.exec(out)) {
    if (m[1] !== undefined) {
      cf = Number(m[1]);
      result.set(cf, new Map());
    } else if (m[2] !== undefined) level = Number(m[2]);
    else if (m[3] !== undefined) result.get(cf)?.set(Number(m[3]), level);
  }
  return result;
}

export function sstFiles(dir: string): string[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith(".sst"))
    .sort()
    .map((f) => join(dir, f));
}

export function fileNumber(path: string): number {
  return Number(/(\d+)\.(sst|ldb|log|blob)$/.exec(path)![1]);
}

export function readTruth(name: string): import("../../src/samples/truth.js").SampleTruth {
  return JSON.parse(readFileSync(join(SAMPLES, `${name}.truth.json`), "utf8"));
}

export { existsSync };
