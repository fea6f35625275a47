/**
 * Test helpers: write real tables with RocksDB's own tools (db_bench, ldb) and read what RocksDB's
 * sst_dump says about them, to compare the pure-TypeScript reader against.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SstTable } from "../../src/format/index.js";

export function makeTempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `lsmscope-${prefix}-`));
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

export function tablesIn(dir: string, ext = ".sst"): string[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith(ext))
    .sort()
    .map((f) => join(dir, f));
}

/** Run db_bench into `dir` (fresh) and return the SST files it left. */
export function dbBench(dir: string, flags: string[]): string[] {
  execFileSync(
    "db_bench",
    [
      "--benchmarks=fillrandom",
      "--num=20000",
      `--db=${dir}`,
      "--disable_wal=1",
      "--key_size=20",
      "--value_size=64",
      ...flags,
    ],
    { stdio: ["ignore", "ignore", "pipe"], maxBuffer: 64 << 20 },
  );
  return tablesIn(dir);
}

export interface SstDumpProperties {
  /** "label" -> value as printed in the "Table Properties" section. */
  labels: Map<string, string>;
  /** User-collected properties: name -> hex (upper case) as printed. */
  user: Map<string, string>;
}

export function sstDumpProperties(file: string): SstDumpProperties {
  // latin1: string properties are raw bytes (Besu names column families by single bytes)
  const out = execFileSync("sst_dump", [`--file=${file}`, "--show_properties"], {
    encoding: "latin1",
    maxBuffer: 64 << 20,
  });
  return parseProperties(out);
}

/** The "Table Properties" section of sst_dump's output (what comes before it is skipped). */
function parseProperties(out: string): SstDumpProperties {
  const labels = new Map<string, string>();
  const user = new Map<string, string>();
  let section: "none" | "props" | "user" = "none";
  let last: string | undefined;
  for (const line of out.split("\n")) {
    if (line.startsWith("Table Properties:")) section = "props";
    else if (line.includes("Raw user collected properties")) section = "user";
    else if (line.startsWith("------")) continue;
    else if (section === "props") {
      const m = /^ {2}(.+?): ?(.*)$/.exec(line);
      if (m) {
        labels.set(m[1]!, m[2]!);
        last = m[1]!;
      } else if (last !== undefined) {
        // a raw value holding a newline (Besu's column family "\n") continues on the next line
        labels.set(last, labels.get(last)! + "\n" + line);
      }
    } else if (section === "user") {
      const m = /^ {2}# (.+?): 0x([0-9A-F]*)$/.exec(line);
      if (m) user.set(m[1]!, m[2]!);
    }
  }
  return { labels, user };
}

/** sst_dump label -> RocksDB property name (numeric unless listed in STRING_LABELS). */
export const LABEL_TO_PROPERTY: Record<string, string> = {
  "# data blocks": "rocksdb.num.data.blocks",
  "# entries": "rocksdb.num.entries",
  "# deletions": "rocksdb.deleted.keys",
  "# merge operands": "rocksdb.merge.operands",
  "# range deletions": "rocksdb.num.range-deletions",
  "raw key size": "rocksdb.raw.key.size",
  "raw value size": "rocksdb.raw.value.size",
  "data block size": "rocksdb.data.size",
  "# index partitions": "rocksdb.index.partitions",
  "top-level index size": "rocksdb.top-level.index.size",
  "filter block size": "rocksdb.filter.size",
  "# entries for filter": "rocksdb.num.filter_entries",
  "filter policy name": "rocksdb.filter.policy",
  "prefix extractor name": "rocksdb.prefix.extractor.name",
  "column family ID": "rocksdb.column.family.id",
  "column family name": "rocksdb.column.family.name",
  "comparator name": "rocksdb.comparator",
  "merge operator name": "rocksdb.merge.operator",
  "property collectors names": "rocksdb.property.collectors",
  "SST file compression algo": "rocksdb.compression",
  "SST file compression options": "rocksdb.compression_options",
  "creation time": "rocksdb.creation.time",
  "time stamp of earliest key": "rocksdb.oldest.key.time",
  "file creation time": "rocksdb.file.creation.time",
  "slow compression estimated data size": "rocksdb.sample_for_compression.slow.data.size",
  "fast compression estimated data size": "rocksdb.sample_for_compression.fast.data.size",
  "DB identity": "rocksdb.creating.db.identity",
  "DB session identity": "rocksdb.creating.session.identity",
  "DB host id": "rocksdb.creating.host.identity",
  "original file number": "rocksdb.original.file.number",
};

/** Labels sst_dump derives from other properties (checked separately or not at all). */
export const DERIVED_LABELS = new Set([
  "raw average key size",
  "raw average value size",
  "(estimated) table size",
  "unique ID",
  "Sequence number to time mapping",
]);

/** What sst_dump prints for a string property the table does not have. */
const STRING_DEFAULTS: Record<string, string> = {
  "rocksdb.filter.policy": "N/A",
};

/**
 * Compare every property sst_dump prints with the reader's. Returns a list of mismatches (empty when
 * everything agrees).
 */
export function compareProperties(t: SstTable, d: SstDumpProperties): string[] {
  const bad: string[] = [];
  for (const [label, value] of d.labels) {
    if (label.startsWith("index block size")) {
      const m = /^index block size \(user-key\? (\d+), delta-value\? (\d+)\)$/.exec(label);
      if (!m) {
        bad.push(`unparsed label ${label}`);
        continue;
      }
      const expect = [Number(value), Number(m[1]), Number(m[2])];
      const got = [
        t.properties["rocksdb.index.size"],
        t.properties["rocksdb.index.key.is.user.key"] ?? 0,
        t.properties["rocksdb.index.value.is.delta.encoded"] ?? 0,
      ];
      if (JSON.stringify(expect) !== JSON.stringify(got))
        bad.push(`${label}: sst_dump ${expect} reader ${got}`);
      continue;
    }
    if (DERIVED_LABELS.has(label)) continue;
    const name = LABEL_TO_PROPERTY[label];
    if (!name) {
      bad.push(`sst_dump label not mapped: ${label}`);
      continue;
    }
    const got = t.properties[name];
    // sst_dump prints N/A for a table written outside any column family (id kUnknownColumnFamily,
    // empty name), as Pebble and RocksDB's SstFileWriter write them
    if (
      value === "N/A" &&
      name.startsWith("rocksdb.column.family.") &&
      (got === 2147483647 || got === "" || got === undefined)
    )
      continue;
    if (typeof got === "number" || /^-?\d+$/.test(value)) {
      const want = Number(value);
      const have = got === undefined ? 0 : Number(got);
      if (want !== have) bad.push(`${name}: sst_dump ${value} reader ${String(got)}`);
    } else {
      // compare the raw bytes (the reader shows non-printable values as 0x-hex)
      const raw = t.rawProperties.get(name);
      const have = raw === undefined ? (STRING_DEFAULTS[name] ?? "") : raw.toString("latin1");
      if (have !== value)
        bad.push(`${name}: sst_dump ${JSON.stringify(value)} reader ${JSON.stringify(have)}`);
    }
  }
  for (const [name, hex] of d.user) {
    const raw = t.rawProperties.get(name);
    if (!raw) bad.push(`user property ${name} missing`);
    else if (raw.toString("hex").toUpperCase() !== hex)
      bad.push(`user property ${name}: sst_dump ${hex} reader ${raw.toString("hex")}`);
  }
  return bad;
}

export interface SstDumpScan {
  entries: number;
  /** User keys, lower-case hex. */
  firstKey: string | undefined;
  lastKey: string | undefined;
}

/** `sst_dump --command=scan --output_hex`: entries printed, first and last user key. */
export function sstDumpScan(file: string): SstDumpScan {
  const out = execFileSync("sst_dump", [`--file=${file}`, "--command=scan", "--output_hex"], {
    encoding: "utf8",
    maxBuffer: 512 << 20,
  });
  return parseScan(out);
}

/**
 * sstDumpProperties and sstDumpScan from one sst_dump run (`--command=scan --output_hex
 * --show_properties`: the scan's lines, then the same properties section `--show_properties` alone
 * prints): one process per table instead of two, for the tables every format test checks.
 */
export function sstDumpPropertiesAndScan(file: string): { props: SstDumpProperties; scan: SstDumpScan } {
  // latin1 for the properties' raw bytes; the scan's lines are hex, the same in either encoding
  const out = execFileSync(
    "sst_dump",
    [`--file=${file}`, "--command=scan", "--output_hex", "--show_properties"],
    { encoding: "latin1", maxBuffer: 512 << 20 },
  );
  // the scan's lines come first: each parser reads its own part
  const at = out.indexOf("\nTable Properties:");
  if (at < 0) throw new Error(`sst_dump printed no properties for ${file}`);
  return { props: parseProperties(out.slice(at + 1)), scan: parseScan(out.slice(0, at)) };
}

/** `'KEY' seq:N, type:N => VALUE` lines of sst_dump's scan: how many, the first and last user key. */
function parseScan(out: string): SstDumpScan {
  let entries = 0;
  let firstKey: string | undefined;
  let lastKey: string | undefined;
  for (const line of out.split("\n")) {
    const m = /^'([0-9A-F]*)' seq:\d+, type:\d+ =>/.exec(line);
    if (!m) continue;
    entries++;
    const k = m[1]!.toLowerCase();
    if (firstKey === undefined) firstKey = k;
    lastKey = k;
  }
  return { entries, firstKey, lastKey };
}

/** Deterministic pseudo-random keys spread over the key space (callers drop any that are present). */
export function absentKeys(n: number, length: number, seed = 12345): Buffer[] {
  let x = seed >>> 0;
  const out: Buffer[] = [];
  for (let i = 0; i < n; i++) {
    const b = Buffer.allocUnsafe(length);
    for (let j = 0; j < length; j++) {
      x = (Math.imul(x, 1103515245) + 12345) >>> 0;
      b[j] = x >>> 24;
    }
    out.push(b);
  }
  return out;
}

/**
 * Absent keys spread like the present ones: a present key with its last (up to) 4 bytes replaced by
 * pseudo-random bytes, dropped when that key exists. Keys beyond the table's range would all land in
 * the last filter partition, which says little about the filter as a whole.
 */
export function absentKeysLike(present: Buffer[], n: number, seed = 4242): Buffer[] {
  const set = new Set(present.map((k) => k.toString("hex")));
  let x = seed >>> 0;
  const out: Buffer[] = [];
  for (let i = 0; out.length < n && i < n * 4 && present.length > 0; i++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    const base = present[x % present.length]!;
    const k = Buffer.from(base.length >= 8 ? base : Buffer.concat([base, Buffer.alloc(8 - base.length)]));
    for (let j = Math.max(0, k.length - 4); j < k.length; j++) {
      x = (Math.imul(x, 1103515245) + 12345) >>> 0;
      k[j] = x >>> 24;
    }
    if (!set.has(k.toString("hex"))) out.push(k);
  }
  return out;
}

/**
 * Create a store with db_bench from an OPTIONS file (one seed key), then `ldb load --disable_wal` the
 * given hex pairs into it: ldb reuses the store's OPTIONS, and without a WAL closing flushes a table.
 */
export function ldbLoad(dir: string, optionsFile: string, pairs: [Buffer, Buffer][]): string[] {
  execFileSync(
    "db_bench",
    ["--benchmarks=fillseq", "--num=1", `--db=${dir}`, `--options_file=${optionsFile}`],
    {
      stdio: "ignore",
    },
  );
  const input = pairs.map(([k, v]) => `0x${k.toString("hex")} ==> 0x${v.toString("hex")}`).join("\n") + "\n";
  execFileSync("ldb", [`--db=${dir}`, "load", "--disable_wal", "--hex"], {
    input,
    stdio: ["pipe", "ignore", "pipe"],
  });
  return tablesIn(dir);
}
