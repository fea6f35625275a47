/**
 * Where the options a compaction applies come from, and the option strings handed to the engine.
 *
 * - The store's own newest OPTIONS file (default): the engine opens with it as is (useLatestOptionsFile);
 *   only normalisations are added on top.
 * - `--options-from REF`: another store's OPTIONS (a store or datadir directory, or one OPTIONS file).
 *   Per column family, matched by raw name bytes, the reference's table options and the knobs that
 *   decide what a written file carries are applied on top of the store's own options:
 *   REFERENCE_CF_KEYS below plus `block_based_table_factory={<reference table options>}`. Structural
 *   options (comparator, merge operator, num_levels, write buffers, level sizing) stay the store's.
 *
 * Normalisation, the way RocksDB itself sanitises: `partition_filters=true` without
 * `index_type=kTwoLevelIndexSearch` is ignored by RocksDB (BlockBasedTableFactory::InitializeOptions)
 * and aborts Debian's assertion-enabled 7.8.3 when a table is built, so it is applied as
 * `partition_filters=false` and shown in the plan.
 */
import { copyFileSync, existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import * as engine from "../engine/index.js";
import {
  findOptionsFiles,
  parseOptionMap,
  parseOptionsFile,
  type CfOptionsModel,
  type OptionsFileModel,
} from "../datadir/options_file.js";
import { LsmscopeError } from "../util/errors.js";

/** Column-family options taken from a reference besides the table options. */
export const REFERENCE_CF_KEYS = [
  "compression",
  "compression_per_level",
  "bottommost_compression",
  "compression_opts",
  "bottommost_compression_opts",
  "optimize_filters_for_hits",
  "prefix_extractor",
  "enable_blob_files",
  "min_blob_size",
  "blob_file_size",
  "blob_compression_type",
  "enable_blob_garbage_collection",
  "blob_garbage_collection_age_cutoff",
  "blob_garbage_collection_force_threshold",
  "blob_file_starting_level",
] as const;

/** Keys whose values RocksDB writes in braces. */
const BRACED = new Set(["compression_opts", "bottommost_compression_opts"]);

export interface OptionsSource {
  kind: "store" | "reference";
  /** The OPTIONS file read (absolute path). */
  file: string;
  /** The TS model of that file (typed knobs). */
  model: OptionsFileModel;
  /** What the engine loaded from it (RocksDB 7.8.3 option strings), per CF. */
  loaded: engine.LoadedOptions;
}

/** The store directory's newest OPTIONS file, or the one below `ref` (datadir root with one store). */
function findOptionsFile(ref: string): string {
  const st = statSync(ref);
  if (st.isFile()) return ref;
  const here = findOptionsFiles(ref).newest;
  if (here) return join(ref, here);
  const below = join(ref, "database");
  if (existsSync(below)) {
    const b = findOptionsFiles(below).newest;
    if (b) return join(below, b);
  }
  throw new LsmscopeError("no OPTIONS-<number> file here", { file: ref });
}

/**
 * Read an OPTIONS file both ways: the TS parser (typed knobs, findings) and RocksDB's own loader (what
 * the engine will actually apply). RocksDB's LoadLatestOptions takes a directory, so a lone file is
 * copied into a private temporary directory first (the original is never touched).
 */
export function readOptionsSource(ref: string, kind: "store" | "reference"): OptionsSource {
  const file = findOptionsFile(ref);
  const parsed = parseOptionsFile(file, basename(file));
  const bad = parsed.findings.find((f) => f.severity === "error");
  if (bad) throw new LsmscopeError(`OPTIONS file unreadable: ${bad.message}`, { file });
  const tmp = mkdtempSync(join(tmpdir(), "lsmscope-options-"));
  try {
    copyFileSync(file, join(tmp, "OPTIONS-000001"));
    let loaded;
    try {
      loaded = engine.loadLatestOptions(tmp);
    } catch (err) {
      // RocksDB's loader names the private copy: name the user's file instead
      if (!(err instanceof LsmscopeError)) throw err;
      throw new LsmscopeError(
        `RocksDB cannot load this OPTIONS file: ${err.message.split(tmp).join(basename(file))}`,
        { file, cause: err },
      );
    }
    return { kind, file, model: parsed.model, loaded };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** What one CF gets: the option string for the engine and the normalisations made. */
export interface CfOptionsToApply {
  /** Option string passed on top of the store's loaded options ("" = exactly the store's OPTIONS). */
  optionString: string;
  /** Effective typed options (store's, with the reference's keys applied and normalised). */
  effective: CfOptionsModel;
  normalisations: string[];
}

function serialise(map: Record<string, string>, keys: readonly string[]): string {
  const parts: string[] = [];
  for (const k of keys) {
    const v = map[k];
    if (v === undefined) continue;
    parts.push(`${k}=${BRACED.has(k) ? `{${v}}` : v}`);
  }
  return parts.join(";");
}

/**
 * The options for one CF: the store's own (`storeCf`), or the reference's table options and
 * REFERENCE_CF_KEYS over them (`refCf` with its RocksDB-loaded strings).
 */
export function optionsToApply(
  displayName: string,
  storeCf: CfOptionsModel | undefined,
  ref?: { model: CfOptionsModel; options: string; tableOptions: string },
): CfOptionsToApply {
  const normalisations: string[] = [];
  let effective: CfOptionsModel;
  let tableString: string | undefined;
  const parts: string[] = [];
  if (ref) {
    const refMap = parseOptionMap(ref.options);
    parts.push(serialise(refMap, REFERENCE_CF_KEYS));
    tableString = ref.tableOptions;
    const base = storeCf ?? ref.model;
    effective = { ...base, raw: { ...base.raw } };
    for (const k of REFERENCE_CF_KEYS)
      if (ref.model.raw[k] !== undefined) effective.raw[k] = ref.model.raw[k]!;
    effective.compression = ref.model.compression;
    effective.compressionPerLevel = ref.model.compressionPerLevel;
    effective.bottommostCompression = ref.model.bottommostCompression;
    effective.compressionOpts = ref.model.compressionOpts;
    effective.bottommostCompressionOpts = ref.model.bottommostCompressionOpts;
    effective.optimizeFiltersForHits = ref.model.optimizeFiltersForHits;
    effective.prefixExtractor = ref.model.prefixExtractor;
    effective.blob = { ...ref.model.blob };
    effective.table = ref.model.table ? { ...ref.model.table, raw: { ...ref.model.table.raw } } : undefined;
  } else {
    if (!storeCf) throw new LsmscopeError(`the store's OPTIONS file has no column family ${displayName}`);
    effective = { ...storeCf, table: storeCf.table ? { ...storeCf.table } : undefined };
  }
  const t = effective.table;
  if (t && t.partitionFilters && t.indexType !== "kTwoLevelIndexSearch") {
    normalisations.push(
      `partition_filters=true without index_type=kTwoLevelIndexSearch: RocksDB ignores it (and Debian's ` +
        `assertion-enabled 7.8.3 aborts building a table with it); applied as partition_filters=false`,
    );
    effective.table = { ...t, partitionFilters: false, raw: { ...t.raw, partition_filters: "false" } };
    if (tableString !== undefined)
      tableString = tableString.replace(/partition_filters=true/g, "partition_filters=false");
    else parts.push("block_based_table_factory={partition_filters=false}");
  }
  if (tableString !== undefined) parts.push(`block_based_table_factory={${tableString}}`);
  return { optionString: parts.filter((p) => p !== "").join(";"), effective, normalisations };
}
