/**
 * `probe`: what one cold point lookup costs on a store. Resolves the column family in the datadir model,
 * draws the key set once (seeded), then measures each count of the sweep on the chosen path(s), each
 * point in a fresh process when cold, and compares reader and engine lookup by lookup with --path both.
 */
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { incompleteReasons, inspectDatadir, noReadableStoreError } from "../datadir/inspect.js";
import type { ColumnFamilyModel, InstanceModel } from "../datadir/model.js";
import { cfsSelected } from "../datadir/cf_select.js";
import { LsmscopeError } from "../util/errors.js";
import { LsmReader } from "./reader_path.js";
import { absentKeys, keysFromFile, presentKeys, type AddressHashing, type KeyShape } from "./keys.js";
import { checkEngineOptions } from "./engine_path.js";
import { runPoint, runPointInChild } from "./point.js";
import type { ColdMethod } from "./cold.js";
import type {
  ProbeCfOptions,
  ProbeComparison,
  ProbePath,
  ProbePoint,
  ProbeReport,
  ProbeTarget,
} from "./types.js";
import { plural, someOf } from "../util/words.js";
import { cfLayout, pileupSeverity } from "../analysis/layout.js";
import type { EnginePolicy, ReadAmplification } from "./types.js";
import { prepareKeccak } from "../eth/keccak.js";

export type KeySource = "present" | "absent" | { file: string; addresses?: AddressHashing };

export interface ProbeOptions {
  /** Column family: name, raw-name hex ("06"), display name ("cf06 ACCOUNT_INFO_STATE", "flat/Account"), or "cf06". */
  cf: string;
  /** Instance (store) inside the datadir, by relative path, when the CF name is ambiguous. */
  instance?: string;
  keys: KeySource;
  /** Lookups per point; a sweep when several. */
  counts: number[];
  path: ProbePath | "both";
  cold?: boolean;
  coldMethod?: ColdMethod;
  /** Key shape for present/absent draws (prefix, length). */
  shape?: KeyShape;
  seed?: string;
  /** Run each point in a fresh process even when not cold (always when cold). */
  freshProcess?: boolean;
  /** Keep per-lookup traces in the points (always with --path both). */
  perLookup?: boolean;
  /** Called once the target and the options in force are known, before any measurement. */
  onStart?: (info: { target: ProbeTarget; enginePolicies?: EnginePolicy[] }) => void;
}

/** Find the (instance, CF) a name designates in a datadir. */
export function resolveColumnFamily(
  instances: InstanceModel[],
  cfName: string,
  instance?: string,
): { instance: InstanceModel; cf: ColumnFamilyModel } {
  const insts = instances.filter(
    (i) => i.readable && (!instance || i.relPath === instance || i.relPath.endsWith(instance)),
  );
  if (insts.length === 0)
    throw new LsmscopeError(
      instance ? `no readable store at ${instance}` : "no readable RocksDB/LevelDB store found",
    );
  const hits: { instance: InstanceModel; cf: ColumnFamilyModel }[] = [];
  for (const i of insts) for (const cf of cfsSelected(i, cfName)) hits.push({ instance: i, cf });
  if (hits.length === 1) return hits[0]!;
  const all = insts.flatMap((i) => i.columnFamilies.map((c) => `${c.displayName} (${i.relPath})`));
  if (hits.length === 0) throw new LsmscopeError(`no column family "${cfName}"; have: ${someOf(all)}`);
  throw new LsmscopeError(
    `column family "${cfName}" is ambiguous: ${someOf(hits.map((h) => `${h.cf.displayName} in ${h.instance.relPath}`))}; add --instance`,
  );
}

function listFiles(dir: string): string[] {
  const out: string[] = [];
  for (const n of readdirSync(dir)) {
    const p = join(dir, n);
    try {
      if (statSync(p).isFile()) out.push(p);
    } catch {
      /* vanished */
    }
  }
  return out;
}

/**
 * A Pebble store's options as the reader path models them. Pebble consults a table's filter when the
 * store's options name its filter policy (geth: bloom.FilterPolicy(10), "rocksdb.BuiltinBloomFilter",
 * on every level); OPTIONS spells "no policy" as "none".
 */
function pebbleProbeOptions(instance: InstanceModel): ProbeCfOptions {
  const o = instance.pebble?.options;
  const policy = o?.levels[0]?.["filter_policy"];
  return {
    source: o
      ? `${o.path} (Pebble OPTIONS; filter_policy of level 0)`
      : "none (no OPTIONS file; the reader consults the tables' filters)",
    filterPolicy: policy === undefined ? "unknown" : policy === "none" ? "nullptr" : policy,
    wholeKeyFiltering: true,
    optimizeFiltersForHits: false,
  };
}

/** Everything a probe point needs, from the datadir model. */
export function buildTarget(instance: InstanceModel, cf: ColumnFamilyModel): ProbeTarget {
  if (instance.engine === "unknown")
    throw new LsmscopeError(`${instance.path}: a store of an unknown engine cannot be probed`);
  const engine = instance.engine;
  const files = cf.levels.flatMap((l) => l.files);
  const missing = files.filter((f) => !f.present);
  if (missing.length > 0)
    throw new LsmscopeError(
      `${plural(missing.length, "live table")} listed in the MANIFEST but missing from disk, e.g. ${missing[0]!.fileName}`,
      { file: instance.path },
    );
  const o = cf.options;
  const t = o?.table;
  // Pebble: the filter policy of its OPTIONS' levels, as Pebble's reader consults it
  const options: ProbeCfOptions =
    instance.engine === "pebble"
      ? pebbleProbeOptions(instance)
      : o
        ? {
            source: instance.options?.path ?? "OPTIONS",
            filterPolicy: t?.filterPolicy.raw ?? "nullptr",
            wholeKeyFiltering: t?.wholeKeyFiltering ?? true,
            optimizeFiltersForHits: o.optimizeFiltersForHits ?? false,
            prefixExtractor: o.prefixExtractor,
            cacheIndexAndFilterBlocks: t?.cacheIndexAndFilterBlocks,
            blockSize: t?.blockSize,
            formatVersion: t?.formatVersion,
            indexType: t?.indexType,
            compression: o.compression,
            enableBlobFiles: o.blob.enableBlobFiles,
          }
        : instance.engine === "leveldb"
          ? {
              source:
                "leveldb (no OPTIONS file; the tables' own bloom filters are consulted, as geth configures bloom(10))",
              filterPolicy: "leveldb.BuiltinBloomFilter2",
              wholeKeyFiltering: true,
              optimizeFiltersForHits: false,
            }
          : {
              source:
                "none (no OPTIONS file for this column family; the reader consults the tables' filters)",
              filterPolicy: "unknown",
              wholeKeyFiltering: true,
              optimizeFiltersForHits: false,
            };
  const blobFiles: Record<string, string> = {};
  for (const b of cf.blobFiles) blobFiles[String(b.fileNumber)] = b.path;
  return {
    instanceDir: instance.path,
    engine,
    cfNameHex: cf.nameHex,
    cfDisplayName: cf.displayName,
    cfId: cf.id,
    cfLogNumber: cf.logNumber,
    files: files.map((f) => ({
      fileNumber: f.fileNumber,
      path: f.path,
      level: f.level,
      smallestKey: f.smallestKey,
      largestKey: f.largestKey,
      smallestSeqno: f.smallestSeqno,
      largestSeqno: f.largestSeqno,
    })),
    blobFiles,
    wals: instance.wal
      .filter((w) => w.logNumber >= cf.logNumber)
      .map((w) => ({ path: w.path, logNumber: w.logNumber })),
    options,
    storeFiles: listFiles(instance.path),
  };
}

function compare(count: number, keys: string[], r: ProbePoint, e: ProbePoint): ProbeComparison {
  const rl = r.perLookup ?? [];
  const el = e.perLookup ?? [];
  let mismatched = 0;
  const first: ProbeComparison["firstMismatches"] = [];
  let rd = 0;
  let ed = 0;
  for (let i = 0; i < Math.min(rl.length, el.length); i++) {
    const a = rl[i]!;
    const b = el[i]!;
    rd += a.dataBlocks;
    ed += b.dataBlocks;
    if (a.dataBlocks !== b.dataBlocks || a.found !== b.found) {
      mismatched++;
      if (first.length < 5)
        first.push({
          index: i,
          key: keys[i]!,
          reader: a.dataBlocks,
          engine: b.dataBlocks,
          readerFound: a.found,
          engineFound: b.found,
        });
    }
  }
  return {
    count,
    lookups: Math.min(rl.length, el.length),
    readerDataBlocks: rd,
    engineDataBlocks: ed,
    relativeDifference: Math.abs(rd - ed) / Math.max(ed, 1),
    mismatchedLookups: mismatched,
    firstMismatches: first,
  };
}

/** Run a probe over a datadir. */
export async function runProbe(dir: string, opts: ProbeOptions): Promise<ProbeReport> {
  const counts = [...opts.counts];
  if (counts.length === 0 || counts.some((c) => !Number.isInteger(c) || c <= 0))
    throw new LsmscopeError("--count takes positive integers, e.g. --count 100,1000");
  const model = await inspectDatadir(dir, { readWal: true });
  if (!model.instances.some((i) => i.readable)) throw noReadableStoreError(model);
  const { instance, cf } = resolveColumnFamily(model.instances, opts.cf, opts.instance);
  // a file of addresses is hashed into keys, one Keccak-256 each
  if (typeof opts.keys === "object" && opts.keys.addresses) await prepareKeccak();
  const report = probeColumnFamily(model.root, instance, cf, opts);
  // errors met while reading the store (a missing table, a damaged blob file, ...) are what the
  // lookups could not see: the report carries them and the CLI exits 2
  const incomplete = incompleteReasons({ ...model, findings: instance.findings });
  if (incomplete.length) report.incomplete = incomplete;
  return report;
}

/** The layout's read amplification beside the reader path's measurement (ReadAmplification). */
function readAmplification(
  instance: InstanceModel,
  cf: ColumnFamilyModel,
  points: readonly ProbePoint[],
): ReadAmplification {
  const L = cfLayout(instance, cf);
  const reader = points.filter((p) => p.path === "reader" && p.maxFilesPerLookup !== null);
  const largest = reader.reduce<ProbePoint | undefined>(
    (a, p) => (!a || p.lookups > a.lookups ? p : a),
    undefined,
  );
  const measured = largest
    ? {
        maxFilesPerLookup: Math.max(...reader.map((p) => p.maxFilesPerLookup!)),
        filesPerLookup: largest.filesPerLookup!,
        lookups: largest.lookups,
      }
    : null;
  const pileup = L.l0Files >= L.l0SlowdownTrigger;
  return {
    layout: {
      maxFilesPerLookup: L.maxFilesPerLookup,
      l0Files: L.l0Files,
      l0SlowdownTrigger: L.l0SlowdownTrigger,
      l0StopTrigger: L.l0StopTrigger,
    },
    measured,
    l0Pileup: pileup
      ? measured
        ? { severity: pileupSeverity(measured.maxFilesPerLookup, L), from: "measured" }
        : { severity: pileupSeverity(L.maxFilesPerLookup, L), from: "layout" }
      : null,
  };
}

/** Run a probe on a column family of an already built datadir model (the TUI pane uses this). */
export function probeColumnFamily(
  root: string,
  instance: InstanceModel,
  cf: ColumnFamilyModel,
  opts: Omit<ProbeOptions, "cf" | "instance">,
): ProbeReport {
  const counts = [...opts.counts];
  if (counts.length === 0 || counts.some((c) => !Number.isInteger(c) || c <= 0))
    throw new LsmscopeError("--count takes positive integers, e.g. --count 100,1000");
  const target = buildTarget(instance, cf);
  const paths: ProbePath[] = opts.path === "both" ? ["reader", "engine"] : [opts.path];
  const notes: string[] = [];

  // refuse before drawing keys or measuring anything
  let enginePolicies: EnginePolicy[] | undefined;
  if (paths.includes("engine")) {
    const inForce = checkEngineOptions(target, instance.columnFamilies);
    enginePolicies = inForce.policies;
  }
  opts.onStart?.({ target, enginePolicies });

  // keys: drawn once, in this process
  const max = Math.max(...counts);
  let keys: Buffer[];
  let keyNote: string | undefined;
  let source: string;
  const gen = new LsmReader(target);
  try {
    notes.push(...gen.openStats.notes);
    const fu = gen.openStats.filterUse;
    if (fu.noPolicyInOptions > 0)
      notes.push(
        `the options in force give ${cf.displayName} no filter policy: ${plural(fu.noPolicyInOptions, "table")} carry filters that lookups never consult`,
      );
    if (fu.optimizedForHits > 0)
      notes.push(
        `optimize_filters_for_hits: the filters of ${fu.optimizedForHits} last-level tables are skipped`,
      );
    if (opts.keys === "present") {
      const r = presentKeys(target, gen, max, { seed: opts.seed, shape: opts.shape });
      keys = r.keys;
      keyNote = r.note;
      source = "present";
    } else if (opts.keys === "absent") {
      const r = absentKeys(target, gen, max, { seed: opts.seed, shape: opts.shape });
      keys = r.keys;
      keyNote = r.note;
      source = `absent (length ${r.shape.length}${r.shape.prefix ? `, prefix ${r.shape.prefix.toString("hex")}` : ""})`;
    } else {
      const all = keysFromFile(opts.keys.file, opts.keys.addresses);
      keys = all;
      source = `file ${opts.keys.file}${opts.keys.addresses ? ` (addresses hashed as ${opts.keys.addresses})` : ""}`;
      if (all.length < max) {
        keyNote = `the file has ${plural(all.length, "key")}; the set repeats them to reach ${max}`;
        for (let i = 0; keys.length < max; i++) keys.push(all[i % all.length]!);
      }
    }
  } finally {
    gen.close();
  }
  const hex = keys.map((k) => k.toString("hex"));

  const points: ProbePoint[] = [];
  const comparisons: ProbeComparison[] = [];
  const cold = Boolean(opts.cold);
  const perLookup = opts.path === "both" || Boolean(opts.perLookup);
  for (const count of counts) {
    const byPath: Partial<Record<ProbePath, ProbePoint>> = {};
    for (const path of paths) {
      const job = { target, keys: hex.slice(0, count), path, cold, coldMethod: opts.coldMethod, perLookup };
      const p = cold || opts.freshProcess ? runPointInChild(job) : runPoint(job);
      byPath[path] = p;
      points.push(p);
    }
    if (byPath.reader && byPath.engine) comparisons.push(compare(count, hex, byPath.reader, byPath.engine));
  }
  if (!opts.perLookup) for (const p of points) delete p.perLookup;
  return {
    dir: root,
    instance: instance.relPath,
    cf: cf.name,
    cfDisplayName: cf.displayName,
    keys: { source, generated: keys.length, note: keyNote },
    options: target.options,
    enginePolicies,
    points,
    readAmplification: readAmplification(instance, cf, points),
    comparisons: comparisons.length > 0 ? comparisons : undefined,
    notes,
  };
}
