/**
 * The inspect report as data: per instance and column family, the knobs (configured beside carried), the
 * level layout, the flags raised by both and by the client's own configuration, blob files and WAL state.
 * Pure over the model (and the deep measurements when `--deep` ran); rendering lives in render.ts and the
 * TUI reads the same structure.
 */
import type { VerifyReport } from "../lsm/verify.js";
import type {
  ColumnFamilyModel,
  DatadirModel,
  Finding,
  InstanceModel,
  WalFileModel,
} from "../datadir/model.js";
import { analyzeCfKnobs, type CfKnobs, type Tally } from "../analysis/knobs.js";
import { cfLayout, type CfLayout } from "../analysis/layout.js";
import { clientFilterExpectation } from "../analysis/expectations.js";
import { gethKeyCategory } from "../eth/geth_schema.js";
import { fromHex } from "../util/bytes.js";
import type { DeepTableInfo, InspectMode } from "./deep.js";
import { knobFindingMessage } from "./knob_messages.js";
import { layoutFlagMessage } from "./layout_messages.js";
import { plural } from "../util/words.js";

export type FlagSeverity = "info" | "warn" | "error";

/** One flag shown in the report (a knob disagreement, a layout or client finding, a reader problem). */
export interface ReportFlag {
  /** Stable id: the knob/layout finding id ("filter-missing", "small-files-above-bottom", ...). */
  id: string;
  severity: FlagSeverity;
  source: "knobs" | "layout" | "client" | "reader";
  level?: number;
  message: string;
}

/** Deep measurements aggregated per level. */
export interface DeepLevel {
  level: number;
  tables: number;
  dataBlocks: number;
  dataBlockBytes: number;
  minBlockBytes?: number;
  maxBlockBytes?: number;
  /** Tables whose properties' data-block count differs from the index. */
  disagreeing: number;
  errors: number;
  /** Tables without an entry count in their properties (LevelDB's), whose data blocks were read to count them. */
  entriesCounted: number;
}

export interface CfReport {
  cf: ColumnFamilyModel;
  knobs: CfKnobs;
  layout: CfLayout;
  flags: ReportFlag[];
  /** LevelDB/geth: key categories spanned by the files' smallest/largest keys. */
  keyCategories?: Tally[];
  deepLevels?: DeepLevel[];
}

export interface InstanceReport {
  instance: InstanceModel;
  /** Column families with files, blob files or unflushed writes first; empty ones last. */
  cfs: CfReport[];
  wal: WalFileModel[];
  findings: Finding[];
}

export interface InspectReport {
  root: string;
  mode: InspectMode;
  client: DatadirModel["client"];
  identity?: DatadirModel["identity"];
  freezers?: DatadirModel["freezers"];
  instances: InstanceReport[];
  findings: Finding[];
  complete: boolean;
  elapsedMs: number;
  /** `inspect --verify`: what the verification pass read and checked. */
  verify?: VerifyReport;
  totals: {
    instances: number;
    cfs: number;
    sstFiles: number;
    sstBytes: number;
    blobFiles: number;
    blobFileBytes: number;
    walBytes: number;
  };
  /**
   * Everything the report flags, by severity: every column family's flags plus every reader finding the
   * report shows (instance and root findings, see shownFindings).
   */
  flagCounts: Record<FlagSeverity, number>;
}

/**
 * The reader findings of an instance the report shows: all of them, except that past 20 findings the
 * per-table `sst-unreadable` ones are left to the `files-unread` flag that counts them.
 */
export function shownFindings(findings: readonly Finding[]): Finding[] {
  return findings.filter((f) => f.code !== "sst-unreadable" || findings.length < 20);
}

const SEV_ORDER: Record<FlagSeverity, number> = { error: 0, warn: 1, info: 2 };

function clientFlags(inst: InstanceModel, cf: ColumnFamilyModel, knobs: CfKnobs): ReportFlag[] {
  const out: ReportFlag[] = [];
  const exp = clientFilterExpectation(inst, cf);
  const all = knobs.carried.all;
  const none = all.filterKind.find((t) => t.key === "none");
  if (!exp || !none || exp.kind === "none" || exp.kind === undefined) return out;
  // the client configures a filter; files carry none (beyond what optimize_filters_for_hits leaves out)
  const ofhNote = knobs.notes.find((n) => n.id === "optimize-filters-for-hits");
  const unfiltered = none.files - (ofhNote?.files ?? 0);
  if (unfiltered <= 0) return out;
  const alreadyDisagrees = knobs.disagreements.some((d) => d.id === "filter-missing");
  if (alreadyDisagrees) return out;
  const levels = knobs.carried.levels
    .filter((l) => l.filterKind.some((t) => t.key === "none") && l.level !== ofhNote?.level)
    .map((l) => `L${l.level}`);
  out.push({
    id: "filter-none-client",
    severity: "warn",
    source: "client",
    message: `no filters: ${unfiltered} of ${plural(all.filesRead, "file")} (${levels.join(", ")}) carry none and OPTIONS configures none; ${exp.source}, so another program wrote this store or its options`,
  });
  return out;
}

function keyCategories(cf: ColumnFamilyModel): Tally[] {
  const m = new Map<string, Tally>();
  for (const l of cf.levels)
    for (const f of l.files) {
      const cats = new Set([gethKeyCategory(fromHex(f.smallestKey)), gethKeyCategory(fromHex(f.largestKey))]);
      for (const c of cats) {
        const t = m.get(c) ?? { key: c, files: 0, bytes: 0 };
        t.files++;
        t.bytes += f.fileSize;
        m.set(c, t);
      }
    }
  return [...m.values()].sort((a, b) => b.bytes - a.bytes);
}

function deepLevels(cf: ColumnFamilyModel, deep: Map<string, DeepTableInfo>): DeepLevel[] {
  return cf.levels
    .filter((l) => l.files.length > 0)
    .map((l) => {
      const d: DeepLevel = {
        level: l.level,
        tables: 0,
        dataBlocks: 0,
        dataBlockBytes: 0,
        disagreeing: 0,
        errors: 0,
        entriesCounted: 0,
      };
      for (const f of l.files) {
        const t = deep.get(f.path);
        if (!t) continue;
        d.tables++;
        if (t.error) d.errors++;
        d.dataBlocks += t.dataBlocks;
        d.dataBlockBytes += t.dataBlockBytes;
        if (t.minBlockBytes !== undefined)
          d.minBlockBytes =
            d.minBlockBytes === undefined ? t.minBlockBytes : Math.min(d.minBlockBytes, t.minBlockBytes);
        if (t.maxBlockBytes !== undefined)
          d.maxBlockBytes =
            d.maxBlockBytes === undefined ? t.maxBlockBytes : Math.max(d.maxBlockBytes, t.maxBlockBytes);
        if (t.propertiesAgree === false) d.disagreeing++;
        if (t.entriesCounted !== undefined) d.entriesCounted++;
      }
      return d;
    });
}

/** How a report is built; `tablesPending`: the model is an outline whose tables are still being read (TUI). */
export interface BuildOptions {
  tablesPending?: boolean;
}

export function buildCfReport(
  inst: InstanceModel,
  cf: ColumnFamilyModel,
  deep?: Map<string, DeepTableInfo>,
  opts: BuildOptions = {},
): CfReport {
  const knobs = analyzeCfKnobs(inst, cf);
  // entries as the header counts them (report/deep.ts): --deep's counts where a table has no property
  const layout = cfLayout(inst, cf, deep && ((f) => deep.get(f.path)?.entriesCounted));
  const flags: ReportFlag[] = [];
  for (const d of knobs.disagreements)
    flags.push({
      id: d.id,
      severity: d.severity,
      source: "knobs",
      level: d.level,
      message: knobFindingMessage(d),
    });
  for (const n of knobs.notes)
    flags.push({
      id: n.id,
      severity: n.severity,
      source: "knobs",
      level: n.level,
      message: knobFindingMessage(n),
    });
  for (const f of layout.flags)
    flags.push({ id: f.id, severity: f.severity, source: "layout", message: layoutFlagMessage(f, layout) });
  const cflags = clientFlags(inst, cf, knobs);
  // the client flag says the same as the plain "no filter" note, with why it matters here
  if (cflags.some((f) => f.id === "filter-none-client")) {
    const i = flags.findIndex((f) => f.id === "filter-none");
    if (i >= 0) flags.splice(i, 1);
  }
  flags.push(...cflags);
  const unread = knobs.carried.all.filesUnread - layout.missingFiles;
  // while the tables are still being read, those not read yet are not "could not be read"
  if (unread > 0 && knobs.carried.all.filesRead > 0 && !opts.tablesPending)
    flags.push({
      id: "files-unread",
      severity: "warn",
      source: "reader",
      message: `${unread} of ${plural(knobs.carried.all.files, "file")} could not be read by the SST reader (see findings)`,
    });
  flags.sort((a, b) => SEV_ORDER[a.severity] - SEV_ORDER[b.severity]);
  const r: CfReport = { cf, knobs, layout, flags };
  if ((inst.engine === "leveldb" || inst.engine === "pebble") && inst.client === "geth")
    r.keyCategories = keyCategories(cf);
  if (deep) r.deepLevels = deepLevels(cf, deep);
  return r;
}

/** A column family that holds something: tables, blob files or unflushed WAL writes (its section is shown). */
export const interesting = (c: CfReport): boolean =>
  c.layout.files > 0 || c.layout.blob.files > 0 || c.layout.unflushedWrites > 0;

export function buildInspectReport(
  model: DatadirModel,
  mode: InspectMode = "cheap",
  deep?: Map<string, DeepTableInfo>,
  opts: BuildOptions = {},
): InspectReport {
  const flagCounts: Record<FlagSeverity, number> = { error: 0, warn: 0, info: 0 };
  const instances = model.instances.map((inst) => {
    const cfs = inst.columnFamilies.map((cf) => buildCfReport(inst, cf, deep, opts));
    // stable order: CFs holding something first (in MANIFEST id order), then empty ones
    const ordered = [...cfs.filter(interesting), ...cfs.filter((c) => !interesting(c))];
    for (const c of cfs) for (const f of c.flags) flagCounts[f.severity]++;
    for (const f of shownFindings(inst.findings)) flagCounts[f.severity]++;
    return { instance: inst, cfs: ordered, wal: inst.wal, findings: inst.findings };
  });
  const t = {
    instances: model.instances.length,
    cfs: 0,
    sstFiles: 0,
    sstBytes: 0,
    blobFiles: 0,
    blobFileBytes: 0,
    walBytes: 0,
  };
  for (const f of model.findings)
    if (!model.instances.some((i) => i.findings.includes(f))) flagCounts[f.severity]++;
  for (const i of model.instances) {
    t.cfs += i.columnFamilies.length;
    t.sstFiles += i.totals.sstFiles;
    t.sstBytes += i.totals.sstBytes;
    t.blobFiles += i.totals.blobFiles;
    t.blobFileBytes += i.totals.blobFileBytes;
    t.walBytes += i.totals.walBytes;
  }
  return {
    root: model.root,
    mode,
    client: model.client,
    identity: model.identity,
    freezers: model.freezers,
    instances,
    findings: model.findings,
    complete: model.complete,
    elapsedMs: model.elapsedMs,
    totals: t,
    flagCounts,
  };
}
