/**
 * Loading the arms of a check and refusing pairs that cannot be compared. Anything that keeps the check
 * itself from running (missing directory, no store, a Pebble store, an unreadable MANIFEST, two
 * different clients) is a CheckCannotRunError: one line, exit code 3.
 */
import { statSync } from "node:fs";
import { resolve } from "node:path";
import { inspectDatadir, noReadableStoreError } from "../datadir/inspect.js";
import type { DatadirModel } from "../datadir/model.js";
import { describeOsError, LsmscopeError, isUserError } from "../util/errors.js";
import { escapeText } from "../util/bytes.js";
import type { ArmModel } from "./types.js";

/** Exit code when the check itself could not run. */
export const EXIT_CANNOT_RUN = 3;

export class CheckCannotRunError extends LsmscopeError {
  constructor(message: string, file?: string, cause?: unknown) {
    super(message, { file, exitCode: EXIT_CANNOT_RUN, cause });
    this.name = "CheckCannotRunError";
  }
}

const label = (role: ArmModel["arm"]) => (role === "subject" ? "DIR" : "REF_DIR");

/** Read one arm (MANIFEST, OPTIONS, WAL, blob files, cheap per-table details) and vet it. */
export async function loadArm(dir: string, role: ArmModel["arm"]): Promise<ArmModel> {
  const root = resolve(dir);
  let isDir = false;
  try {
    isDir = statSync(root).isDirectory();
  } catch (e) {
    throw new CheckCannotRunError(`${label(role)}: ${describeOsError(e)}`, root);
  }
  if (!isDir) throw new CheckCannotRunError(`${label(role)}: not a directory`, root);
  let model: DatadirModel;
  try {
    model = await inspectDatadir(root, { tableDetails: "cheap" });
  } catch (e) {
    const msg = isUserError(e) ? e.oneLine() : (e as Error).message;
    throw new CheckCannotRunError(`${label(role)}: cannot read the datadir: ${msg}`, root, e);
  }
  vetModel(model, role);
  return { arm: role, dir, model };
}

function vetModel(model: DatadirModel, role: ArmModel["arm"]): void {
  const where = label(role);
  if (model.instances.length === 0)
    throw new CheckCannotRunError(`${where}: ${noReadableStoreError(model).message}`, model.root);
  const unreadable = model.instances.find((i) => !i.readable);
  if (unreadable) {
    // the finding names the file (the MANIFEST, CURRENT) and the offset where reading stopped
    const f = unreadable.findings.find((x) => x.severity === "error");
    const why = f
      ? `${f.file}${f.offset !== undefined ? ` @ offset ${f.offset}` : ""}: ${f.message}`
      : "MANIFEST not readable";
    throw new CheckCannotRunError(
      `${where}: store ${escapeText(unreadable.relPath)} is unreadable: ${escapeText(why)}`,
      unreadable.path,
    );
  }
}

/** Refuse two arms that are not the same kind of datadir. */
export function vetPair(subject: DatadirModel, reference: DatadirModel): void {
  if (subject.client.kind !== reference.client.kind)
    throw new CheckCannotRunError(
      `the arms hold different clients: DIR is ${subject.client.kind}, REF_DIR is ${reference.client.kind}`,
    );
  const engines = (m: DatadirModel) => [...new Set(m.instances.map((i) => i.engine))].sort().join("+");
  if (engines(subject) !== engines(reference))
    throw new CheckCannotRunError(
      `the arms hold different engines: DIR is ${engines(subject)}, REF_DIR is ${engines(reference)}`,
    );
}
