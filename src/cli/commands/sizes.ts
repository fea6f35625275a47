/**
 * `lsmscope sizes DIR [--cf NAME] [--sample N | --full] [--json] [--svg FILE]`: key/value size
 * distributions per column family (newest version per key in full mode), physical vs logical bytes,
 * and the Ethereum views (account kinds, code sizes and reuse, max-size co-tenancy). Thin over
 * computeSizes() (src/sizes/).
 */
import { assertOutsideDatadirs, writeOutsideDatadirs } from "../../util/output_file.js";
import type { CommandModule } from "yargs";
import { CF_NAME_FORMS } from "../../datadir/cf_select.js";
import { createProgress, type Progress } from "../../util/progress.js";
import { LsmscopeError } from "../../util/errors.js";
import { readRateLimit, setReadRateLimit } from "../../util/throttle.js";

interface Args {
  dir: string;
  cf?: string[];
  sample?: number;
  full?: boolean;
  json: boolean;
  svg?: string;
  workers?: number;
  seed: number;
  wal: boolean;
  eth: boolean;
  "contracts-csv": boolean;
  timeout?: number;
  "contract-draws"?: number;
}

export const command: CommandModule<object, Args> = {
  command: "sizes <dir>",
  describe:
    "Key/value size distributions per column family, compression, and Ethereum account/code populations",
  builder: (y) =>
    y
      .positional("dir", { type: "string", demandOption: true, describe: "datadir or store directory" })
      .option("cf", {
        type: "string",
        array: true,
        describe: `column family (${CF_NAME_FORMS}); repeatable`,
      })
      .option("sample", {
        type: "number",
        describe:
          "draw N data blocks per column family uniformly through the index (all versions; intervals)",
      })
      .option("full", {
        type: "boolean",
        describe: "read every block; newest version per key (the default when --sample is not given)",
      })
      .conflicts("sample", "full")
      .option("json", { type: "boolean", default: false, describe: "print the report as JSON" })
      .option("svg", { type: "string", describe: "write the histograms as an SVG picture to FILE" })
      .option("workers", {
        type: "number",
        describe:
          "threads for --full (default: 2 on stores of 256 MiB of SSTs or more, else 1; 1 under --max-read-mb-per-sec)",
      })
      .option("seed", { type: "number", default: 1, describe: "PRNG seed for --sample" })
      .option("wal", {
        type: "boolean",
        default: true,
        describe: "merge unflushed WAL writes as the newest layer (--no-wal to skip)",
      })
      .option("eth", {
        type: "boolean",
        default: true,
        describe: "Ethereum views for a recognised client (--no-eth to skip)",
      })
      .option("timeout", {
        type: "number",
        describe: "stop the full scan after S seconds and print what was read, marked partial (exit 2)",
      })
      .option("contract-draws", {
        type: "number",
        describe: "with --sample: contracts drawn for storage per contract (default 200)",
      })
      .option("contracts-csv", {
        type: "boolean",
        default: false,
        describe: "print the top contracts by storage slots and bytes as CSV instead of the report",
      }),
  handler: async (argv) => {
    if (argv.sample !== undefined && (!Number.isInteger(argv.sample) || argv.sample < 1))
      throw new LsmscopeError(`--sample needs a positive whole number of blocks, got ${argv.sample}`);
    // libraries load when a command runs, not when the CLI starts (every command's module loads then)
    const [
      { computeSizes, prepareFullScan },
      { incompleteLine, inspectDatadir, noReadableStoreError },
      { renderSizesSvg, renderSizesText, sizesJson },
    ] = await Promise.all([
      import("../../sizes/compute.js"),
      import("../../datadir/inspect.js"),
      import("../../sizes/render.js"),
    ]);
    // the clock starts now: reading the MANIFESTs and tables' metadata counts against it
    const deadline = argv.timeout !== undefined ? Date.now() + argv.timeout * 1000 : undefined;
    if (argv.timeout !== undefined && !(argv.timeout > 0))
      throw new LsmscopeError(`--timeout needs a positive number of seconds, got ${argv.timeout}`);
    if (argv.workers !== undefined && !(Number.isInteger(argv.workers) && argv.workers >= 1))
      throw new LsmscopeError(`--workers needs a positive whole number of threads, got ${argv.workers}`);
    if (argv.timeout !== undefined && argv.sample !== undefined)
      throw new LsmscopeError("--timeout bounds the full scan; --sample reads a fixed number of blocks");
    const draws = argv["contract-draws"];
    if (draws !== undefined && (argv.sample === undefined || !Number.isInteger(draws) || draws < 1))
      throw new LsmscopeError(`--contract-draws needs --sample and a positive whole number, got ${draws}`);
    if (argv["contracts-csv"] && (argv.json || argv.sample !== undefined))
      throw new LsmscopeError("--contracts-csv prints the full scan's contracts: without --json or --sample");
    // refuse an output path inside the datadir before reading anything
    if (argv.svg) assertOutsideDatadirs(argv.svg, [argv.dir], "the SVG");
    if (argv.sample === undefined) prepareFullScan();
    const model = await inspectDatadir(argv.dir, {});
    if (!model.instances.some((i) => i.readable)) throw noReadableStoreError(model);
    let progress: Progress | undefined;
    // a read-rate limit is for the whole command: one thread by default, else each thread a share
    let workers = argv.workers;
    const rate = readRateLimit();
    if (rate !== undefined) {
      workers ??= 1;
      if (workers > 1) setReadRateLimit(rate / workers);
    }
    const report = await computeSizes(argv.dir, {
      model,
      cf: argv.cf,
      mode: argv.sample !== undefined ? "sample" : "full",
      sampleBlocks: argv.sample,
      seed: argv.seed,
      workers,
      deadline,
      includeWal: argv.wal,
      eth: argv.eth ? "auto" : "off",
      onProgress: (done, total) => {
        // off a terminal only for big scans, so scripted runs on small stores stay quiet
        if (!progress)
          progress = createProgress({
            label: "sizes: data blocks",
            total,
            unit: "bytes",
            quiet: !process.stderr.isTTY && total < 256 * 1024 * 1024,
          });
        progress.update(done);
      },
      contractDraws: draws,
      onContractDraw: (done, total) => {
        if (done === 1) {
          progress?.done();
          progress = createProgress({
            label: "sizes: contracts drawn",
            total,
            unit: "items",
            quiet: !process.stderr.isTTY,
          });
        }
        progress?.update(done);
      },
    });
    progress?.done();
    if (argv.svg) writeOutsideDatadirs(argv.svg, renderSizesSvg(report), [argv.dir], "the SVG");
    if (argv["contracts-csv"]) {
      const storage = report.eth?.storage;
      if (!storage || "sampled" in storage)
        throw new LsmscopeError(
          "--contracts-csv: no storage column family whose keys name their contract (Besu cf08, Nethermind's flat Storage, geth's snapshot)",
        );
      const { renderContractsCsv } = await import("../../sizes/contracts/render.js");
      process.stdout.write(renderContractsCsv(storage));
    } else process.stdout.write(argv.json ? sizesJson(report) : renderSizesText(report));
    if (report.incomplete?.length) {
      if (!argv.json) process.stdout.write(incompleteLine(report.incomplete) + "\n");
      process.exitCode = 2;
    }
  },
};
