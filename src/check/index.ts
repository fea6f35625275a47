/**
 * `check`: scripted pre-benchmark sanity checks on one store or two arms. Entry point: runCheck().
 */
export { runCheck, checkArms, exitCodeFor, RULES, EXIT } from "./runner.js";
export { loadArm, vetPair, CheckCannotRunError, EXIT_CANNOT_RUN } from "./arms.js";
export { pairCfs, allCfs, type CfPair } from "./match.js";
export {
  measureOverlay,
  overlayLookupDemand,
  sharedLookupBudget,
  ratioInterval,
  DEFAULT_OVERLAY_SAMPLE,
  DEFAULT_OVERLAY_LOOKUP_BUDGET,
  type OverlayMeasurement,
  type OverlayOptions,
  type Estimate,
} from "./overlay.js";
export { seededRandom, Reservoir } from "./stats.js";
export { wilson } from "../util/interval.js";
export { renderTable, summaryLine } from "./render.js";
export { writeReportFile, assertReportPathOutside, reportJson } from "./report_file.js";
export { filterCoverage, type FilterCoverage } from "./rules/filters_missing.js";
export { knobDifferences } from "./rules/options_mismatch.js";
export { compactCommand } from "./rules/placement_overlay.js";
export {
  populationDifferences,
  type CodePopulationSide,
  type PopulationDifference,
} from "./rules/code_population.js";
export type {
  CheckReport,
  CheckFinding,
  CheckOptions,
  CheckSeverity,
  CheckContext,
  RuleId,
  Rule,
  Arm,
  ArmModel,
  ArmSummary,
  CfRef,
} from "./types.js";
