/**
 * `--report FILE`: the JSON for the harness. The only write `check` makes, and never inside a datadir
 * it checks (resolved through symlinks): a report there would change the store being judged.
 */
import { realpathSync, writeFileSync } from "node:fs";
import { basename, dirname, resolve, sep } from "node:path";
import { LsmscopeError } from "../util/errors.js";
import type { CheckReport } from "./types.js";

function real(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return resolve(p);
  }
}

const inside = (child: string, parent: string) =>
  child === parent || child.startsWith(parent.endsWith(sep) ? parent : parent + sep);

/** Throws (exit 3) when `file` would land inside one of `datadirs`. */
export function assertReportPathOutside(file: string, datadirs: string[]): string {
  const abs = resolve(file);
  const parent = real(dirname(abs));
  const target = resolve(parent, basename(abs));
  for (const d of datadirs) {
    const root = real(d);
    if (inside(target, root) || inside(abs, resolve(d)))
      throw new LsmscopeError(`refusing to write the report inside the datadir ${d}`, { file, exitCode: 3 });
  }
  return target;
}

/** Write the report JSON to `file` (after assertReportPathOutside). */
export function writeReportFile(file: string, report: CheckReport, datadirs: string[]): void {
  const target = assertReportPathOutside(file, datadirs);
  writeFileSync(target, reportJson(report));
}

/** The JSON shape printed by --json and written by --report: findings first. */
export function reportJson(report: CheckReport): string {
  const { findings, ...rest } = report;
  return JSON.stringify({ findings, ...rest }, null, 2) + "\n";
}
