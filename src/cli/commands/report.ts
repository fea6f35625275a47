/**
 * `lsmscope report A [B] --html FILE [--probe DEF...]`: one self-contained HTML page with the arms side by side (src/html/).
 * The only file written, and never inside a datadir it reports on.
 */
import type { CommandModule } from "yargs";

interface Args {
  a: string;
  b?: string;
  html: string;
  sample: number;
  probe?: string[];
}

export const command: CommandModule<object, Args> = {
  command: "report <a> [b]",
  describe: "Write one self-contained HTML report of a datadir, or of two side by side",
  builder: (y) =>
    y
      .positional("a", { type: "string", demandOption: true, describe: "datadir or store directory" })
      .positional("b", { type: "string", describe: "second datadir (the other arm)" })
      .option("html", { type: "string", demandOption: true, describe: "the HTML file to write" })
      .option("sample", {
        type: "number",
        default: 64,
        describe: "data blocks sampled per column family for the size histograms",
      })
      .option("probe", {
        type: "string",
        array: true,
        describe: "probe definition (probes/*.json) to run on each arm of its client; repeatable",
      }),
  handler: async (argv) => {
    const [{ assertOutsideDatadirs, writeOutsideDatadirs }, { buildHtmlReport }] = await Promise.all([
      import("../../util/output_file.js"),
      import("../../html/build.js"),
    ]);
    const datadirs = [argv.a, ...(argv.b ? [argv.b] : [])];
    // refused before anything is read; exit 3 as check --report does
    const target = assertOutsideDatadirs(argv.html, datadirs, "the report", 3);
    const { html, incomplete } = await buildHtmlReport(argv.a, argv.b, {
      sampleBlocks: argv.sample,
      probes: argv.probe,
    });
    writeOutsideDatadirs(target, html, datadirs, "the report", 3);
    process.stderr.write(`report written to ${target}\n`);
    if (incomplete.length > 0) {
      // the page shows the findings; the exit code and last line say the picture is incomplete
      const { incompleteLine } = await import("../../datadir/inspect.js");
      process.stderr.write(incompleteLine(incomplete) + "\n");
      process.exitCode = 2;
    }
  },
};
