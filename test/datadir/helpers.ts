/**
 * Test helpers: temp stores written by RocksDB's own tools (db_bench, ldb), and parsers for what the
 * oracles print (`ldb manifest_dump --hex`, `ldb dump_wal --header`).
 */
import { execFileSync } from "node:child_process";

export { copyInto, dbBench, removeDir, snapshotTree, tempDir } from "../helpers/index.js";

/**
 * db_bench flags of an L0 pile-up of tiny tables (add `--num`): 24 KiB memtables flushed to L0 tables
 * (no compactions, no write stalls however many tables L0 holds, no WAL), 16-byte keys and 20-byte
 * values, uncompressed. A flush takes every memtable waiting, so how many tables come out varies with
 * the machine's load (2,500,000 entries gave 1,426 tables on an idle machine and 489 under CI's load);
 * add ONE_TABLE_PER_MEMTABLE where a test needs a count it can rely on.
 */
export const TINY_L0_PILEUP = [
  "--benchmarks=fillrandom",
  "--disable_auto_compactions=1",
  "--level0_slowdown_writes_trigger=10000000",
  "--level0_stop_writes_trigger=10000000",
  "--max_write_buffer_number=16",
  "--disable_wal=1",
  "--key_size=16",
  "--value_size=20",
  "--compression_type=none",
  "--write_buffer_size=24576",
];

/**
 * With at most two memtables, writes wait while one flushes, so every flush takes exactly one: about
 * 995 entries per table (700,000 entries gave 704 tables), whatever the load. Slower to write.
 */
export const ONE_TABLE_PER_MEMTABLE = ["--max_write_buffer_number=2"];

/**
 * db_bench flags of the damage tests' store: two column families, 64 KiB memtables and tables (many
 * small tables over several levels), values of 200 bytes in blob files of ~100 KB, no compression.
 */
export const TWO_CF_BLOB_STORE = [
  "--benchmarks=fillrandom",
  "--num=6000",
  "--value_size=200",
  "--num_column_families=2",
  "--write_buffer_size=65536",
  "--target_file_size_base=65536",
  "--compression_type=none",
  "--enable_blob_files=true",
  "--min_blob_size=150",
  "--blob_file_size=100000",
];

export function ldb(args: string[], input?: string): string {
  return execFileSync("ldb", args, { encoding: "latin1", input, maxBuffer: 256 * 1024 * 1024 });
}

export interface OracleFile {
  level: number;
  fileNumber: number;
  fileSize: number;
  smallestSeqno: number;
  largestSeqno: number;
  smallestKey: string;
  smallestKeySeq: number;
  smallestKeyType: number;
  largestKey: string;
  largestKeySeq: number;
  largestKeyType: number;
  blobFile?: number;
}

export interface OracleBlob {
  blobFileNumber: number;
  totalBlobCount: number;
  totalBlobBytes: number;
  garbageBlobCount: number;
  garbageBlobBytes: number;
  linkedSsts: number[];
}

export interface OracleCf {
  name: string;
  id: number;
  logNumber: number;
  comparator: string;
  files: OracleFile[];
  blobs: OracleBlob[];
}

export interface OracleManifest {
  cfs: OracleCf[];
  nextFileNumber: number;
  lastSequence: number;
  prevLogNumber: number;
  maxColumnFamily: number;
  minLogNumberToKeep: number;
}

/** Parse the version summary that `ldb manifest_dump --hex` prints after the edits. */
export function ldbManifest(dbOrManifest: { db?: string; path?: string }): OracleManifest {
  const args = ["manifest_dump", "--hex"];
  if (dbOrManifest.db) args.push(`--db=${dbOrManifest.db}`);
  if (dbOrManifest.path) args.push(`--path=${dbOrManifest.path}`);
  // a column family named by the byte 0x0a (Besu's TRIE_LOG_STORAGE) prints as a raw newline
  const out = ldb(args).replace(/Column family "\n"/g, 'Column family "\\x0a"');
  const cfs: OracleCf[] = [];
  let cf: OracleCf | undefined;
  let level = 0;
  const res: OracleManifest = {
    cfs,
    nextFileNumber: 0,
    lastSequence: 0,
    prevLogNumber: 0,
    maxColumnFamily: 0,
    minLogNumberToKeep: 0,
  };
  for (const line of out.split("\n")) {
    let m = /^-+ Column family "(.*)"\s+\(ID (\d+)\) -+$/.exec(line);
    if (m) {
      cf = { name: m[1]!, id: Number(m[2]), logNumber: 0, comparator: "", files: [], blobs: [] };
      cfs.push(cf);
      continue;
    }
    if (!cf) continue;
    if ((m = /^log number: (\d+)/.exec(line))) cf.logNumber = Number(m[1]);
    else if ((m = /^comparator: (.*)$/.exec(line))) cf.comparator = m[1]!;
    else if ((m = /^--- level (\d+) ---/.exec(line))) level = Number(m[1]);
    else if (
      (m =
        /^ (\d+):(\d+)\[(\d+) \.\. (\d+)\]\['([0-9A-F]*)' seq:(\d+), type:(\d+) \.\. '([0-9A-F]*)' seq:(\d+), type:(\d+)\](?: blob_file:(\d+))?/.exec(
          line,
        ))
    ) {
      cf.files.push({
        level,
        fileNumber: Number(m[1]),
        fileSize: Number(m[2]),
        smallestSeqno: Number(m[3]),
        largestSeqno: Number(m[4]),
        smallestKey: m[5]!.toLowerCase(),
        smallestKeySeq: Number(m[6]),
        smallestKeyType: Number(m[7]),
        largestKey: m[8]!.toLowerCase(),
        largestKeySeq: Number(m[9]),
        largestKeyType: Number(m[10]),
        blobFile: m[11] !== undefined ? Number(m[11]) : undefined,
      });
    } else if (
      (m =
        /^blob_file_number: (\d+) total_blob_count: (\d+) total_blob_bytes: (\d+) .*linked_ssts: \{ ([\d ]*)\} garbage_blob_count: (\d+) garbage_blob_bytes: (\d+)/.exec(
          line,
        ))
    ) {
      cf.blobs.push({
        blobFileNumber: Number(m[1]),
        totalBlobCount: Number(m[2]),
        totalBlobBytes: Number(m[3]),
        linkedSsts: m[4]!.trim() ? m[4]!.trim().split(/\s+/).map(Number) : [],
        garbageBlobCount: Number(m[5]),
        garbageBlobBytes: Number(m[6]),
      });
    } else if (
      (m =
        /next_file_number (\d+) last_sequence (\d+)\s+prev_log_number (\d+) max_column_family (\d+) min_log_number_to_keep (\d+)/.exec(
          line,
        ))
    ) {
      res.nextFileNumber = Number(m[1]);
      res.lastSequence = Number(m[2]);
      res.prevLogNumber = Number(m[3]);
      res.maxColumnFamily = Number(m[4]);
      res.minLogNumberToKeep = Number(m[5]);
    }
  }
  return res;
}

export interface OracleWalRecord {
  seq: number;
  count: number;
  byteSize: number;
  offset: number;
  ops: string[];
}

/** `ldb dump_wal --walfile=F --header`: one line per WriteBatch. */
export function ldbWal(walfile: string): OracleWalRecord[] {
  const out = ldb(["dump_wal", `--walfile=${walfile}`, "--header"]);
  const recs: OracleWalRecord[] = [];
  for (const line of out.split("\n")) {
    const m = /^(\d+),(\d+),(\d+),(\d+),(.*)$/.exec(line);
    if (!m) continue;
    recs.push({
      seq: Number(m[1]),
      count: Number(m[2]),
      byteSize: Number(m[3]),
      offset: Number(m[4]),
      ops: [...m[5]!.matchAll(/([A-Z_]+)\((\d+)\)/g)].map((x) => `${x[1]}(${x[2]})`),
    });
  }
  return recs;
}
