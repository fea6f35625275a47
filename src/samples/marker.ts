/**
 * The generator only ever writes into directories it created itself. Each sample directory it
 * creates gets a marker file; a target that exists without the marker is refused, and regeneration
 * deletes only marked directories.
 */
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { LsmscopeError } from "../util/errors.js";

export const MARKER_FILE = ".lsmscope-sample";

export function isGeneratedDir(dir: string): boolean {
  return existsSync(join(dir, MARKER_FILE));
}

/**
 * Make `dir` an empty, marked sample directory: create it if missing; if it exists, it must carry
 * the marker (it is then deleted and recreated); otherwise refuse without touching anything.
 */
export function prepareSampleDir(dir: string, info: Record<string, unknown>): void {
  if (existsSync(dir)) {
    if (!isGeneratedDir(dir)) {
      const entries = readdirSync(dir);
      throw new LsmscopeError(
        `refusing to write into ${dir}: it exists${entries.length ? ` (${entries.length} entries)` : ""} and was not created by the sample generator (no ${MARKER_FILE})`,
        { exitCode: 2 },
      );
    }
    rmSync(dir, { recursive: true, force: true });
  }
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, MARKER_FILE),
    JSON.stringify({ generator: "lsmscope samples", ...info }, null, 2) + "\n",
  );
}

export function readMarker(dir: string): Record<string, unknown> | undefined {
  if (!isGeneratedDir(dir)) return undefined;
  return JSON.parse(readFileSync(join(dir, MARKER_FILE), "utf8")) as Record<string, unknown>;
}
