/**
 * `--report FILE`: the JSON for the harness. The only write `check` makes, and never inside a datadir
 * it checks (util/output_file.ts): a report there would change the store being judged. Exit 3: the check
 * could not run.
 */
import { assertOutsideDatadirs, writeOutsideDatadirs } from "../util/output_file.js";
import type { CheckReport } from "./types.js";

/** Throws (exit 3) when `file` would land inside one of `datadirs`. */
export function assertReportPathOutside(file: string, datadirs: string[]): string {
  return assertOutsideDatadirs(file, datadirs, "the report", 3);
}

/** Write the report JSON to `file` (after assertReportPathOutside). */
export function writeReportFile(file: string, report: CheckReport, datadirs: string[]): void {
  writeOutsideDatadirs(file, reportJson(report), datadirs, "the report", 3);
}

/** The JSON shape printed by --json and written by --report: findings first. */
export function reportJson(report: CheckReport): string {
  const { findings, ...rest } = report;
  return JSON.stringify({ findings, ...rest }, null, 2) + "\n";
}
