/**
 * runCheck(): load the arm(s), run every rule, collect the findings in a stable order; and the exit-code
 * policy of `lsmscope check`.
 */
import { prepareChecksums } from "../format/checksum.js";
import { monotonicMs } from "../util/clock.js";
import { analyzeCfKnobs, type CfKnobs } from "../analysis/knobs.js";
import type { ColumnFamilyModel } from "../datadir/model.js";
import { loadArm, vetPair, EXIT_CANNOT_RUN } from "./arms.js";
import type {
  ArmModel,
  ArmSummary,
  CfRef,
  CheckContext,
  CheckFinding,
  CheckOptions,
  CheckReport,
  Rule,
} from "./types.js";
import { rule as filtersMissing } from "./rules/filters_missing.js";
import { rule as optionsMismatch } from "./rules/options_mismatch.js";
import { rule as optionsDrift } from "./rules/options_drift.js";
import { rule as placementOverlay } from "./rules/placement_overlay.js";
import { rule as l0Pileup } from "./rules/l0_pileup.js";
import { rule as wal } from "./rules/wal.js";
import { rule as blobFiles } from "./rules/blob_files.js";
import { rule as codePopulation } from "./rules/code_population.js";
import { rule as formatMix } from "./rules/format_mix.js";
import { rule as datadirFindings } from "./rules/datadir_findings.js";
import { rule as chainHead } from "./rules/chain_head.js";
import { attachIdentity, readIdentity } from "../identity/index.js";

/** Every rule, in report order. */
export const RULES: readonly Rule[] = [
  chainHead,
  filtersMissing,
  optionsMismatch,
  optionsDrift,
  placementOverlay,
  l0Pileup,
  wal,
  blobFiles,
  codePopulation,
  formatMix,
  datadirFindings,
];

export const EXIT = { clean: 0, warnings: 1, errors: 2, cannotRun: EXIT_CANNOT_RUN } as const;

function summary(a: ArmModel): ArmSummary {
  const m = a.model;
  return {
    root: m.root,
    client: m.client.kind,
    identity: (m.identity ??= readIdentity(m)),
    instances: m.instances.length,
    columnFamilies: m.instances.reduce((s, i) => s + i.columnFamilies.length, 0),
    sstFiles: m.instances.reduce((s, i) => s + i.totals.sstFiles, 0),
    sstBytes: m.instances.reduce((s, i) => s + i.totals.sstBytes, 0),
  };
}

const SEVERITY_ORDER = { error: 0, warn: 1, info: 2 } as const;
const ARM_ORDER = { both: 0, subject: 1, reference: 2 } as const;

/** Run the checks on DIR (and REF_DIR with `against`). Throws CheckCannotRunError (exit 3) when it cannot run. */
export async function runCheck(dir: string, opts: CheckOptions = {}): Promise<CheckReport> {
  const t0 = monotonicMs();
  // the WebAssembly XXH3 compiles while the arms load (the overlay's lookups check every block they read)
  void prepareChecksums();
  const subject = await loadArm(dir, "subject");
  let reference: ArmModel | undefined;
  try {
    reference = opts.against !== undefined ? await loadArm(opts.against, "reference") : undefined;
    if (reference) vetPair(subject.model, reference.model);
    return await checkArms(subject, reference, opts, t0);
  } finally {
    subject.tables?.close();
    reference?.tables?.close();
  }
}

/** Run the rules over arms already loaded (for callers that hold the models). */
export async function checkArms(
  subject: ArmModel,
  reference: ArmModel | undefined,
  opts: CheckOptions = {},
  t0 = monotonicMs(),
): Promise<CheckReport> {
  await prepareChecksums(); // never rejects: without WebAssembly the native XXH3 checks the blocks
  // the chain head is read before the rules: damage met on the way is one of the datadir's findings
  for (const a of [subject, reference]) if (a) attachIdentity(a.model);
  const memo = new Map<ColumnFamilyModel, CfKnobs>();
  const ctx: CheckContext = {
    subject,
    reference,
    options: opts,
    knobs: (r: CfRef) => {
      let k = memo.get(r.cf);
      if (!k) memo.set(r.cf, (k = analyzeCfKnobs(r.instance, r.cf)));
      return k;
    },
  };
  const findings: CheckFinding[] = [];
  for (const rule of RULES) findings.push(...(await rule.run(ctx)));
  // stable order: by rule (report order), then severity, arm, instance, cf
  const ruleIndex = new Map(RULES.map((r, i) => [r.id, i]));
  const idx = (f: CheckFinding) =>
    ruleIndex.get(f.rule) ?? (f.rule === "wal-inert" ? ruleIndex.get("wal-unflushed")! : 99);
  findings.sort(
    (a, b) =>
      idx(a) - idx(b) ||
      SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity] ||
      ARM_ORDER[a.arm] - ARM_ORDER[b.arm] ||
      a.instance.localeCompare(b.instance) ||
      a.cf.localeCompare(b.cf),
  );
  const counts = { error: 0, warn: 0, info: 0 };
  for (const f of findings) counts[f.severity]++;
  return {
    version: 1,
    subject: summary(subject),
    reference: reference ? summary(reference) : undefined,
    findings,
    counts,
    elapsedMs: Math.round(monotonicMs() - t0),
  };
}

/**
 * Exit code: 2 when any finding is an error; 1 when any is a warning and failOn is "warn"; else 0.
 * (3, the check could not run, comes from CheckCannotRunError.)
 */
export function exitCodeFor(report: CheckReport, failOn: "warn" | "error" = "error"): number {
  if (report.counts.error > 0) return EXIT.errors;
  if (failOn === "warn" && report.counts.warn > 0) return EXIT.warnings;
  return EXIT.clean;
}
