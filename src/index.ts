/**
 * lsmscope library API. The CLI and TUI are thin layers over what is exported here; scripts can import
 * the same functions.
 */
export * from "./util/errors.js";
export * from "./util/bytes.js";
export { createProgress } from "./util/progress.js";
export type { Progress, ProgressOptions } from "./util/progress.js";
export * as engine from "./engine/index.js";
export * as eth from "./eth/index.js";
export * from "./datadir/index.js";
export * from "./format/index.js";
export * from "./analysis/knobs.js";
export * from "./sizes/index.js";
export * as contracts from "./sizes/contracts/index.js";
export { setReadRateLimit, readRateLimit } from "./util/throttle.js";
export * as probe from "./probe/index.js";
export { runProbe, loadProbeDefinition, renderProbeReport } from "./probe/index.js";
export type { ProbeOptions, ProbeReport, ProbePoint, ProbeComparison, LookupTrace } from "./probe/index.js";
export * as compact from "./compact/index.js";
export {
  planCompaction,
  runCompaction,
  verifyCompaction,
  compactStore,
  digestStore,
  CompactRefusedError,
} from "./compact/index.js";
export type {
  CompactPlan,
  CfPlan,
  RunResult,
  VerifyReport,
  StoreDigest,
  CfDigest,
  CompactOutcome,
} from "./compact/index.js";
export * as check from "./check/index.js";
export { runCheck, exitCodeFor, CheckCannotRunError, measureOverlay } from "./check/index.js";
export type {
  CheckReport,
  CheckFinding,
  CheckOptions,
  CheckSeverity,
  RuleId,
  OverlayMeasurement,
} from "./check/index.js";
export * from "./analysis/layout.js";
export { clientFilterExpectation, type ClientFilterExpectation } from "./analysis/expectations.js";
export {
  runInspect,
  readTableDeep,
  type InspectMode,
  type InspectResult,
  type RunInspectOptions,
  type DeepTableInfo,
  type DeepTableResult,
} from "./report/deep.js";
export {
  buildInspectReport,
  buildCfReport,
  type InspectReport,
  type InstanceReport,
  type CfReport,
  type ReportFlag,
  type FlagSeverity,
  type DeepLevel,
} from "./report/build.js";
export { renderInspectReport, renderCf, type RenderOptions } from "./report/render.js";
export {
  describeTable,
  buildReport,
  renderTableText,
  reportJson,
  type TableReport,
  type DescribeOptions,
} from "./report/sst.js";
