/**
 * Gathers what the HTML report shows for one or two datadirs: the inspect report (cheap table details)
 * with identity and freezers, sampled size distributions, and `check` (with --against for two arms).
 */
import { runInspect } from "../report/deep.js";
import { buildInspectReport } from "../report/build.js";
import { addDatadirViews } from "../report/views.js";
import { computeSizes } from "../sizes/compute.js";
import { runCheck } from "../check/runner.js";
import { renderHtmlReport, type HtmlArm } from "./index.js";

export interface HtmlReportOptions {
  /** Data blocks sampled per column family for the size histograms (default 64). */
  sampleBlocks?: number;
}

async function gatherArm(dir: string, label: string, opts: HtmlReportOptions): Promise<HtmlArm> {
  const { model, mode } = await runInspect(dir, { mode: "cheap" });
  addDatadirViews(model);
  const readable = model.instances.some((i) => i.readable && i.engine !== "pebble");
  const sizes = readable
    ? await computeSizes(dir, { model, mode: "sample", sampleBlocks: opts.sampleBlocks ?? 64, seed: 1 })
    : undefined;
  return { label, inspect: buildInspectReport(model, mode), sizes };
}

export async function buildHtmlReport(
  dirA: string,
  dirB: string | undefined,
  opts: HtmlReportOptions = {},
): Promise<string> {
  const arms = [await gatherArm(dirA, dirB ? "A" : "datadir", opts)];
  if (dirB) arms.push(await gatherArm(dirB, "B", opts));
  const check = await runCheck(dirA, dirB ? { against: dirB } : {});
  return renderHtmlReport(arms, check);
}
