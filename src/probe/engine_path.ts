/**
 * The engine path: the same lookups through RocksDB itself (the system librocksdb 7.8.3 addon), opened
 * read-only with exactly the store's newest OPTIONS file — never with defaults, since a table reader
 * whose options carry no filter_policy never consults the filters that are in the files, and every
 * absent key then costs a data block read.
 *
 * Refused with one line (nothing measured) when: the addon is missing; the store is LevelDB; there is
 * no OPTIONS file or it does not load; the column family is not in it; its table factory is not the
 * block-based one; a live table has format_version > 5 (7.8.3 cannot read format 6).
 *
 * One DB option is set on top of the loaded ones: max_open_files=-1, so every table reader is opened
 * (footer, index, filter) at DB::Open and table-open reads are not charged to the first lookup that
 * touches a file; but when the store has more files than the descriptors allowed (util/open_files.ts),
 * that bound instead, with a note. Table options (filter, block size, index, caching) are exactly the loaded ones.
 *
 * Each lookup is its own getManyWithStats call (PerfContext, per-level PerfContext, Statistics tickers
 * around one Get with fill_cache=false), so the engine's counts can be compared lookup by lookup.
 * Data-block reads come from the ticker rocksdb.block.cache.data.miss when a block cache is configured
 * (with fill_cache=false nothing is inserted, so every data block a Get needs misses and is read from
 * the file), else from PerfContext block_read_count minus index_block_read_count, filter_block_read_count
 * and compression_dict_block_read_count (block_read_count counts every block read from the file).
 */
import { engineMaxOpenFiles } from "../util/open_files.js";
import { fromHex } from "../util/bytes.js";
import { cfNameText } from "../datadir/names.js";
import { LsmscopeError } from "../util/errors.js";
import { parseOptionMap, findOptionsFiles } from "../datadir/options_file.js";
import {
  ENGINE_MAX_FORMAT_VERSION,
  loadLatestOptions,
  openDb,
  requireEngine,
  type EngineDb,
  type GetStats,
} from "../engine/index.js";
import type { EngineCounters, EnginePolicy, LookupTrace, ProbeTarget } from "./types.js";
import { TailEstimate } from "../util/tail_estimate.js";
import { TablesInTurn } from "../format/tables_in_turn.js";

/** How much of each table's end checkEngineOptions reads at once, learned from the tables before. */
const openTail = new TailEstimate();

export { ENGINE_MAX_FORMAT_VERSION };

export interface EngineOptionsInForce {
  /** Filter policy per column family as the engine loaded it from OPTIONS. */
  policies: EnginePolicy[];
  /** The probed CF's table options (table_factory->GetOptionString()). */
  tableOptions: Record<string, string>;
  cfOptions: Record<string, string>;
  optionsFile: string;
}

/**
 * Check that the engine can open the store with its own options; returns the options in force or throws
 * a one-line LsmscopeError saying why the engine path is refused. `modelCfs` (the instance's column
 * families in the model) name each policy's column family as every command shows it.
 */
export function checkEngineOptions(
  target: ProbeTarget,
  modelCfs?: readonly { nameHex: string; displayName: string }[],
): EngineOptionsInForce {
  const refuse = (why: string) =>
    new LsmscopeError(`engine path refused: ${why}`, { file: target.instanceDir, exitCode: 3 });
  if (target.engine === "leveldb")
    throw refuse("this is a LevelDB store; the RocksDB engine cannot open it (use --path reader)");
  if (target.engine === "pebble")
    throw refuse(
      "this is a Pebble store; no Pebble engine exists here and the RocksDB engine must not open it (use --path reader)",
    );
  try {
    requireEngine();
  } catch (err) {
    throw refuse((err as Error).message);
  }
  const { newest } = findOptionsFiles(target.instanceDir);
  if (!newest)
    throw refuse(
      "no OPTIONS file: the engine would open with default options (no filter policy); not measuring that",
    );
  let loaded;
  try {
    loaded = loadLatestOptions(target.instanceDir);
  } catch (err) {
    throw refuse(`the OPTIONS file does not load (${(err as Error).message}); not measuring with defaults`);
  }
  const want = fromHex(target.cfNameHex);
  const cf = loaded.columnFamilies.find((c) => Buffer.from(c.name).equals(want));
  if (!cf)
    throw refuse(`column family ${target.cfDisplayName} is not in ${newest}; not measuring with defaults`);
  if (cf.tableFactory !== undefined && cf.tableFactory !== "BlockBasedTable")
    throw refuse(`column family ${target.cfDisplayName} uses table factory ${cf.tableFactory}`);
  // every table's format version, from its footer: each table opened from its end in one read, read
  // ahead by the helper where there are many (util/tail_read_ahead.ts)
  const inTurn = new TablesInTurn(
    target.files.map((f) => f.path),
    openTail,
  );
  for (const f of target.files)
    inTurn.read(f.path, {}, (t) => {
      if (t.format === "block-based" && t.formatVersion > ENGINE_MAX_FORMAT_VERSION)
        throw refuse(
          `${f.path} has format_version ${t.formatVersion}; RocksDB 7.8.3 reads format_version <= ${ENGINE_MAX_FORMAT_VERSION}`,
        );
    });
  const tableOptions = parseOptionMap(cf.tableOptions);
  return {
    policies: loaded.columnFamilies.map((c) => {
      const name = Buffer.from(c.name);
      // the model's display name, matched by raw name (hex), when the model is at hand; else the raw name
      const hex = name.toString("hex");
      const displayName = modelCfs?.find((m) => m.nameHex === hex)?.displayName;
      return {
        cf: cfNameText(name),
        ...(displayName !== undefined ? { displayName } : {}),
        filterPolicy: parseOptionMap(c.tableOptions)["filter_policy"] ?? "nullptr",
      };
    }),
    tableOptions,
    cfOptions: parseOptionMap(cf.options),
    optionsFile: newest,
  };
}

export interface EngineLookup {
  trace: LookupTrace;
  stats: GetStats;
}

const add = (into: Record<string, number>, from: Record<string, number>) => {
  for (const [k, v] of Object.entries(from)) into[k] = (into[k] ?? 0) + v;
};

export class EngineProber {
  private readonly db: EngineDb;
  private readonly cf: Buffer;
  private readonly useDataMissTicker: boolean;
  readonly counters: EngineCounters;
  readonly inForce: EngineOptionsInForce;

  constructor(target: ProbeTarget) {
    this.inForce = checkEngineOptions(target);
    this.cf = fromHex(target.cfNameHex);
    // max_open_files=-1 keeps every table and blob file the engine opens: only when they all fit in
    // the descriptors the process may use (a store of tens of thousands of blob files would fail)
    const room = engineMaxOpenFiles();
    const allOpen = target.storeFiles.length <= room;
    const maxOpenFiles = allOpen ? -1 : room;
    this.db = openDb(target.instanceDir, {
      readOnly: true,
      useLatestOptionsFile: true,
      statistics: true,
      dbOptions: `max_open_files=${maxOpenFiles}`,
    });
    this.useDataMissTicker = this.inForce.tableOptions["no_block_cache"] !== "true";
    this.counters = {
      perf: {},
      tickers: {},
      perLevel: {},
      iostats: {},
      dataBlockSource: this.useDataMissTicker
        ? "rocksdb.block.cache.data.miss"
        : "block_read_count - index_block_read_count - filter_block_read_count - compression_dict_block_read_count",
      notes: [
        ...this.db.notes,
        `opened read-only with the store's OPTIONS file plus max_open_files=${maxOpenFiles}`,
        ...(allOpen
          ? []
          : [
              `${target.storeFiles.length} store files exceed the ${room} descriptors allowed: tables open on first use, and that read is charged to the lookup`,
            ]),
      ],
    };
  }

  get(key: Buffer): EngineLookup {
    const r = this.db.getManyWithStats(this.cf, [key], { fillCache: false, countOnly: true });
    const s = r.stats;
    const p = s.perf;
    const t = s.tickers;
    add(this.counters.perf, p);
    add(this.counters.tickers, t);
    add(this.counters.iostats, s.iostats);
    for (const [lv, c] of Object.entries(s.perLevel)) add((this.counters.perLevel[lv] ??= {}), c);
    const dataBlocks = this.useDataMissTicker
      ? (t["rocksdb.block.cache.data.miss"] ?? 0)
      : (p["block_read_count"] ?? 0) -
        (p["index_block_read_count"] ?? 0) -
        (p["filter_block_read_count"] ?? 0) -
        (p["compression_dict_block_read_count"] ?? 0);
    const useful = t["rocksdb.bloom.filter.useful"] ?? 0;
    const positive = t["rocksdb.bloom.filter.full.positive"] ?? 0;
    let level = "none";
    const found = r.found[0] === true;
    for (const [lv, c] of Object.entries(s.perLevel))
      if ((c["user_key_return_count"] ?? 0) > 0) level = `L${lv}`;
    if (found && level === "none") level = "memtable";
    const trace: LookupTrace = {
      found,
      level,
      files: 0,
      filterChecks: useful + positive,
      filterRejections: useful,
      indexBlocks: p["index_block_read_count"] ?? 0,
      filterBlocks: p["filter_block_read_count"] ?? 0,
      dataBlocks,
      blobReads: p["blob_read_count"] ?? 0,
      bytes: (p["block_read_byte"] ?? 0) + (p["blob_read_byte"] ?? 0),
    };
    return { trace, stats: s };
  }

  close(): void {
    this.db.close();
  }
}
