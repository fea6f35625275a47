/**
 * `lsmscope diff A B [--cf NAME...] [--json] [--limit N]`: do two stores hold the same live data? Thin
 * over diffDatadirs() (src/diff/). Exit 0 when identical, 1 when different, 2 on bad input — like diff(1).
 */
import type { CommandModule } from "yargs";
import { CF_NAME_FORMS } from "../../datadir/cf_select.js";
import { createProgress, type Progress } from "../../util/progress.js";
import { LsmscopeError } from "../../util/errors.js";
import { outputWidth } from "../width.js";

interface Args {
  a: string;
  b: string;
  cf?: string | string[];
  json: boolean;
  limit: number;
}

export const command: CommandModule<object, Args> = {
  command: "diff <a> <b>",
  describe: "Compare the live keys and values of two stores, column family by column family",
  builder: (y) =>
    y
      .positional("a", { type: "string", demandOption: true, describe: "datadir or store directory" })
      .positional("b", { type: "string", demandOption: true, describe: "datadir or store directory" })
      .option("cf", {
        // not `array: true`: that would swallow the positional arguments after it; repeats still collect
        type: "string",
        describe: `column family (${CF_NAME_FORMS}); repeatable`,
      })
      .option("json", { type: "boolean", default: false, describe: "print the result as JSON" })
      .option("limit", {
        type: "number",
        default: 10,
        describe: "differing keys listed per column family",
      }),
  handler: async (argv) => {
    if (!Number.isInteger(argv.limit) || argv.limit < 0)
      throw new LsmscopeError(`--limit needs a whole number >= 0, got ${argv.limit}`);
    const [{ diffDatadirs }, { renderDiffText }] = await Promise.all([
      import("../../diff/index.js"),
      import("../../diff/render.js"),
    ]);
    let progress: Progress | undefined;
    const r = await diffDatadirs(argv.a, argv.b, {
      cfs: argv.cf === undefined ? undefined : [argv.cf].flat(),
      limit: argv.limit,
      onProgress: (done, total) => {
        progress ??= createProgress({ label: "diff: table bytes read", total, unit: "bytes" });
        progress.update(done);
      },
    }).finally(() => progress?.done());
    process.stdout.write(argv.json ? JSON.stringify(r, null, 2) + "\n" : renderDiffText(r, outputWidth()));
    // a comparison over damaged or unreadable files is bad input, whatever it found (exit 2)
    process.exitCode = r.incomplete.length > 0 ? 2 : r.identical ? 0 : 1;
  },
};
