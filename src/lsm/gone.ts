/**
 * Tables found gone when a scan opens them (this thread's list). Beside a live node a compaction
 * deletes its input tables once its new version is installed; a scan over the version read earlier
 * meets them missing. The readers skip such a table and note it here; the command then asks the
 * current MANIFEST (datadir/vanished.ts) whether each was replaced (a note) or is missing (damage).
 */
import { osErrorCode } from "../util/errors.js";

const gone = new Set<string>();
let tolerated = 0;

/**
 * Run `fn` with gone tables skipped (and noted) instead of thrown: only a reader that reports what it
 * skipped may (sizes); a comparison or a digest missing a table would be wrong, so they keep the error.
 */
export function toleratingGone<T>(fn: () => T): T {
  tolerated++;
  try {
    return fn();
  } finally {
    tolerated--;
  }
}

export function goneTolerated(): boolean {
  return tolerated > 0;
}

/** The error says the file does not exist (itself, or the OS error it wraps). */
export function isFileGone(err: unknown): boolean {
  if (osErrorCode(err) === "ENOENT") return true;
  return err instanceof Error && osErrorCode(err.cause) === "ENOENT";
}

export function noteGone(path: string): void {
  gone.add(path);
}

/** The paths noted since the last call, and forget them. */
export function takeGone(): string[] {
  const out = [...gone];
  gone.clear();
  return out;
}
