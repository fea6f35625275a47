/**
 * `lsmscope sst FILE [--json] [--scan] [--verify] [--blocks]`: footer, meta blocks, properties and
 * filter of one table, read by the pure-TypeScript reader (no engine, no lock).
 */
import type { CommandModule } from "yargs";
import { outputWidth } from "../width.js";

interface Args {
  file: string;
  json: boolean;
  scan: boolean;
  verify: boolean;
  blocks: boolean;
}

export const command: CommandModule<object, Args> = {
  command: "sst <file>",
  describe:
    "Describe one SST/LDB table (RocksDB, LevelDB, Pebble row and columnar formats): footer, meta blocks, properties, filter",
  builder: (y) =>
    y
      .positional("file", { type: "string", demandOption: true, describe: "table file (.sst or .ldb)" })
      .option("json", { type: "boolean", default: false, describe: "print JSON" })
      .option("scan", {
        type: "boolean",
        default: false,
        describe: "iterate every entry: counts, raw sizes, first/last key",
      })
      .option("verify", {
        type: "boolean",
        default: false,
        describe:
          "check every block's checksum, key order and the totals against the properties (exit 2 if not ok)",
      })
      .option("blocks", {
        type: "boolean",
        default: false,
        describe: "list the data blocks from the index",
      }),
  handler: async (argv) => {
    // the reader loads when the command runs, not when the CLI starts (every command's module loads then)
    const { describeTable, renderTableText, reportJson, unopenableTableJson } =
      await import("../../report/sst.js");
    const { CorruptionError } = await import("../../util/errors.js");
    const { escapeText } = await import("../../util/bytes.js");
    let r;
    try {
      r = describeTable(argv.file, { scan: argv.scan, verify: argv.verify, blocks: argv.blocks });
    } catch (err) {
      // --verify reports damage even where the table cannot be opened; without it, one line (exit 2)
      if (!argv.verify || !(err instanceof CorruptionError)) throw err;
      if (argv.json)
        process.stdout.write(JSON.stringify(unopenableTableJson(argv.file, err), null, 2) + "\n");
      else process.stdout.write(`verify: FAILED, ${escapeText(err.oneLine())}\n`);
      process.exitCode = 2;
      return;
    }
    process.stdout.write(
      argv.json ? JSON.stringify(reportJson(r), null, 2) + "\n" : renderTableText(r, outputWidth()),
    );
    if (r.verify && !r.verify.ok) process.exitCode = 2;
  },
};
