/** Helpers shared by the rules: arms as a list, finding construction, rounding for evidence. */
import type { ArmModel, CfRef, CheckContext, CheckFinding, CheckSeverity, RuleId } from "./types.js";
import { allCfs } from "./match.js";

export function arms(ctx: CheckContext): ArmModel[] {
  return ctx.reference ? [ctx.subject, ctx.reference] : [ctx.subject];
}

/** Every column family of every arm that holds at least one file. */
export function cfsWithFiles(arm: ArmModel): CfRef[] {
  return allCfs(arm.model).filter((r) => r.cf.totals.files > 0);
}

export function finding(
  rule: RuleId,
  severity: CheckSeverity,
  arm: CheckFinding["arm"],
  where: { instance: string; cf: string },
  message: string,
  evidence: Record<string, unknown>,
): CheckFinding {
  return { rule, severity, arm, instance: where.instance, cf: where.cf, message, evidence };
}

export const at = (r: CfRef) => ({ instance: r.instance.relPath, cf: r.cf.displayName });

/** Share in [0,1] rounded to 4 decimals for evidence. */
export const share = (part: number, whole: number): number =>
  whole > 0 ? Math.round((part / whole) * 10000) / 10000 : 0;

/** "DIR" / "REF_DIR" for messages about one arm. */
export const armLabel = (a: ArmModel["arm"]) => (a === "subject" ? "DIR" : "REF_DIR");
