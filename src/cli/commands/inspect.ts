/**
 * `lsmscope inspect DIR [--json] [--deep] [--verify] [--summary [--csv]]`: the inspect report
 * (src/report/) over the datadir model, or the one-table summary (src/summary/).
 * `--json` prints the model itself (with `deep` measurements by SST path under --deep).
 * Exit 0 when the picture is complete, 2 when some error finding left it incomplete (the report is
 * still printed).
 */
import type { CommandModule } from "yargs";
import { createProgress, type Progress } from "../../util/progress.js";
import type { InspectResult } from "../../report/deep.js";
import { LsmscopeError } from "../../util/errors.js";
import { outputWidth } from "../width.js";

interface Args {
  dir: string;
  json: boolean;
  deep: boolean;
  verify: boolean;
  tables: boolean;
  wal: boolean;
  empty: boolean;
  summary: boolean;
  csv: boolean;
}

/** A progress line on stderr while tables are read (stores with many tables only). */
export function tableProgress(): {
  onProgress: (done: number, total: number, what: string) => void;
  done(): void;
} {
  let progress: Progress | undefined;
  let progressFor = "";
  return {
    onProgress: (done, total, what) => {
      if (total < 500) return; // small stores finish before a progress line helps
      if (what !== progressFor) {
        progress?.done();
        progress = createProgress({ label: `tables of ${what}`, total });
        progressFor = what;
      }
      progress!.update(done);
    },
    done: () => progress?.done(),
  };
}

/** Progress of `--verify` in bytes of files read (on a terminal, or off one for big stores). */
function verifyProgress(show: boolean): ((done: number, total: number) => void) | undefined {
  if (!show) return undefined;
  let progress: Progress | undefined;
  return (done, total) => {
    progress ??= createProgress({
      label: "verify: tables and blob files",
      total,
      unit: "bytes",
      quiet: !process.stderr.isTTY && total < 256 * 1024 * 1024,
    });
    progress.update(done);
    if (done >= total) progress.done();
  };
}

/** Build the model the way `inspect` does: cheap table details by default, deep with `deep`. */
export async function inspectForReport(
  dir: string,
  opts: {
    deep?: boolean;
    verify?: boolean;
    tables?: boolean;
    wal?: boolean;
    progress?: boolean;
    /** Instead of the progress line: tables read so far. */
    onProgress?: (done: number, total: number, what: string) => void;
    /** The result as read so far, once the outlines are read (RunInspectOptions.onOutline). */
    onOutline?: (snapshot: () => InspectResult) => void | Promise<void>;
    signal?: AbortSignal;
  },
): Promise<InspectResult> {
  const p = opts.progress === false ? undefined : tableProgress();
  const onProgress = opts.onProgress ?? p?.onProgress;
  // the views beside the stores: which chain they hold, and geth's freezer files
  const withIdentity = async (r: InspectResult): Promise<InspectResult> => {
    const { addDatadirViews } = await import("../../report/views.js");
    addDatadirViews(r.model);
    return r;
  };
  try {
    if (opts.tables === false && !opts.deep && !opts.verify) {
      // libraries load when a command runs, not when the CLI starts (every command's module loads then)
      const { inspectDatadir } = await import("../../datadir/inspect.js");
      const model = await inspectDatadir(dir, {
        tableDetails: "none",
        readWal: opts.wal,
        onProgress,
      });
      return await withIdentity({ model, mode: "cheap" });
    }
    const { runInspect } = await import("../../report/deep.js");
    return await withIdentity(
      await runInspect(dir, {
        mode: opts.deep ? "deep" : "cheap",
        readWal: opts.wal,
        onProgress,
        onOutline: opts.onOutline,
        signal: opts.signal,
        verify: opts.verify ? { onProgress: verifyProgress(opts.progress !== false) } : undefined,
      }),
    );
  } finally {
    p?.done();
  }
}

export const command: CommandModule<object, Args> = {
  command: "inspect <dir>",
  describe:
    "Report every store under DIR: options beside what the files carry, levels, filters, blob files, WAL",
  builder: (y) =>
    y
      .positional("dir", { type: "string", demandOption: true, describe: "datadir or store directory" })
      .option("json", { type: "boolean", default: false, describe: "print the datadir model as JSON" })
      .option("deep", {
        type: "boolean",
        default: false,
        describe: "also walk every table's index (block counts and sizes) and verify the checksums read",
      })
      .option("verify", {
        type: "boolean",
        default: false,
        describe:
          "read and checksum every block of every live table, every blob record and WAL record (parallel)",
      })
      .option("tables", {
        type: "boolean",
        default: true,
        describe: "read each table's footer, properties and filter metadata (--no-tables: MANIFEST only)",
      })
      .option("wal", {
        type: "boolean",
        default: true,
        describe: "read WAL files (--no-wal to skip)",
      })
      .option("empty", {
        type: "boolean",
        default: false,
        describe: "show empty column families in full",
      })
      .option("summary", {
        type: "boolean",
        default: false,
        describe: "one row per column family (and WAL) with a Total row",
      })
      .option("csv", {
        type: "boolean",
        default: false,
        describe: "with --summary: RFC 4180 CSV, raw integer bytes",
      }),
  handler: async (argv) => {
    if (argv.csv && !argv.summary) throw new LsmscopeError("--csv goes with --summary");
    if (argv.summary && argv.json)
      throw new LsmscopeError("--summary is a table; --json prints the full model");
    if (argv.json && argv.deep && !argv.verify) {
      // each table read as its JSON is written, its details let go after (report/deep_stream.ts)
      const { streamDeepJson } = await import("../../report/deep_stream.js");
      const p = tableProgress();
      try {
        const { complete } = await streamDeepJson(argv.dir, process.stdout, {
          readWal: argv.wal,
          onProgress: p.onProgress,
        });
        process.stdout.write("\n");
        if (!complete) process.exitCode = 2;
      } finally {
        p.done();
      }
      return;
    }
    const r = await inspectForReport(argv.dir, {
      deep: argv.deep,
      verify: argv.verify,
      tables: argv.tables,
      wal: argv.wal,
    });
    if (argv.summary) {
      const [{ buildSummary }, { renderSummaryCsv, renderSummaryText }] = await Promise.all([
        import("../../summary/index.js"),
        import("../../summary/render.js"),
      ]);
      const s = buildSummary(r.model);
      process.stdout.write(argv.csv ? renderSummaryCsv(s) : renderSummaryText(s));
      if (!r.model.complete) {
        // the last line says so (on stderr under --csv, which must stay CSV)
        const { incompleteLine, incompleteReasons } = await import("../../datadir/inspect.js");
        const line = incompleteLine(incompleteReasons(r.model)) + "\n";
        if (argv.csv) process.stderr.write(line);
        else process.stdout.write(line);
        process.exitCode = 2;
      }
      return;
    }
    const [{ buildInspectReport }, { renderInspectReport }] = await Promise.all([
      import("../../report/build.js"),
      import("../../report/render.js"),
    ]);
    if (argv.json) {
      const { MapRecord, streamJson } = await import("../../util/json_stream.js");
      const out = {
        ...r.model,
        ...(r.deep ? { deep: new MapRecord(r.deep) } : {}),
        ...(r.verify ? { verify: r.verify } : {}),
      };
      // in pieces: the JSON grows with the table count (util/json_stream.ts)
      await streamJson(out, process.stdout);
      process.stdout.write("\n");
    } else {
      const report = buildInspectReport(r.model, r.mode, r.deep);
      report.verify = r.verify;
      process.stdout.write(renderInspectReport(report, { showEmpty: argv.empty, width: outputWidth() }));
    }
    if (!r.model.complete) process.exitCode = 2;
  },
};
