/**
 * `compact`: merge column families into their bottom level with the options the store is meant to have,
 * verified knob by knob and by a logical digest. plan.ts (read only) → run.ts (engine) → verify.ts.
 */
import { LsmscopeError } from "../util/errors.js";
import { digestStore, type StoreDigest } from "./digest.js";
import { planCompaction, type CompactPlan, type PlanOptions } from "./plan.js";
import { runCompaction, type RunOptions, type RunResult } from "./run.js";
import { verifyCompaction, type VerifyReport } from "./verify.js";
import { preflight } from "./preflight.js";

export { planCompaction, planForInstance, DISK_HEADROOM_BYTES } from "./plan.js";
export type { CompactPlan, CfPlan, PlanOptions, LevelLayout } from "./plan.js";
export { runCompaction, parseTickers } from "./run.js";
export type { RunOptions, RunResult, CfRunResult, RunProgress } from "./run.js";
export { verifyCompaction, inspectStore } from "./verify.js";
export type { VerifyReport, CfVerification } from "./verify.js";
export { digestStore, digestColumnFamily, resolveStore } from "./digest.js";
export type { StoreDigest, CfDigest } from "./digest.js";
export { lockState, lockRefusal, diskState } from "./guards.js";
// the name the library exported before session 51; the value is the engine's (engine/index.ts)
export { ENGINE_MAX_FORMAT_VERSION as MAX_ENGINE_FORMAT_VERSION } from "../engine/index.js";
export { preflight, type Preflight } from "./preflight.js";
export type { Refusal, LockState, DiskState } from "./guards.js";
export { intendedKnobs, checkFileKnobs, summariseChecks, fastBloomBytes, KNOBS } from "./intended.js";
export type { IntendedKnobs, FileKnobCheck, KnobRow, Knob } from "./intended.js";
export { readOptionsSource, optionsToApply, REFERENCE_CF_KEYS } from "./options.js";
export type { OptionsSource, CfOptionsToApply } from "./options.js";
export { COMPACT_RATE_ESTIMATE } from "./rate.js";
export { renderPlanText, renderOutcomeText } from "./render.js";

/** Refused before anything was written: `refusals` holds every reason, the message the first. */
export class CompactRefusedError extends LsmscopeError {
  readonly refusals: CompactPlan["refusals"];
  constructor(plan: CompactPlan, by: "plan" | "pre-flight" = "plan") {
    const r = plan.refusals;
    super(
      `refused${by === "pre-flight" ? " by the pre-flight (nothing written)" : ""}: ${r[0]!.message}${r.length > 1 ? ` (and ${r.length - 1} more reasons; ${by === "plan" ? "see the plan" : "lsmscope inspect --verify lists them"})` : ""}`,
      {
        file: plan.store,
      },
    );
    this.name = "CompactRefusedError";
    this.refusals = r;
  }
}

export interface CompactOutcome {
  plan: CompactPlan;
  digestBefore: StoreDigest;
  run: RunResult;
  verify: VerifyReport;
}

/**
 * Plan, refuse or run, verify. Throws CompactRefusedError (nothing written) when the plan has refusals.
 * The digest before is taken from the files before the engine opens the store.
 */
export async function compactStore(
  dir: string,
  opts: PlanOptions &
    RunOptions & {
      plan?: CompactPlan;
      /** Bytes of tables and blob files checksummed by the pre-flight so far, of the total. */
      onPreflightProgress?: (done: number, total: number) => void;
    } = {},
): Promise<CompactOutcome> {
  const plan = opts.plan ?? (await planCompaction(dir, opts));
  if (plan.refusals.length > 0) throw new CompactRefusedError(plan);
  const pre = await preflight(plan, { onProgress: opts.onPreflightProgress });
  if (pre.refusals.length > 0)
    throw new CompactRefusedError({ ...plan, refusals: pre.refusals }, "pre-flight");
  const cfHex = plan.columnFamilies.map((c) => c.nameHex);
  const digestBefore = await digestStore(plan.store, cfHex);
  const run = await runCompaction(plan, opts);
  const before = new Map(plan.columnFamilies.map((c) => [c.nameHex, new Set(c.fileNumbers)]));
  const verify = await verifyCompaction(plan, digestBefore, before);
  return { plan, digestBefore, run, verify };
}
