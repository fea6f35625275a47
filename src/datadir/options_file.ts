/**
 * OPTIONS-<number> files (options/options_parser.cc): the options the last program that opened the
 * store wrote down. INI-like text, one statement per line:
 *
 *   # comment                         ('#' starts a comment unless escaped as '\#')
 *   [Version]                         rocksdb_version=7.8.3, options_file_version=1.1
 *   [DBOptions]                       name=value ...
 *   [CFOptions "<cf name>"]           one per column family, "default" first
 *   [TableOptions/<Factory> "<cf>"]   e.g. TableOptions/BlockBasedTable; table factory options
 *
 * Names in section arguments are escaped with '\' before '\\', '#', ':', '\r' (as 'r') and '\n' (as
 * 'n'); every other byte is written raw, so Besu's one-byte CF names (0x06) appear as raw bytes. We read
 * the file as latin1 so every byte survives. Values keep their RocksDB spelling in `raw`; the typed view
 * parses the knobs the inspector compares. Nested values use braces: `{a=1;b=2}`.
 */
import { readdirSync } from "node:fs";
import { FileTooLargeError, readRegularFileUpTo } from "../util/regular_file.js";
import type { Finding } from "./model.js";
import { LIMITS } from "../util/limits.js";
import { cfNameText } from "./names.js";
import { numberedNewestFirst } from "./newest_numbered.js";

export interface FilterPolicyInfo {
  raw: string;
  kind: "none" | "bloom" | "ribbon" | "other";
  bitsPerKey?: number;
  /** bloomfilter:N:true — the legacy block-based filter. */
  blockBased?: boolean;
  /** ribbonfilter:N:L — levels below L use Bloom. */
  bloomBeforeLevel?: number;
}

export interface TableOptionsModel {
  /** "BlockBasedTable", "PlainTable", ... */
  factory: string;
  raw: Record<string, string>;
  filterPolicy: FilterPolicyInfo;
  blockSize?: number;
  formatVersion?: number;
  indexType?: string;
  partitionFilters?: boolean;
  wholeKeyFiltering?: boolean;
  checksum?: string;
  blockRestartInterval?: number;
  indexBlockRestartInterval?: number;
  metadataBlockSize?: number;
  dataBlockIndexType?: string;
  dataBlockHashTableUtilRatio?: number;
  cacheIndexAndFilterBlocks?: boolean;
  pinL0FilterAndIndexBlocksInCache?: boolean;
  optimizeFiltersForMemory?: boolean;
  noBlockCache?: boolean;
  blockCacheSize?: number;
}

export interface CfOptionsModel {
  /** Raw name bytes as hex, and printable form. */
  nameHex: string;
  name: string;
  raw: Record<string, string>;
  compression?: string;
  compressionPerLevel?: string[];
  bottommostCompression?: string;
  compressionOpts?: Record<string, string>;
  bottommostCompressionOpts?: Record<string, string>;
  optimizeFiltersForHits?: boolean;
  numLevels?: number;
  writeBufferSize?: number;
  maxWriteBufferNumber?: number;
  targetFileSizeBase?: number;
  maxBytesForLevelBase?: number;
  levelCompactionDynamicLevelBytes?: boolean;
  compactionStyle?: string;
  comparator?: string;
  mergeOperator?: string;
  prefixExtractor?: string;
  level0FileNumCompactionTrigger?: number;
  level0SlowdownWritesTrigger?: number;
  level0StopWritesTrigger?: number;
  blob: {
    enableBlobFiles?: boolean;
    minBlobSize?: number;
    blobFileSize?: number;
    blobCompressionType?: string;
    enableBlobGarbageCollection?: boolean;
    blobGarbageCollectionAgeCutoff?: number;
    blobGarbageCollectionForceThreshold?: number;
    blobFileStartingLevel?: number;
  };
  table?: TableOptionsModel;
}

export interface DbOptionsModel {
  raw: Record<string, string>;
  maxOpenFiles?: number;
  maxTotalWalSize?: number;
  recycleLogFileNum?: number;
  walDir?: string;
  dbPaths?: string;
  walCompression?: string;
  trackAndVerifyWalsInManifest?: boolean;
  atomicFlush?: boolean;
  allow2pc?: boolean;
  maxBackgroundJobs?: number;
  walRecoveryMode?: string;
  manualWalFlush?: boolean;
}

export interface OptionsFileModel {
  file: string;
  path: string;
  rocksdbVersion?: string;
  optionsFileVersion?: string;
  db: DbOptionsModel;
  columnFamilies: CfOptionsModel[];
  /** Other OPTIONS files present (older ones), by name. */
  others: string[];
}

/** Newest OPTIONS-<n> file in `dir` (highest number), and the rest. */
export function findOptionsFiles(dir: string, names?: string[]): { newest?: string; others: string[] } {
  const list = numberedNewestFirst(names ?? readdirSync(dir), "OPTIONS");
  return { newest: list[0], others: list.slice(1) };
}

function trimAndRemoveComment(line: string): string {
  let out = line;
  for (let i = 0; i < out.length; i++) {
    if (out[i] === "\\") {
      i++;
      continue;
    }
    if (out[i] === "#") {
      out = out.slice(0, i);
      break;
    }
  }
  return out.trim();
}

function unescapeOptionString(s: string): string {
  let out = "";
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === "\\" && i + 1 < s.length) {
      const n = s[++i]!;
      out += n === "n" ? "\n" : n === "r" ? "\r" : n;
    } else out += c;
  }
  return out;
}

const num = (v: string | undefined): number | undefined => {
  if (v === undefined) return undefined;
  const n = Number(v);
  return Number.isFinite(n) ? n : undefined;
};
const bool = (v: string | undefined): boolean | undefined =>
  v === undefined
    ? undefined
    : v === "true" || v === "1"
      ? true
      : v === "false" || v === "0"
        ? false
        : undefined;

/** Parse `{a=1;b={c=2};}` (outer braces optional) into a flat map of the top-level names. */
export function parseOptionMap(value: string): Record<string, string> {
  let s = value.trim();
  if (s.startsWith("{") && s.endsWith("}")) s = s.slice(1, -1);
  const out: Record<string, string> = {};
  let i = 0;
  while (i < s.length) {
    const eq = s.indexOf("=", i);
    if (eq < 0) break;
    const name = s.slice(i, eq).trim();
    let j = eq + 1;
    let depth = 0;
    let v = "";
    for (; j < s.length; j++) {
      const c = s[j]!;
      if (c === "{") depth++;
      else if (c === "}") depth--;
      else if (c === ";" && depth === 0) break;
      v += c;
    }
    if (name) out[name] = v.trim().replace(/^\{(.*)\}$/s, "$1");
    i = j + 1;
  }
  return out;
}

/** filter_policy values as RocksDB writes them across versions. */
export function parseFilterPolicy(raw: string | undefined): FilterPolicyInfo {
  const r = (raw ?? "nullptr").trim();
  if (r === "" || r === "nullptr") return { raw: r, kind: "none" };
  let s = r;
  if (s.startsWith("{")) {
    const m = parseOptionMap(s);
    s = m["id"] ?? s;
    if (m["bits_per_key"] && !s.includes(":")) s = `${s}:${m["bits_per_key"]}`;
  }
  const parts = s.split(":");
  const id = parts[0]!;
  const bits = parts[1] !== undefined ? Number(parts[1]) : undefined;
  const info: FilterPolicyInfo = { raw: r, kind: "other" };
  if (/bloom/i.test(id)) {
    info.kind = "bloom";
    if (id === "bloomfilter" && parts[2] !== undefined) info.blockBased = parts[2] === "true";
  } else if (/ribbon/i.test(id)) {
    info.kind = "ribbon";
    if (parts[2] !== undefined) info.bloomBeforeLevel = Number(parts[2]);
  }
  if (bits !== undefined && Number.isFinite(bits)) info.bitsPerKey = bits;
  return info;
}

function typedTable(factory: string, raw: Record<string, string>): TableOptionsModel {
  return {
    factory,
    raw,
    filterPolicy: parseFilterPolicy(raw["filter_policy"]),
    blockSize: num(raw["block_size"]),
    formatVersion: num(raw["format_version"]),
    indexType: raw["index_type"],
    partitionFilters: bool(raw["partition_filters"]),
    wholeKeyFiltering: bool(raw["whole_key_filtering"]),
    checksum: raw["checksum"],
    blockRestartInterval: num(raw["block_restart_interval"]),
    indexBlockRestartInterval: num(raw["index_block_restart_interval"]),
    metadataBlockSize: num(raw["metadata_block_size"]),
    dataBlockIndexType: raw["data_block_index_type"],
    dataBlockHashTableUtilRatio: num(raw["data_block_hash_table_util_ratio"]),
    cacheIndexAndFilterBlocks: bool(raw["cache_index_and_filter_blocks"]),
    pinL0FilterAndIndexBlocksInCache: bool(raw["pin_l0_filter_and_index_blocks_in_cache"]),
    optimizeFiltersForMemory: bool(raw["optimize_filters_for_memory"]),
    noBlockCache: bool(raw["no_block_cache"]),
    blockCacheSize: num(raw["block_cache"]) ?? num(parseOptionMap(raw["block_cache"] ?? "")["capacity"]),
  };
}

function typedCf(nameLatin1: string, raw: Record<string, string>): CfOptionsModel {
  const nameBytes = Buffer.from(nameLatin1, "latin1");
  const cpl = raw["compression_per_level"];
  return {
    nameHex: nameBytes.toString("hex"),
    name: cfNameText(nameBytes),
    raw,
    compression: raw["compression"],
    compressionPerLevel: cpl ? cpl.split(":").filter((x) => x !== "") : undefined,
    bottommostCompression: raw["bottommost_compression"],
    compressionOpts:
      raw["compression_opts"] !== undefined ? parseOptionMap(raw["compression_opts"]) : undefined,
    bottommostCompressionOpts:
      raw["bottommost_compression_opts"] !== undefined
        ? parseOptionMap(raw["bottommost_compression_opts"])
        : undefined,
    optimizeFiltersForHits: bool(raw["optimize_filters_for_hits"]),
    numLevels: num(raw["num_levels"]),
    writeBufferSize: num(raw["write_buffer_size"]),
    maxWriteBufferNumber: num(raw["max_write_buffer_number"]),
    targetFileSizeBase: num(raw["target_file_size_base"]),
    maxBytesForLevelBase: num(raw["max_bytes_for_level_base"]),
    levelCompactionDynamicLevelBytes: bool(raw["level_compaction_dynamic_level_bytes"]),
    compactionStyle: raw["compaction_style"],
    comparator: raw["comparator"],
    mergeOperator: raw["merge_operator"],
    prefixExtractor: raw["prefix_extractor"],
    level0FileNumCompactionTrigger: num(raw["level0_file_num_compaction_trigger"]),
    level0SlowdownWritesTrigger: num(raw["level0_slowdown_writes_trigger"]),
    level0StopWritesTrigger: num(raw["level0_stop_writes_trigger"]),
    blob: {
      enableBlobFiles: bool(raw["enable_blob_files"]),
      minBlobSize: num(raw["min_blob_size"]),
      blobFileSize: num(raw["blob_file_size"]),
      blobCompressionType: raw["blob_compression_type"],
      enableBlobGarbageCollection: bool(raw["enable_blob_garbage_collection"]),
      blobGarbageCollectionAgeCutoff: num(raw["blob_garbage_collection_age_cutoff"]),
      blobGarbageCollectionForceThreshold: num(raw["blob_garbage_collection_force_threshold"]),
      blobFileStartingLevel: num(raw["blob_file_starting_level"]),
    },
  };
}

/** Raw options of a column family as read, its table options apart (typed once the file is read). */
interface RawCf {
  raw: Record<string, string>;
  table?: { factory: string; raw: Record<string, string> };
}

type SectionKind = "version" | "db" | "cf" | "table" | "unknown";

/**
 * The statements of an OPTIONS file, section by section (RocksDB options/options_parser.cc
 * RocksDBOptionsParser: ParseSection, ParseStatement): `[Title "arg"]` opens a section, `name=value`
 * fills it. Every problem is a finding with the line's byte offset; reading goes on.
 */
class OptionsText {
  readonly cfByName = new Map<string, RawCf>();
  readonly cfOrder: string[] = [];
  /** The [Version] section, when there is one. */
  version: Record<string, string> | undefined;
  private section: SectionKind | undefined;
  private current: Record<string, string> | undefined;

  constructor(
    private readonly path: string,
    private readonly db: Record<string, string>,
    private readonly findings: Finding[],
  ) {}

  read(text: string): void {
    let offset = 0;
    const lines = text.split("\n");
    for (let ln = 0; ln < lines.length; ln++) {
      const rawLine = lines[ln]!;
      const lineOffset = offset;
      offset += rawLine.length + 1;
      const line = trimAndRemoveComment(rawLine.replace(/\r$/, ""));
      if (!line) continue;
      if (line.startsWith("[") && line.endsWith("]")) this.openSection(line, lineOffset, ln + 1);
      else this.statement(line, lineOffset, ln + 1);
    }
  }

  bad(severity: Finding["severity"], offset: number | undefined, message: string): void {
    this.findings.push({ severity, code: "options-bad", file: this.path, offset, message });
  }

  /** `[Title]` or `[Title "arg"]`: the section the next statements fill. */
  private openSection(line: string, lineOffset: number, lineNo: number): void {
    const q1 = line.indexOf('"');
    const q2 = line.lastIndexOf('"');
    let title: string;
    let arg = "";
    if (q1 >= 0 && q2 > q1) {
      title = trimAndRemoveComment(line.slice(1, q1));
      arg = unescapeOptionString(line.slice(q1 + 1, q2));
    } else title = trimAndRemoveComment(line.slice(1, -1));
    if (title === "Version") {
      this.section = "version";
      this.current = this.version = {};
    } else if (title === "DBOptions") {
      this.section = "db";
      this.current = this.db;
    } else if (title === "CFOptions") {
      this.section = "cf";
      this.current = this.cfSection(arg, lineOffset, lineNo);
    } else if (title.startsWith("TableOptions/") && title.length > "TableOptions/".length) {
      this.section = "table";
      this.current = this.tableSection(title.slice("TableOptions/".length), arg, lineOffset, lineNo);
    } else {
      this.section = "unknown";
      this.current = {};
      this.bad(
        "error",
        lineOffset,
        `unknown section at line ${lineNo}: ${JSON.stringify(line.slice(0, 60))}`,
      );
    }
  }

  private cfSection(name: string, lineOffset: number, lineNo: number): Record<string, string> {
    if (this.cfByName.has(name))
      this.bad("warn", lineOffset, `column family section repeated (line ${lineNo})`);
    else {
      this.cfByName.set(name, { raw: {} });
      this.cfOrder.push(name);
    }
    return this.cfByName.get(name)!.raw;
  }

  private tableSection(
    factory: string,
    cfName: string,
    lineOffset: number,
    lineNo: number,
  ): Record<string, string> {
    const cf = this.cfByName.get(cfName);
    if (!cf) {
      this.bad("warn", lineOffset, `table options for a column family without CFOptions (line ${lineNo})`);
      return {};
    }
    cf.table = { factory, raw: {} };
    return cf.table.raw;
  }

  /** `name=value` into the open section. */
  private statement(line: string, lineOffset: number, lineNo: number): void {
    const eq = line.indexOf("=");
    if (eq < 0 || !this.section) {
      this.bad(
        "error",
        lineOffset,
        this.section
          ? `line ${lineNo} is not name=value: ${JSON.stringify(line.slice(0, 60))}`
          : `statement before any section at line ${lineNo}`,
      );
      return;
    }
    const name = trimAndRemoveComment(line.slice(0, eq));
    const value = line.slice(eq + 1).trim();
    if (!name) {
      this.bad("error", lineOffset, `empty option name at line ${lineNo}`);
      return;
    }
    this.current![name] = value;
  }
}

function typedDb(d: Record<string, string>): OptionsFileModel["db"] {
  return {
    raw: d,
    maxOpenFiles: num(d["max_open_files"]),
    maxTotalWalSize: num(d["max_total_wal_size"]),
    recycleLogFileNum: num(d["recycle_log_file_num"]),
    walDir: d["wal_dir"],
    dbPaths: d["db_paths"],
    walCompression: d["wal_compression"],
    trackAndVerifyWalsInManifest: bool(d["track_and_verify_wals_in_manifest"]),
    atomicFlush: bool(d["atomic_flush"]),
    allow2pc: bool(d["allow_2pc"]),
    maxBackgroundJobs: num(d["max_background_jobs"]),
    walRecoveryMode: d["wal_recovery_mode"],
    manualWalFlush: bool(d["manual_wal_flush"]),
  };
}

/**
 * Parse an OPTIONS file. Problems (unknown sections, lines without '=') become findings with the byte
 * offset of the line; what could be read is still returned.
 */
export function parseOptionsFile(
  path: string,
  file: string,
  others: string[] = [],
): { model: OptionsFileModel; findings: Finding[] } {
  const findings: Finding[] = [];
  const model: OptionsFileModel = { file, path, db: { raw: {} }, columnFamilies: [], others };
  let content: string;
  try {
    content = readRegularFileUpTo(path, LIMITS.maxTextFileBytes, "latin1");
  } catch (e) {
    if (!(e instanceof FileTooLargeError)) throw e;
    findings.push({
      severity: "error",
      code: "options-bad",
      file: path,
      message: `OPTIONS file is ${e.size} bytes`,
    });
    return { model, findings };
  }
  const text = new OptionsText(path, model.db.raw, findings);
  text.read(content);
  if (text.version) {
    model.rocksdbVersion = text.version["rocksdb_version"];
    model.optionsFileVersion = text.version["options_file_version"];
  } else text.bad("warn", 0, "no [Version] section");
  if (!text.cfByName.has("default")) text.bad("warn", undefined, 'no [CFOptions "default"] section');
  model.db = typedDb(model.db.raw);
  for (const name of text.cfOrder) {
    const cf = text.cfByName.get(name)!;
    const typed = typedCf(name, cf.raw);
    if (cf.table) typed.table = typedTable(cf.table.factory, cf.table.raw);
    model.columnFamilies.push(typed);
  }
  return { model, findings };
}

/** Find the options of a column family by its raw name bytes (hex). */
export function optionsForCf(
  model: OptionsFileModel | undefined,
  nameHex: string,
): CfOptionsModel | undefined {
  return model?.columnFamilies.find((c) => c.nameHex === nameHex);
}
