/**
 * Every file a command writes (`check --report`, `sizes --svg`, …) goes through here: never inside a
 * datadir being inspected (resolved through symlinks, and for a file that does not exist yet through its
 * parent), since a file there would change the store being judged and break read-only.
 */
import { realpathSync, writeFileSync } from "node:fs";
import { basename, dirname, resolve, sep } from "node:path";
import { LsmscopeError } from "./errors.js";

function real(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return resolve(p);
  }
}

const inside = (child: string, parent: string) =>
  child === parent || child.startsWith(parent.endsWith(sep) ? parent : parent + sep);

/**
 * Throws (one located line; exit `exitCode`, default 2) when `file` would land inside one of `datadirs`;
 * returns the path to write. `what` names the file in the message ("the report", "the SVG").
 */
export function assertOutsideDatadirs(
  file: string,
  datadirs: readonly string[],
  what: string,
  exitCode = 2,
): string {
  const abs = resolve(file);
  const parent = real(dirname(abs));
  const target = resolve(parent, basename(abs));
  for (const d of datadirs) {
    const root = real(d);
    if (inside(target, root) || inside(abs, resolve(d)))
      throw new LsmscopeError(`refusing to write ${what} inside the datadir ${d}`, { file, exitCode });
  }
  return target;
}

/** Write `content` to `file` after assertOutsideDatadirs. */
export function writeOutsideDatadirs(
  file: string,
  content: string,
  datadirs: readonly string[],
  what: string,
  exitCode = 2,
): void {
  writeFileSync(assertOutsideDatadirs(file, datadirs, what, exitCode), content);
}
