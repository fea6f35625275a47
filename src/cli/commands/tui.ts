/**
 * `lsmscope tui DIR`: the Ink TUI over the inspect report. `lsmscope DIR` (the default command) opens it
 * on a terminal and prints the inspect report otherwise (a pipe, a file, CI).
 */
import type { CommandModule } from "yargs";
import { inspectForReport } from "./inspect.js";
import { LsmscopeError } from "../../util/errors.js";
import { outputWidth } from "../width.js";
import { compiledScript } from "../../util/compiled_script.js";
import { importEsModule } from "../../util/es_import.js";
import { pathToFileURL } from "node:url";

interface Args {
  dir: string;
  deep: boolean;
}

const isTerminal = (): boolean => Boolean(process.stdout.isTTY && process.stdin.isTTY);

async function openTui(dir: string, deep: boolean): Promise<void> {
  const result = await inspectForReport(dir, { deep });
  // the TUI module (ink, react) loads only when a terminal will show it, as tsc's output: the CLI bundle
  // does not hold it (util/es_import.ts)
  const script = compiledScript("tui/run.js");
  if (script === undefined)
    throw new LsmscopeError("the TUI is not built; run: npm run build", { exitCode: 3 });
  const { runTui } = await importEsModule<typeof import("../../tui/run.js")>(pathToFileURL(script).href);
  await runTui(result);
  if (!result.model.complete) {
    // the screen is gone: the terminal keeps one line saying why the exit code is 2
    const { incompleteLine, incompleteReasons } = await import("../../datadir/inspect.js");
    process.stderr.write(incompleteLine(incompleteReasons(result.model)) + "\n");
    process.exitCode = 2;
  }
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
const builder = (y: any) =>
  (y as import("yargs").Argv)
    .positional("dir", { type: "string", demandOption: true, describe: "datadir or store directory" })
    .option("deep", {
      type: "boolean",
      default: false,
      describe: "walk every table's index too (as inspect --deep)",
    });

export const command: CommandModule<object, Args> = {
  command: "tui <dir>",
  describe: "Browse a datadir in a terminal UI: column families, level layout, files, WAL, blob files",
  builder,
  handler: async (argv) => {
    if (!isTerminal())
      throw new LsmscopeError("tui needs a terminal on stdin and stdout (use inspect for text)");
    await openTui(argv.dir, argv.deep);
  },
};

/** `lsmscope DIR`: TUI on a terminal, the inspect report otherwise. */
export const defaultCommand: CommandModule<object, Args> = {
  command: "$0 <dir>",
  describe: "Open DIR in the TUI on a terminal; print the inspect report otherwise",
  builder,
  handler: async (argv) => {
    if (isTerminal()) return openTui(argv.dir, argv.deep);
    const r = await inspectForReport(argv.dir, { deep: argv.deep });
    const [{ buildInspectReport }, { renderInspectReport }] = await Promise.all([
      import("../../report/build.js"),
      import("../../report/render.js"),
    ]);
    process.stdout.write(
      renderInspectReport(buildInspectReport(r.model, r.mode, r.deep), { width: outputWidth() }),
    );
    if (!r.model.complete) process.exitCode = 2;
  },
};
