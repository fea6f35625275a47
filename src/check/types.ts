/**
 * What `check` produces: findings with a stable rule id, a severity, where (instance, column family,
 * arm) and the numbers behind them. Plain data, so `--json` / `--report` print it as is.
 */
import type { KeptFilters } from "../lsm/kept_filters.js";
import type { KeptTables } from "../lsm/kept_tables.js";
import type { DatadirModel, InstanceModel, ColumnFamilyModel } from "../datadir/model.js";
import type { CfKnobs } from "../analysis/knobs.js";

export type CheckSeverity = "info" | "warn" | "error";

/** Stable rule ids (never renamed: harnesses match on them). */
export type RuleId =
  | "filters-missing"
  | "options-mismatch"
  | "options-drift"
  | "placement-overlay"
  | "l0-pileup"
  | "wal-unflushed"
  | "wal-inert"
  | "blob-files"
  | "code-population"
  | "format-mix"
  | "datadir-finding"
  | "chain-head";

/** Which store a finding is about: DIR ("subject"), REF_DIR ("reference"), or the pair ("both"). */
export type Arm = "subject" | "reference" | "both";

export interface CheckFinding {
  rule: RuleId;
  severity: CheckSeverity;
  arm: Arm;
  /** Instance path relative to the arm's root ("." for the root itself), or "" for the datadir. */
  instance: string;
  /** Column family display name (e.g. "cf06 ACCOUNT_INFO_STATE"), or "" when not about one CF. */
  cf: string;
  message: string;
  evidence: Record<string, unknown>;
}

export interface ArmSummary {
  root: string;
  client: string;
  /** Chain head, state root and writer (src/identity/). */
  identity: import("../identity/index.js").DatadirIdentity;
  instances: number;
  columnFamilies: number;
  sstFiles: number;
  sstBytes: number;
}

export interface CheckReport {
  /** Report layout version. */
  version: 1;
  subject: ArmSummary;
  reference?: ArmSummary;
  findings: CheckFinding[];
  counts: { error: number; warn: number; info: number };
  elapsedMs: number;
}

export interface CheckOptions {
  /** Second arm (REF_DIR) to compare against. */
  against?: string;
  /** Entries sampled per column family for placement-overlay (default 4000; all when fewer above bottom). */
  overlaySample?: number;
  /**
   * Bytes above the bottom level up to which placement-overlay scans every entry (beyond: block
   * sampling); default: scan only when that reads no more blocks than block sampling would.
   */
  overlayScanLimitBytes?: number;
  /**
   * Table lookups placement-overlay may make per datadir (each arm), shared by its column families
   * (default 100,000; see check/overlay.ts sharedLookupBudget).
   */
  overlayLookupBudget?: number;
  /** Seed for the overlay sample (default fixed: reruns give the same numbers). */
  seed?: number;
  /** code-population: sample this many data blocks per column family instead of reading every block. */
  codeSampleBlocks?: number;
  /** Progress on stderr. */
  onProgress?: (what: string) => void;
}

/** One arm as the rules see it: the model plus where it came from. */
export interface ArmModel {
  arm: Exclude<Arm, "both">;
  /** The directory as the user named it (for commands we print). */
  dir: string;
  model: DatadirModel;
  /**
   * The whole-key filters of the tables its model read opened (bounded by bytes): the placement
   * overlay's lookups skip a table its kept filter rules out, without opening it again.
   */
  filters?: KeptFilters;
  /** The tables its model read, kept parsed for the rules' lookups (lsm/kept_tables.ts). */
  tables?: KeptTables;
}

/** A CF located in its instance, for rules that work per column family. */
export interface CfRef {
  instance: InstanceModel;
  cf: ColumnFamilyModel;
}

/** What every rule gets: the arms, the options, and memoised per-CF knobs. */
export interface CheckContext {
  subject: ArmModel;
  reference?: ArmModel;
  options: CheckOptions;
  /** Configured vs carried knobs of one CF (src/analysis/knobs.ts), computed once per CF. */
  knobs(ref: CfRef): CfKnobs;
}

export interface Rule {
  id: RuleId;
  /** One line for --help and the README. */
  describe: string;
  run(ctx: CheckContext): CheckFinding[] | Promise<CheckFinding[]>;
}
