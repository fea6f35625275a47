/**
 * `lsmscope compact DIR [--cf NAME...] [--options-from REF] [--accept-option-change KNOB...] [--yes]
 * [--json]`: without --yes the plan only (nothing written); with --yes the forced compaction to the
 * bottom level, then the verification. Exit: 0 done and verified (or a plan that would run, or nothing to
 * do), 2 refused or verification problems, 130 cancelled with Ctrl-C (the store stays valid).
 */
import type { CommandModule } from "yargs";
import { CF_NAME_FORMS } from "../../datadir/cf_select.js";
import { createProgress, type Progress } from "../../util/progress.js";
import { outputWidth } from "../width.js";

interface Args {
  dir: string;
  cf?: string[];
  optionsFrom?: string;
  acceptOptionChange?: string[];
  yes: boolean;
  force: boolean;
  json: boolean;
}

export const command: CommandModule<object, Args> = {
  command: "compact <dir>",
  describe:
    "Merge column families into their bottom level (forced CompactRange) with matched options, verified",
  // the compact library (for the knob list) loads only when this command is parsed
  builder: async (y) => {
    const { KNOBS } = await import("../../compact/index.js");
    return y
      .positional("dir", { type: "string", demandOption: true, describe: "store directory or datadir" })
      .option("cf", {
        type: "string",
        array: true,
        describe: `column families to compact (${CF_NAME_FORMS}); default all`,
      })
      .option("options-from", {
        type: "string",
        describe: "apply another store's per-CF table options: its directory, datadir or OPTIONS file",
      })
      .option("accept-option-change", {
        type: "string",
        array: true,
        describe: `let these knobs change from what the files carry: ${KNOBS.join(", ")}, all`,
      })
      .option("yes", { type: "boolean", default: false, describe: "run it (without: print the plan only)" })
      .option("force", {
        type: "boolean",
        default: false,
        describe: "rewrite column families that already sit in their bottom level with the intended knobs",
      })
      .option("json", { type: "boolean", default: false, describe: "print JSON" });
  },
  handler: async (argv) => {
    const { CompactRefusedError, compactStore, planCompaction, renderOutcomeText, renderPlanText } =
      await import("../../compact/index.js");
    const plan = await planCompaction(argv.dir, {
      cfs: argv.cf,
      optionsFrom: argv.optionsFrom,
      acceptOptionChange: argv.acceptOptionChange,
      force: argv.force,
    });
    if (!argv.yes || (plan.nothingToDo && !argv.force && plan.refusals.length === 0)) {
      process.stdout.write(
        argv.json ? JSON.stringify(plan, null, 2) + "\n" : renderPlanText(plan, outputWidth()),
      );
      if (plan.refusals.length > 0) process.exitCode = 2;
      return;
    }
    if (plan.refusals.length > 0) throw new CompactRefusedError(plan);
    if (!argv.json)
      process.stdout.write(
        renderPlanText(plan, outputWidth()).replace(/ready: run again with --yes to compact\n$/, ""),
      );
    const abort = new AbortController();
    const onSigint = () => {
      process.stderr.write("\ncancelling the manual compaction (the store stays valid)...\n");
      abort.abort();
      process.removeListener("SIGINT", onSigint); // a second Ctrl-C ends the process
    };
    process.on("SIGINT", onSigint);
    // the bar follows the bytes read, which the plan knows (written bytes shrink by what is dropped)
    const progress = createProgress({
      label: "compacting",
      total: plan.totals.estimatedReadBytes,
      unit: "bytes",
      logStart: true,
    });
    try {
      let checked: Progress | undefined;
      const out = await compactStore(argv.dir, {
        plan,
        onPreflightProgress: (done, total) => {
          checked ??= createProgress({ label: "pre-flight: checksums", total, unit: "bytes" });
          checked.update(done);
          if (done >= total) checked.done();
        },
        signal: abort.signal,
        // RocksDB may read more than estimated: hold the bar at the total, the report gives the real bytes
        onProgress: (p) => progress.update(Math.min(p.readBytes, plan.totals.estimatedReadBytes), p.cf),
      });
      progress.done(out.run.status);
      if (abort.signal.aborted && out.run.status === "done")
        process.stderr.write("Ctrl-C came after the last compaction had finished: nothing was cancelled\n");
      process.stdout.write(
        argv.json
          ? JSON.stringify(
              { plan: out.plan, digestBefore: out.digestBefore, run: out.run, verify: out.verify },
              null,
              2,
            ) + "\n"
          : "\n" + renderOutcomeText(out.run, out.verify, outputWidth()),
      );
      process.exitCode = out.run.status === "cancelled" ? 130 : out.verify.ok ? 0 : 2;
    } finally {
      process.removeListener("SIGINT", onSigint);
    }
  },
};
