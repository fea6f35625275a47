/**
 * inspectDatadir(): a directory → the typed picture of every store in it (model.ts), without an engine,
 * without a lock, without writing a byte. Every file is opened read-only; damaged input becomes
 * findings (file, offset, message) and the model carries whatever could be read. Each store is read by
 * inspect_store.ts; whose datadir it is, by recognise.ts.
 */
import { statSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import { monotonicMs } from "../util/clock.js";
import { fromFsError, LsmscopeError } from "../util/errors.js";
import { discoverStores, whyNoStore } from "./discover.js";
import type { DatadirModel, Finding, InspectOptions, InstanceModel } from "./model.js";
import { loadTableDetailsReader } from "./table_details.js";
import { finishStore, inspectStoreOutline, settleColumnFamilies } from "./inspect_store.js";
import { besuClient, settleDatadirClient } from "./recognise.js";
import { tablesAhead } from "../util/interrupt_budget.js";
import { isTableFileName } from "../base/file_names.js";

/** The table files the stores' directories list. */
function tableFilesListed(stores: readonly { names: readonly string[] }[]): number {
  let n = 0;
  for (const s of stores) for (const name of s.names) if (isTableFileName(name)) n++;
  return n;
}

/** Build the model of every store found in `dir` (the directory itself or below it). */
export async function inspectDatadir(dir: string, opts: InspectOptions = {}): Promise<DatadirModel> {
  const t0 = monotonicMs();
  const root = isAbsolute(dir) ? dir : resolve(dir);
  let st;
  try {
    st = statSync(root);
  } catch (e) {
    throw fromFsError(e, dir) ?? e;
  }
  if (!st.isDirectory()) throw new LsmscopeError("not a directory", { file: root });

  const findings: Finding[] = [];
  const stores = discoverStores(root, opts.maxDepth ?? 4, findings);
  // how long the run will be shows here, before any MANIFEST is replayed (util/interrupt_budget.ts)
  tablesAhead(() => tableFilesListed(stores));
  const { client, besu } = besuClient(root, findings);

  const tableReader =
    opts.tableDetails === "cheap"
      ? await loadTableDetailsReader(findings, root, opts.onTableRead)
      : undefined;

  // every store's outline first, then their tables: a caller can show the outline meanwhile (onOutline)
  const outlines = stores.map((s) => inspectStoreOutline(root, s, besu !== undefined, opts));
  const instances: InstanceModel[] = outlines.map((o) => o.s.inst);
  if (stores.length === 0) {
    const why = whyNoStore(findings);
    findings.push({
      severity: "error",
      code: "no-store",
      file: root,
      message: `no store found (no directory with CURRENT or a Pebble marker)${why ? `: ${why}` : ""}`,
    });
  }
  // the client is recognised from the outlines (names, OPTIONS, keys), never from table details
  settleDatadirClient(client, instances);
  const assemble = (): DatadirModel => {
    const all = [...findings, ...instances.flatMap((i) => i.findings)];
    const complete = !all.some((f) => f.severity === "error");
    return {
      root,
      client,
      instances,
      findings: all,
      complete,
      elapsedMs: Math.round(monotonicMs() - t0),
    };
  };
  if (opts.onOutline) {
    for (const i of instances) settleColumnFamilies(i);
    await opts.onOutline(assemble);
  }
  for (const o of outlines) await finishStore(o, opts, tableReader);
  return assemble();
}

// what a command says about a model it could not read whole or at all (outcome.ts), where commands import it
export { incompleteLine, incompleteReasons, noReadableStoreError, pebbleEngineRefusal } from "./outcome.js";
