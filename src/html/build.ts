/**
 * Gathers what the HTML report shows for one or two datadirs: the inspect report (cheap table details)
 * with identity and freezers, sampled size distributions, probes from definition files when asked, and
 * `check` (with --against for two arms).
 */
import { runInspect } from "../report/deep.js";
import { incompleteReasons } from "../datadir/outcome.js";
import { buildInspectReport } from "../report/build.js";
import { addDatadirViews } from "../report/views.js";
import { computeSizes } from "../sizes/compute.js";
import { runCheck } from "../check/runner.js";
import { runProbe } from "../probe/probe.js";
import { loadProbeDefinition } from "../probe/definitions.js";
import { isUserError } from "../util/errors.js";
import { renderHtmlReport, type HtmlArm, type HtmlProbe } from "./index.js";

export interface HtmlReportOptions {
  /** Data blocks sampled per column family for the size histograms (default 64). */
  sampleBlocks?: number;
  /** Probe definition files (probes/*.json) to run on each arm whose client they are for. */
  probes?: string[];
}

/** Each definition's probe on one arm; a probe that cannot run is a line saying why, not a failure. */
async function probeArm(dir: string, client: string, defs: string[]): Promise<HtmlProbe[]> {
  const out: HtmlProbe[] = [];
  for (const path of defs) {
    const def = loadProbeDefinition(path);
    const o = def.options;
    if (def.client && def.client !== client) {
      out.push({ name: def.name, note: `for ${def.client} stores; this datadir is ${client}` });
      continue;
    }
    if (!o.cf || !o.keys || !o.counts) {
      out.push({ name: def.name, note: "the definition names no cf, keys or count" });
      continue;
    }
    try {
      const report = await runProbe(dir, {
        ...o,
        cf: o.cf,
        keys: o.keys,
        counts: o.counts,
        path: o.path ?? "reader",
        seed: o.seed ?? "report",
      });
      out.push({ name: def.name, report });
    } catch (e) {
      if (!isUserError(e)) throw e;
      out.push({ name: def.name, note: e.oneLine() });
    }
  }
  return out;
}

async function gatherArm(
  dir: string,
  label: string,
  opts: HtmlReportOptions,
): Promise<{ arm: HtmlArm; incomplete: string[] }> {
  const { model, mode } = await runInspect(dir, { mode: "cheap" });
  addDatadirViews(model);
  const readable = model.instances.some((i) => i.readable && i.engine !== "pebble");
  const sizes = readable
    ? await computeSizes(dir, { model, mode: "sample", sampleBlocks: opts.sampleBlocks ?? 64, seed: 1 })
    : undefined;
  const probes = opts.probes?.length ? await probeArm(dir, model.client.kind, opts.probes) : undefined;
  const incomplete = sizes?.incomplete ?? incompleteReasons(model);
  return { arm: { label, inspect: buildInspectReport(model, mode), sizes, probes }, incomplete };
}

/** The page, and the error findings that left either arm's picture incomplete (the CLI exits 2). */
export async function buildHtmlReport(
  dirA: string,
  dirB: string | undefined,
  opts: HtmlReportOptions = {},
): Promise<{ html: string; incomplete: string[] }> {
  const gathered = [await gatherArm(dirA, dirB ? "A" : "datadir", opts)];
  if (dirB) gathered.push(await gatherArm(dirB, "B", opts));
  const check = await runCheck(dirA, dirB ? { against: dirB } : {});
  return {
    html: renderHtmlReport(
      gathered.map((g) => g.arm),
      check,
    ),
    incomplete: gathered.flatMap((g) => g.incomplete),
  };
}
