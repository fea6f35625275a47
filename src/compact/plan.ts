/**
 * The compaction plan: what `compact` would do to a store, read without writing anything.
 *
 * Per column family: the level layout now, the bytes that get rewritten, the knobs the new files will
 * carry (from the store's OPTIONS or a reference's) beside what the files carry today, normalisations,
 * and the refusals that stop the run (held LOCK, format_version > 5, too little free disk, an option
 * change not accepted with --accept-option-change).
 *
 * Nothing to do: a column family whose tables all sit in its bottom level, with no writes left in the
 * WAL and every knob (block size aside, an estimate) as intended, is left alone unless --force; a plan
 * where every chosen column family is so says `nothingToDo`.
 *
 * Estimates, labelled as such:
 * - bytes read and written: RocksDB's CompactRange (db_impl_compaction_flush.cc, 7.8.3) walks the levels
 *   that hold files: each one above the deepest is compacted into the level below it (L0 into the base
 *   level), and the deepest, when it is not L0, is compacted into itself under kForce. A CF whose data
 *   sits in one level (L0 only, or one level below it) is read once; data spread over two or more levels
 *   is read about twice (the merge down, then the bottom rewrite of its result). The WAL's unflushed
 *   writes are flushed into L0 at open: they count at the compression the CF's files carry (data-block
 *   bytes / raw key+value bytes from their properties), not at their raw size. What is read is known;
 *   what is written is less by the older versions and tombstones the compaction drops, so the progress
 *   bar follows compact.read.bytes and the written bytes are reported as measured. On besu-snapshot
 *   written came within 10 % of the estimate; on a db_bench fillrandom store in L0 (a third of its keys
 *   overwritten) read came within 5 %.
 * - duration: estimated bytes written / COMPACT_RATE_ESTIMATE (rate.ts: a conservative rate measured by
 *   bench/compact.ts on this machine), not a promise.
 * - disk needed: the largest chosen CF's SST bytes plus its unflushed WAL bytes (its new copy exists
 *   next to the old one until the compaction of that CF ends), plus a fixed 64 MiB headroom for
 *   MANIFEST, OPTIONS and LOG (a policy, not a measurement).
 */
import { join } from "node:path";
import * as engine from "../engine/index.js";
import type { ColumnFamilyModel, InstanceModel, TableDetails } from "../datadir/model.js";
import { optionsForCf, type CfOptionsModel } from "../datadir/options_file.js";
import { bottomLevelOf } from "../datadir/placement.js";
import { placementOf, type Placement } from "../datadir/placement.js";
import { LsmscopeError } from "../util/errors.js";
import { escapeText, formatBytes } from "../util/bytes.js";
import { findingLine } from "../datadir/outcome.js";
import { resolveStore } from "./digest.js";
import { cfSelected, cfsSelected } from "../datadir/cf_select.js";
import { diskState, lockRefusal, type Refusal } from "./guards.js";
import {
  checkFileKnobs,
  intendedKnobs,
  KNOBS,
  summariseChecks,
  type IntendedKnobs,
  type Knob,
  type KnobRow,
} from "./intended.js";
import { optionsToApply, readOptionsSource, type OptionsSource } from "./options.js";
import { COMPACT_RATE_ESTIMATE } from "./rate.js";
import { plural, someOf } from "../util/words.js";

export const DISK_HEADROOM_BYTES = 64 * 1024 * 1024;

export interface PlanOptions {
  /** Column families to compact (text name, raw-name hex, or display name); all when absent. */
  cfs?: string[];
  /** Reference store directory, datadir, or OPTIONS file. */
  optionsFrom?: string;
  /** Knob names whose change is accepted (see KNOBS), or "all". */
  acceptOptionChange?: string[];
  /** Rewrite column families that have nothing to do too. */
  force?: boolean;
}

export interface LevelLayout {
  level: number;
  files: number;
  bytes: number;
}

export interface CfPlan {
  /** Column family id in the MANIFEST. */
  id: number;
  /** Raw name bytes as hex, and the client-aware name. */
  nameHex: string;
  displayName: string;
  levelsBefore: LevelLayout[];
  /** Bottom level and what sits above it now (src/datadir/placement.ts; the same figure inspect and check use). */
  placement?: Placement;
  files: number;
  /** File numbers of the tables now (to tell rewritten tables afterwards). */
  fileNumbers: number[];
  /** SST bytes (MANIFEST sizes): every one of them is rewritten. */
  sstBytes: number;
  /** Writes still only in the WAL (flushed first), and their key+value bytes. */
  unflushedWrites: number;
  unflushedBytes: number;
  blobFiles: number;
  /** Blob files' sizes on disk (kept as they are). */
  blobFileBytes: number;
  /** Estimate of bytes the compaction reads (see header): the progress bar's total. 0 when skipped. */
  estimatedReadBytes: number;
  /** Estimate of bytes the compaction writes (see header; at most what it reads). 0 when skipped. */
  estimatedWriteBytes: number;
  /** Data-block bytes per raw key+value byte in the CF's files (1 without properties). */
  compressionRatio: number;
  /** num_levels − 1: where everything ends up. */
  targetLevel: number;
  /** Knobs new files will carry. */
  intended: IntendedKnobs;
  /** Knob by knob: what the files carry today against the intent. */
  knobs: KnobRow[];
  /** Knobs whose value would change for some file (excluding block-size, an estimate). */
  changes: Knob[];
  /** Knob values the move to the bottom level changes by the options' own design (optimize_filters_for_hits...). */
  consequences: string[];
  normalisations: string[];
  /** Option string passed to the engine for this CF on top of the store's OPTIONS ("" = none). */
  optionString: string;
  /** Nothing to do: no files, no unflushed writes. */
  empty: boolean;
  /** Nothing to do: empty, or every table in the bottom level carrying the intended knobs, no WAL writes. */
  nothingToDo: boolean;
  /** The run compacts this CF: it has something to do, or --force. */
  compact: boolean;
}

export interface CompactPlan {
  /** Store directory (absolute). */
  store: string;
  rocksdbVersion: string;
  optionsSource: { kind: "store" | "reference"; file: string };
  columnFamilies: CfPlan[];
  /** CFs not chosen with --cf: left as they are. */
  untouched: string[];
  /** Untouched CFs with writes only in the WAL: the read-write open flushes them into L0 (RocksDB recovery). */
  untouchedFlushed: string[];
  totals: {
    sstBytes: number;
    unflushedBytes: number;
    estimatedReadBytes: number;
    estimatedWriteBytes: number;
    files: number;
  };
  /** Every chosen column family has nothing to do (see the header); the run rewrites only with --force. */
  nothingToDo: boolean;
  forced: boolean;
  estimate: { seconds: number; rateBytesPerSecond: number; basis: string };
  disk: { free: number; needed: number; basis: string };
  /** Knob changes accepted with --accept-option-change. */
  accepted: string[];
  refusals: Refusal[];
  /** Every normalisation, prefixed with the CF. */
  normalisations: string[];
}

/**
 * The values of a tally ("none ×4, fastbloom ×3") other than `intended`: "fastbloom" when one remains
 * (its count is the number of differing files, said beside it), else the remaining tally.
 */
function carriedOtherThan(tally: string, intended: string): string {
  const others = tally.split(", ").filter((t) => t.replace(/ ×\d+$/, "") !== intended);
  if (others.length === 1) return others[0]!.replace(/ ×\d+$/, "");
  return others.length > 0 ? others.join(", ") : tally;
}

/** Data-block bytes per raw key+value byte over the tables that carry both properties (≤ 1; 1 without). */
export function compressionRatioOf(details: readonly (TableDetails | undefined)[]): number {
  let stored = 0;
  let raw = 0;
  for (const d of details)
    if (d?.dataSize !== undefined && d.rawKeySize !== undefined && d.rawValueSize !== undefined) {
      stored += d.dataSize;
      raw += d.rawKeySize + d.rawValueSize;
    }
  return raw > 0 ? Math.min(1, stored / raw) : 1;
}

function unflushedBytesOf(inst: InstanceModel, cf: ColumnFamilyModel): number {
  let b = 0;
  for (const w of inst.wal)
    for (const p of w.perColumnFamily)
      if (p.columnFamilyId === cf.id && p.unflushed) b += p.keyBytes + p.valueBytes;
  return b;
}

/** Inspect a store and build the plan; writes nothing. Throws only when the store cannot be read at all. */
export async function planCompaction(dir: string, opts: PlanOptions = {}): Promise<CompactPlan> {
  engine.requireEngine();
  const inst = await resolveStore(dir, "cheap");
  return planForInstance(inst, opts);
}

/** A store's error findings as refusals (missing tables are refused below, one line each). */
export function damageRefusals(inst: InstanceModel): Refusal[] {
  const errors = inst.findings.filter(
    (f) => f.severity === "error" && f.code !== "sst-missing" && f.code !== "sst-unreadable",
  );
  const out = errors.slice(0, 3).map((f) => ({
    code: f.code === "current-dangling" ? "current-dangling" : "store-damaged",
    message:
      f.code === "current-dangling"
        ? `dangling CURRENT: ${escapeText(f.message)}; RocksDB cannot open the store`
        : findingLine(f, inst.path),
  }));
  if (errors.length > 3)
    out.push({
      code: "store-damaged",
      message: `... and ${errors.length - 3} more errors (lsmscope inspect)`,
    });
  return out;
}

/** The knobs `--accept-option-change` names ("all" for every knob); an unknown one is a usage error. */
function acceptedKnobs(opts: PlanOptions): Set<string> {
  const accept = new Set((opts.acceptOptionChange ?? []).flatMap((a) => a.split(",")).map((a) => a.trim()));
  for (const a of accept)
    if (a !== "all" && !(KNOBS as readonly string[]).includes(a))
      throw new LsmscopeError(
        `--accept-option-change: unknown knob "${a}" (knobs: ${KNOBS.join(", ")}, all)`,
      );
  return accept;
}

/**
 * Tables the engine cannot open or write back, anywhere in the store (opening reads them all): missing,
 * of a format version above the engine's, unreadable. The first three, then a count of the rest.
 */
function tableRefusals(inst: InstanceModel): Refusal[] {
  const found: Refusal[] = [];
  for (const cf of inst.columnFamilies)
    for (const l of cf.levels)
      for (const f of l.files) {
        const fv = f.details?.formatVersion;
        if (!f.present) {
          found.push({
            code: "table-missing",
            message: `${f.fileName} (${cf.displayName}) is in the MANIFEST but not on disk`,
          });
        } else if (fv !== undefined && fv > engine.ENGINE_MAX_FORMAT_VERSION) {
          found.push({
            code: "format-version",
            message: `${f.fileName} (${cf.displayName}) has format_version ${fv}; RocksDB ${engine.rocksdbVersion()} writes and reads back up to ${engine.ENGINE_MAX_FORMAT_VERSION}`,
          });
        } else if (f.details?.error !== undefined && fv === undefined) {
          found.push({
            code: "table-unreadable",
            message: `${f.fileName} (${cf.displayName}): ${f.details.error}`,
          });
        }
      }
  const out = found.slice(0, 3);
  if (found.length > 3)
    out.push({
      code: found[3]!.code,
      message: `... and ${found.length - 3} more such files`,
    });
  return out;
}

/**
 * The column families `--cf` names (all without it). A name that matches none is a usage error, and so
 * is one that matches several (the case of letters is ignored, datadir/cf_select.ts): a compaction
 * rewrites what it is given.
 */
function chosenColumnFamilies(inst: InstanceModel, opts: PlanOptions): ColumnFamilyModel[] {
  if (opts.cfs)
    for (const n of opts.cfs) {
      const named = cfsSelected(inst, n);
      if (named.length === 0)
        throw new LsmscopeError(
          `no column family "${n}" (have: ${someOf(inst.columnFamilies.map((c) => c.displayName))})`,
          { file: inst.path },
        );
      if (named.length > 1)
        throw new LsmscopeError(
          `--cf "${n}" names ${named.length} column families (${someOf(named.map((c) => c.displayName))}): give one by its hex name`,
          { file: inst.path },
        );
    }
  return inst.columnFamilies.filter((c) => !opts.cfs || opts.cfs.some((n) => cfSelected(c, n, inst)));
}

/** What planning one column family reads and where it puts what it decides. */
interface CfPlanning {
  inst: InstanceModel;
  opts: PlanOptions;
  accept: ReadonlySet<string>;
  store: OptionsSource | undefined;
  ref: OptionsSource | undefined;
  refusals: Refusal[];
  accepted: string[];
  normalisations: string[];
}

/**
 * The options a column family is rewritten with: the reference's (`--options-from`) or the store's own.
 * Undefined (with a refusal when it matters) when neither has the column family.
 */
function cfOptionsToApply(cf: ColumnFamilyModel, p: CfPlanning) {
  const storeCf = optionsForCf(p.inst.options, cf.nameHex);
  let refCf: Parameters<typeof optionsToApply>[2];
  if (p.ref) {
    const m = optionsForCf(p.ref.model, cf.nameHex);
    const l = p.ref.loaded.columnFamilies.find((c) => c.name.toString("hex") === cf.nameHex);
    if (!m || !l) {
      p.refusals.push({
        code: "reference-cf-missing",
        message: `the reference ${p.ref.file} has no column family ${cf.displayName}`,
      });
      return undefined;
    }
    refCf = { model: m, options: l.options, tableOptions: l.tableOptions };
  }
  if (!storeCf && !refCf) {
    if (p.store)
      p.refusals.push({
        code: "options-cf-missing",
        message: `the store's OPTIONS has no column family ${cf.displayName}`,
      });
    return undefined;
  }
  return { storeCf, applied: optionsToApply(cf.displayName, storeCf, refCf) };
}

/**
 * What the files carry against what the rewrite gives them: the knob rows at the target level, the
 * option changes (a file carries what the applied options would not give it at its own level) and the
 * consequences (what the move to the bottom level changes by the options' own design).
 */
function knobOutcome(cf: ColumnFamilyModel, effective: CfOptionsModel, target: number) {
  const want = intendedKnobs(effective, target);
  const readable = cf.levels
    .flatMap((l) => l.files)
    .filter((f) => f.details && f.details.formatVersion !== undefined);
  // display: what the files carry now against what the new files at the target level will carry
  const rows = summariseChecks(
    readable.map((f) => checkFileKnobs(f.details!, want)),
    want,
  );
  const deepest = bottomLevelOf(cf.levels);
  const atOwnLevel = summariseChecks(
    readable.map((f) => checkFileKnobs(f.details!, intendedKnobs(effective, f.level, f.level === deepest))),
    want,
  );
  const changes = atOwnLevel.filter((r) => r.differing > 0 && r.knob !== "block-size").map((r) => r.knob);
  const consequences = rows
    .filter((r) => r.differing > 0 && r.knob !== "block-size" && !changes.includes(r.knob))
    .map(
      (r) =>
        `${r.knob}: ${r.differing} of ${plural(r.files, "file")} carry ${carriedOtherThan(r.carried, r.intended)} and get ${r.intended} at L${target}, as the options prescribe for the bottom level`,
    );
  return { want, rows, atOwnLevel, changes, consequences };
}

/** Refusals for what the options would change (unless accepted) and a format version the engine lacks. */
function refuseChanges(cf: ColumnFamilyModel, k: ReturnType<typeof knobOutcome>, p: CfPlanning): void {
  if (k.want.formatVersion !== undefined && k.want.formatVersion > engine.ENGINE_MAX_FORMAT_VERSION)
    p.refusals.push({
      code: "format-version",
      message: `${cf.displayName}: the ${p.ref ? "reference" : "store's"} options ask for format_version ${k.want.formatVersion}; RocksDB ${engine.rocksdbVersion()} writes up to ${engine.ENGINE_MAX_FORMAT_VERSION}`,
    });
  for (const knob of k.changes) {
    const row = k.atOwnLevel.find((r) => r.knob === knob)!;
    if (p.accept.has(knob) || p.accept.has("all")) {
      p.accepted.push(`${cf.displayName}: ${knob} ${row.carried} → ${row.intended}`);
      continue;
    }
    p.refusals.push({
      code: "option-change",
      message: `${cf.displayName}: ${knob} would change: files carry ${row.carried}, ${p.ref ? "the reference" : "the store's OPTIONS"} gives ${row.intended} (accept with --accept-option-change ${knob}, or use --options-from with the options the files were written with)`,
    });
  }
}

/** The plan of one column family; undefined when no options for it can be read. */
function planColumnFamily(cf: ColumnFamilyModel, p: CfPlanning): CfPlan | undefined {
  const o = cfOptionsToApply(cf, p);
  if (!o) return undefined;
  const { storeCf, applied } = o;
  const numLevels = storeCf?.numLevels ?? cf.levels.length;
  const target = numLevels - 1;
  const k = knobOutcome(cf, applied.effective, target);
  refuseChanges(cf, k, p);
  const files = cf.levels.flatMap((l) => l.files);
  const sstBytes = files.reduce((a, f) => a + f.fileSize, 0);
  const unflushedBytes = unflushedBytesOf(p.inst, cf);
  const levelsWithData = cf.levels.filter((l) => l.files.length > 0).map((l) => l.level);
  const compressionRatio = compressionRatioOf(files.map((f) => f.details));
  // the WAL's writes land in L0 at open
  if (unflushedBytes > 0 && !levelsWithData.includes(0)) levelsWithData.push(0);
  const passes = levelsWithData.length > 1 ? 2 : 1;
  const empty = files.length === 0 && cf.totals.unflushedWrites === 0;
  const nothingToDo =
    empty ||
    (cf.totals.unflushedWrites === 0 &&
      files.every((f) => f.level === target) &&
      k.rows.every((r) => r.differing === 0 || r.knob === "block-size"));
  const compact = (!nothingToDo || p.opts.force === true) && !empty;
  const estimatedReadBytes = compact
    ? Math.round(passes * (sstBytes + unflushedBytes * compressionRatio))
    : 0;
  for (const n of applied.normalisations) p.normalisations.push(`${cf.displayName}: ${n}`);
  return {
    id: cf.id,
    nameHex: cf.nameHex,
    displayName: cf.displayName,
    levelsBefore: cf.levels.map((l) => ({ level: l.level, files: l.files.length, bytes: l.bytes })),
    placement: placementOf(cf.levels),
    files: files.length,
    fileNumbers: files.map((f) => f.fileNumber),
    sstBytes,
    unflushedWrites: cf.totals.unflushedWrites,
    unflushedBytes,
    blobFiles: cf.blobFiles.length,
    blobFileBytes: cf.totals.blobFileBytes,
    estimatedReadBytes,
    estimatedWriteBytes: estimatedReadBytes,
    compressionRatio,
    targetLevel: target,
    intended: k.want,
    knobs: k.rows,
    changes: k.changes,
    consequences: k.consequences,
    normalisations: applied.normalisations,
    optionString: applied.optionString,
    empty,
    nothingToDo,
    compact,
  };
}

export function planForInstance(inst: InstanceModel, opts: PlanOptions = {}): CompactPlan {
  const refusals: Refusal[] = [];
  const accept = acceptedKnobs(opts);
  const lock = lockRefusal(inst.path);
  if (lock) refusals.push(lock);
  // damage the model met (a dangling CURRENT, a MANIFEST record that does not decode, a damaged blob
  // file, ...): the engine would fail on it part-way, or compact a store that is not what it seems
  refusals.push(...damageRefusals(inst));

  let store: OptionsSource | undefined;
  if (!inst.options)
    refusals.push({
      code: "options-missing",
      message: `the store has no OPTIONS file; the engine cannot open it with its own options`,
    });
  else store = readOptionsSource(inst.path, "store");
  const ref = opts.optionsFrom ? readOptionsSource(opts.optionsFrom, "reference") : undefined;
  refusals.push(...tableRefusals(inst));
  const chosen = chosenColumnFamilies(inst, opts);

  const p: CfPlanning = { inst, opts, accept, store, ref, refusals, accepted: [], normalisations: [] };
  const cfPlans: CfPlan[] = [];
  for (const cf of chosen) {
    const plan = planColumnFamily(cf, p);
    if (plan) cfPlans.push(plan);
  }

  const totals = {
    sstBytes: cfPlans.reduce((a, c) => a + c.sstBytes, 0),
    unflushedBytes: cfPlans.reduce((a, c) => a + c.unflushedBytes, 0),
    estimatedReadBytes: cfPlans.reduce((a, c) => a + c.estimatedReadBytes, 0),
    estimatedWriteBytes: cfPlans.reduce((a, c) => a + c.estimatedWriteBytes, 0),
    files: cfPlans.reduce((a, c) => a + c.files, 0),
  };
  const largest = cfPlans.reduce((a, c) => Math.max(a, c.sstBytes + c.unflushedBytes), 0);
  const disk = diskState(inst.path, largest + DISK_HEADROOM_BYTES);
  if (disk.free < disk.needed)
    refusals.push({
      code: "disk-space",
      message: `free disk ${formatBytes(disk.free)} is below the ${formatBytes(disk.needed)} the rewrite needs (largest column family's SSTs + unflushed WAL + 64 MiB)`,
    });
  const rate = COMPACT_RATE_ESTIMATE.bytesPerSecond;
  return {
    store: inst.path,
    rocksdbVersion: engine.rocksdbVersion(),
    optionsSource: ref
      ? { kind: "reference", file: ref.file }
      : { kind: "store", file: store?.file ?? join(inst.path, "OPTIONS-?") },
    columnFamilies: cfPlans,
    untouched: inst.columnFamilies.filter((c) => !chosen.includes(c)).map((c) => c.displayName),
    untouchedFlushed: inst.columnFamilies
      .filter((c) => !chosen.includes(c) && c.totals.unflushedWrites > 0)
      .map((c) => `${c.displayName} (${plural(c.totals.unflushedWrites, "write")})`),
    totals,
    nothingToDo: cfPlans.every((c) => c.nothingToDo),
    forced: opts.force === true,
    estimate: {
      seconds: totals.estimatedWriteBytes / rate,
      rateBytesPerSecond: rate,
      basis: COMPACT_RATE_ESTIMATE.basis,
    },
    disk: {
      free: disk.free,
      needed: disk.needed,
      basis: "largest column family's SST bytes + its unflushed WAL bytes + 64 MiB headroom",
    },
    accepted: p.accepted,
    refusals,
    normalisations: p.normalisations,
  };
}
