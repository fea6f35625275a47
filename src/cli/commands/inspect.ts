/**
 * `lsmscope inspect DIR [--json]`: the datadir model. Exit 0 when the picture is complete, 2 when some
 * error finding left it incomplete (the report is still printed).
 */
import type { CommandModule } from "yargs";
import { inspectDatadir } from "../../datadir/inspect.js";
import { renderDatadirText } from "../../datadir/text_dump.js";
import { createProgress, type Progress } from "../../util/progress.js";

interface Args {
  dir: string;
  json: boolean;
  tables: boolean;
  wal: boolean;
}

export const command: CommandModule<object, Args> = {
  command: "inspect <dir>",
  describe: "Read every store under DIR (MANIFEST, OPTIONS, WAL, blob files) and report it",
  builder: (y) =>
    y
      .positional("dir", { type: "string", demandOption: true, describe: "datadir or store directory" })
      .option("json", { type: "boolean", default: false, describe: "print the model as JSON" })
      .option("tables", {
        type: "boolean",
        default: false,
        describe: "also read each table's footer and properties",
      })
      .option("wal", {
        type: "boolean",
        default: true,
        describe: "read WAL files (--no-wal to skip)",
      }) as never,
  handler: async (argv) => {
    // a progress line on stderr while table details are read (large stores)
    let progress: Progress | undefined;
    let progressFor = "";
    const model = await inspectDatadir(argv.dir, {
      tableDetails: argv.tables ? "cheap" : "none",
      readWal: argv.wal,
      onProgress: (done, total, what) => {
        if (total < 500) return; // small stores finish before a progress line helps
        if (what !== progressFor) {
          progress?.done();
          progress = createProgress({ label: `tables of ${what}`, total });
          progressFor = what;
        }
        progress!.update(done);
      },
    });
    progress?.done();
    process.stdout.write(argv.json ? JSON.stringify(model, null, 2) + "\n" : renderDatadirText(model));
    if (!model.complete) process.exitCode = 2;
  },
};
