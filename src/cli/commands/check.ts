/**
 * `lsmscope check DIR [--against REF_DIR] [--json] [--fail-on warn|error] [--report FILE]`: pre-benchmark
 * sanity checks. Thin over runCheck() (src/check). Reads only; the one write is --report, never inside
 * a datadir.
 */
import type { CommandModule } from "yargs";
import type { Rule } from "../../check/types.js";
import { fromFsError, isUserError, LsmscopeError } from "../../util/errors.js";
import { outputWidth } from "../width.js";

interface Args {
  dir: string;
  against?: string;
  json: boolean;
  "fail-on": "warn" | "error";
  report?: string;
  sample: number;
  "overlay-scan-limit"?: number;
  "overlay-lookups": number;
  "code-sample-blocks"?: number;
  seed: number;
}

const epilog = (RULES: readonly Rule[]) => `Rules (stable ids in --json "rule"):
${RULES.map((r) => `  ${r.id.padEnd(18)} ${r.describe}`).join("\n")}
  wal-inert          WAL files that hold nothing unflushed, and their size

Exit codes:
  0  clean: no errors (and no warnings under --fail-on warn)
  1  warnings, with --fail-on warn
  2  errors (e.g. arms configured differently, filters in one arm only)
  3  the check could not run: missing directory, no store, an unreadable store,
     arms of different clients or engines, --report path inside a datadir

stdout: a table on a terminal, else one summary line; --json: {"findings": [...], ...}`;

export const command: CommandModule<object, Args> = {
  command: "check <dir>",
  describe: "Pre-benchmark sanity checks on one store, or two arms side by side (--against)",
  // the check library (for the rule list and defaults) loads only when this command is parsed
  builder: async (y) => {
    const [{ RULES }, { DEFAULT_OVERLAY_SAMPLE, DEFAULT_OVERLAY_LOOKUP_BUDGET }] = await Promise.all([
      import("../../check/runner.js"),
      import("../../check/overlay.js"),
    ]);
    return y
      .positional("dir", { type: "string", demandOption: true, describe: "datadir or store directory" })
      .option("against", { type: "string", describe: "reference arm REF_DIR to compare with" })
      .option("json", { type: "boolean", default: false, describe: 'print {"findings": [...]} as JSON' })
      .option("fail-on", {
        choices: ["warn", "error"] as const,
        default: "error" as const,
        describe: "lowest severity that makes the exit code non-zero",
      })
      .option("report", {
        type: "string",
        describe: "also write the JSON report to FILE (outside the datadirs)",
      })
      .option("sample", {
        type: "number",
        default: DEFAULT_OVERLAY_SAMPLE,
        describe: "placement-overlay: entries sampled above the bottom level per column family",
      })
      .option("overlay-scan-limit", {
        type: "number",
        describe:
          "placement-overlay: MiB above the bottom level up to which every entry is scanned (beyond: block sampling; default: scan when that reads fewer blocks)",
      })
      .option("overlay-lookups", {
        type: "number",
        default: DEFAULT_OVERLAY_LOOKUP_BUDGET,
        describe:
          "placement-overlay: table lookups allowed per datadir, shared by its column families (beyond: fewer entries checked, wider interval)",
      })
      .option("code-sample-blocks", {
        type: "number",
        describe:
          "code-population: data blocks drawn per column family of both arms (0: every block; default: every block when neither arm's account and code tables hold more than 16 MiB, else 200, fewer where their lookups would pass 200,000 an arm)",
      })
      .option("seed", {
        type: "number",
        default: 1,
        describe: "seed of the samples (same seed, same numbers)",
      })
      .epilog(epilog(RULES));
  },
  handler: async (argv) => {
    const [
      { runCheck, exitCodeFor },
      { renderTable, summaryLine },
      { assertReportPathOutside, reportJson, writeReportFile },
      { CheckCannotRunError },
    ] = await Promise.all([
      import("../../check/runner.js"),
      import("../../check/render.js"),
      import("../../check/report_file.js"),
      import("../../check/arms.js"),
    ]);
    try {
      if (!Number.isInteger(argv.sample) || argv.sample < 1)
        throw new LsmscopeError("--sample must be a positive integer", { exitCode: 3 });
      if (!Number.isInteger(argv["overlay-lookups"]) || argv["overlay-lookups"] < 1)
        throw new LsmscopeError("--overlay-lookups must be a positive integer", { exitCode: 3 });
      const codeBlocks = argv["code-sample-blocks"];
      if (codeBlocks !== undefined && !(Number.isInteger(codeBlocks) && codeBlocks >= 0))
        throw new LsmscopeError("--code-sample-blocks must be an integer >= 0", { exitCode: 3 });
      const scanLimit = argv["overlay-scan-limit"];
      if (scanLimit !== undefined && !(scanLimit >= 0))
        throw new LsmscopeError("--overlay-scan-limit must be a number of MiB >= 0", { exitCode: 3 });
      const dirs = [argv.dir, ...(argv.against !== undefined ? [argv.against] : [])];
      // refuse a report path inside a datadir before reading anything
      if (argv.report !== undefined) assertReportPathOutside(argv.report, dirs);
      const tty = Boolean(process.stderr.isTTY) && !argv.json;
      const report = await runCheck(argv.dir, {
        against: argv.against,
        overlaySample: argv.sample,
        overlayScanLimitBytes: scanLimit === undefined ? undefined : scanLimit * 1024 * 1024,
        overlayLookupBudget: argv["overlay-lookups"],
        seed: argv.seed,
        codeSampleBlocks: argv["code-sample-blocks"],
        onProgress: tty
          ? (what) => process.stderr.write(`\r\x1b[Kchecking: ${what.slice(0, 100)}`)
          : undefined,
      });
      if (tty) process.stderr.write("\r\x1b[K");
      const code = exitCodeFor(report, argv["fail-on"]);
      if (argv.report !== undefined) writeReportFile(argv.report, report, dirs);
      if (argv.json) process.stdout.write(reportJson(report));
      else if (process.stdout.isTTY) process.stdout.write(renderTable(report, code, outputWidth()));
      else process.stdout.write(summaryLine(report, code) + "\n");
      process.exitCode = code;
    } catch (e) {
      // every failure to run the check itself exits 3
      if (e instanceof CheckCannotRunError || (isUserError(e) && e.exitCode === 3)) throw e;
      const user = isUserError(e) ? e : fromFsError(e);
      if (user) throw new CheckCannotRunError(user.oneLine(), undefined, e);
      throw e;
    }
  },
};
