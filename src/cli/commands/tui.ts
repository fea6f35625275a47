/**
 * `lsmscope tui DIR`: the Ink TUI over the inspect report. `lsmscope DIR` (the default command) opens it
 * on a terminal and prints the inspect report otherwise (a pipe, a file, CI).
 */
import type { CommandModule } from "yargs";
import { inspectForReport } from "./inspect.js";
import type { InspectResult } from "../../report/deep.js";
import { LsmscopeError } from "../../util/errors.js";
import { outputWidth } from "../width.js";
import { compiledScript } from "../../util/compiled_script.js";
import { importEsModule } from "../../util/es_import.js";
import { pathToFileURL } from "node:url";
import { LiveResult } from "../../tui/live.js";

interface Args {
  dir: string;
  deep: boolean;
}

const isTerminal = (): boolean => Boolean(process.stdout.isTTY && process.stdin.isTTY);

/**
 * From this many tables on, the TUI opens on the stores' outline (levels, files, options, WAL: what the
 * MANIFEST says) and fills each table's details in as they are read; a smaller store is read whole
 * first (a few hundred tables take well under a second).
 */
export const OUTLINE_FIRST_MIN_TABLES = 500;
/** How often the screen takes in the tables read meanwhile (each redraw rebuilds the report). */
const REFRESH_MS = 250;

/** Tables whose details are read, of the tables present, in a result as read so far. */
function tablesRead(r: InspectResult): { done: number; total: number } {
  let done = 0;
  let total = 0;
  for (const inst of r.model.instances)
    for (const cf of inst.columnFamilies)
      for (const l of cf.levels)
        for (const f of l.files)
          if (f.present) {
            total++;
            if (f.details) done++;
          }
  return { done, total };
}

/**
 * Read the datadir as inspect does and show it: on a store of many tables the screen opens on the
 * outline and follows the reads; on a small one it opens on the whole result. Quitting before the last
 * table is read stops the reads.
 */
async function openTui(dir: string, deep: boolean): Promise<void> {
  // the TUI module (ink, react) loads only when a terminal will show it, as an ES module of its own: the
  // CLI bundle does not hold it (util/es_import.ts); it loads while the datadir's outline is read
  const script = compiledScript("tui/bundle.js") ?? compiledScript("tui/run.js");
  if (script === undefined)
    throw new LsmscopeError("the TUI is not built; run: npm run build", { exitCode: 3 });
  const tui = importEsModule<typeof import("../../tui/run.js")>(pathToFileURL(script).href);
  const abort = new AbortController();
  let snapshot: (() => InspectResult) | undefined;
  let drawn!: () => void;
  const firstScreen = new Promise<void>((resolve) => (drawn = resolve));
  let outlineShown!: () => void;
  const outline = new Promise<void>((resolve) => (outlineShown = resolve));
  const full = inspectForReport(dir, {
    deep,
    progress: false,
    signal: abort.signal,
    onOutline: (snap) => {
      if (tablesRead(snap()).total < OUTLINE_FIRST_MIN_TABLES) return;
      snapshot = snap;
      outlineShown();
      // the tables are read once the outline is on the screen (the reads would hold the imports up)
      return firstScreen;
    },
  });
  let final: InspectResult | undefined;
  let failed: Error | undefined;
  const settled = full.then(
    (r) => void (final = r),
    (e: Error) => void (failed = e),
  );
  await Promise.race([outline, settled]);
  if (failed) throw failed;
  const { runTui } = await tui;
  const current = () => {
    const r = snapshot!();
    return { result: r, reading: tablesRead(r) };
  };
  const live = new LiveResult(final ? { result: final } : current());
  const refresh = final ? undefined : setInterval(() => live.set(current()), REFRESH_MS);
  void settled.then(() => {
    clearInterval(refresh);
    if (final) live.set({ result: final });
    else if (!abort.signal.aborted) live.set({ ...live.get(), error: failed });
  });
  try {
    await runTui(live, drawn);
  } finally {
    clearInterval(refresh);
    drawn();
    if (!final) {
      abort.abort();
      await settled;
    }
  }
  // quit before the last table was read: what was read so far decides
  const shown = final ?? snapshot!();
  if (!shown.model.complete) {
    // the screen is gone: the terminal keeps one line saying why the exit code is 2
    const { incompleteLine, incompleteReasons } = await import("../../datadir/inspect.js");
    process.stderr.write(incompleteLine(incompleteReasons(shown.model)) + "\n");
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
