/**
 * Loading the arms of a check and refusing pairs that cannot be compared. Anything that keeps the check
 * itself from running (missing directory, no store, a Pebble store, an unreadable MANIFEST, two
 * different clients) is a CheckCannotRunError: one line, exit code 3.
 */
import { KeptFilters } from "../lsm/kept_filters.js";
import { KeptTables } from "../lsm/kept_tables.js";
import { statSync } from "node:fs";
import { resolve } from "node:path";
import { inspectDatadir, noReadableStoreError } from "../datadir/inspect.js";
import { unreadableStoreReason } from "../datadir/outcome.js";
import type { DatadirModel } from "../datadir/model.js";
import type { TableReadHook } from "../datadir/table_details.js";
import { describeOsError, LsmscopeError, isUserError } from "../util/errors.js";
import type { ArmModel } from "./types.js";

/** Exit code when the check itself could not run. */
export const EXIT_CANNOT_RUN = 3;

export class CheckCannotRunError extends LsmscopeError {
  constructor(message: string, file?: string, cause?: unknown) {
    super(message, { file, exitCode: EXIT_CANNOT_RUN, cause });
    this.name = "CheckCannotRunError";
  }
}

/**
 * The largest filter kept of each table the model read opens, for the placement overlay's lookups
 * (ArmModel.filters): a small table's filter lies in the tail the read already holds, and on an L0 pile-up
 * keeping them spares the overlay reopening thousands of tables (/tmp/l0: 8,888 -> 5,327 opens, check
 * 2.2 -> 1.6x inspect). A large table's filter (MiBs) would be a read of its own, for tables few enough
 * to reopen (/tmp/inspect6/big/db, 145 tables: check 0.12 -> 0.20 s and 67 -> 138 MiB keeping all).
 */
const KEEP_FILTER_MAX_BYTES = 32 * 1024;

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
  const filters = new KeptFilters();
  const tables = new KeptTables();
  const onTableRead: TableReadHook = (t) => {
    if (t.filter.filterBytes <= KEEP_FILTER_MAX_BYTES) filters.keep(t);
    return tables.keep(t);
  };
  try {
    try {
      model = await inspectDatadir(root, { tableDetails: "cheap", onTableRead });
    } catch (e) {
      const msg = isUserError(e) ? e.oneLine() : (e as Error).message;
      throw new CheckCannotRunError(`${label(role)}: cannot read the datadir: ${msg}`, root, e);
    }
    vetModel(model, role);
  } catch (e) {
    // an arm refused keeps nothing open
    tables.close();
    throw e;
  }
  return { arm: role, dir, model, filters, tables };
}

function vetModel(model: DatadirModel, role: ArmModel["arm"]): void {
  const where = label(role);
  if (model.instances.length === 0)
    throw new CheckCannotRunError(`${where}: ${noReadableStoreError(model).message}`, model.root);
  const unreadable = model.instances.find((i) => !i.readable);
  // the reason names the file (the MANIFEST, CURRENT) and the offset where reading stopped; the error's
  // file the store
  if (unreadable)
    throw new CheckCannotRunError(`${where}: ${unreadableStoreReason(unreadable)}`, unreadable.path);
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
