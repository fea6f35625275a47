/**
 * `lsmscope probe DIR --cf NAME --keys present|absent|FILE --count N[,N2,...] [--path reader|engine|both]
 * [--cold] [--json]`: what a point lookup costs on this store, through the TypeScript reader, RocksDB
 * itself (opened with the store's own OPTIONS, never defaults), or both side by side.
 */
import type { CommandModule } from "yargs";
import { CF_NAME_FORMS } from "../../datadir/cf_select.js";
import { fromHex } from "../../util/bytes.js";
import { LsmscopeError } from "../../util/errors.js";
import type { ProbeOptions } from "../../probe/probe.js";
import type { AddressHashing } from "../../probe/keys.js";
import type { ColdMethod } from "../../probe/cold.js";
import { outputWidth } from "../width.js";

interface Args {
  dir: string;
  cf?: string;
  instance?: string;
  keys?: string;
  count?: string;
  path?: "reader" | "engine" | "both";
  cold: boolean;
  coldMethod?: ColdMethod;
  json: boolean;
  def?: string;
  prefix?: string;
  keyLength?: number;
  addresses?: AddressHashing;
  seed?: string;
}

export const command: CommandModule<object, Args> = {
  command: "probe <dir>",
  describe: "Cold point-lookup probes: blocks, bytes and filter rejections per lookup (reader and/or engine)",
  builder: (y) =>
    y
      .positional("dir", { type: "string", demandOption: true, describe: "datadir or store directory" })
      .option("cf", {
        type: "string",
        describe: `column family (${CF_NAME_FORMS})`,
      })
      .option("instance", {
        type: "string",
        describe: "store inside the datadir (relative path) when the CF name is ambiguous",
      })
      .option("keys", { type: "string", describe: "present | absent | FILE (hex keys, one per line)" })
      .option("count", {
        type: "string",
        describe: "lookups per point, a sweep when several: 100,1000,10000",
      })
      .option("path", {
        choices: ["reader", "engine", "both"] as const,
        describe: "which lookup to measure (default reader)",
      })
      .option("cold", {
        type: "boolean",
        default: false,
        describe: "drop the page cache and run each point in a fresh process",
      })
      .option("cold-method", {
        choices: ["drop_caches", "fadvise"] as const,
        describe: "how to drop the cache (default: drop_caches as root, else fadvise)",
      })
      .option("json", { type: "boolean", default: false, describe: "print JSON" })
      .option("def", {
        type: "string",
        describe: "a probe definition (see probes/*.json); options given here override it",
      })
      .option("prefix", {
        type: "string",
        describe: "key shape for present/absent: required leading bytes (hex)",
      })
      .option("key-length", { type: "number", describe: "key shape for absent keys: length in bytes" })
      .option("addresses", {
        choices: ["besu", "nethermind", "geth"] as const,
        describe: "FILE holds 20-byte addresses: hash them as this client keys accounts",
      })
      .option("seed", { type: "string", describe: "seed for the key draws" }),
  handler: async (argv) => {
    // libraries load when a command runs, not when the CLI starts (every command's module loads then)
    const [{ runProbe }, { loadProbeDefinition }, { renderProbeReport, renderProbeStart }] =
      await Promise.all([
        import("../../probe/probe.js"),
        import("../../probe/definitions.js"),
        import("../../probe/render.js"),
      ]);
    const def = argv.def ? loadProbeDefinition(argv.def).options : {};
    const cf = argv.cf ?? def.cf;
    if (!cf) throw new LsmscopeError("--cf is required (or a --def that names one)");
    let keys = def.keys;
    if (argv.keys !== undefined)
      keys =
        argv.keys === "present" || argv.keys === "absent"
          ? argv.keys
          : { file: argv.keys, addresses: argv.addresses };
    else if (keys && typeof keys === "object" && argv.addresses)
      keys = { ...keys, addresses: argv.addresses };
    if (!keys) throw new LsmscopeError("--keys is required: present, absent or a FILE of hex keys");
    let counts = def.counts;
    if (argv.count !== undefined) {
      counts = argv.count.split(",").map((s) => Number(s.trim()));
      if (counts.some((n) => !Number.isInteger(n) || n <= 0))
        throw new LsmscopeError(`--count ${argv.count}: positive integers, comma separated`);
    }
    if (!counts) throw new LsmscopeError("--count is required, e.g. --count 1000 or --count 100,1000,10000");
    const shape = { ...(def.shape ?? {}) };
    if (argv.prefix !== undefined) shape.prefix = fromHex(argv.prefix);
    if (argv.keyLength !== undefined) shape.length = argv.keyLength;
    const opts: ProbeOptions = {
      cf,
      instance: argv.instance ?? def.instance,
      keys,
      counts,
      path: argv.path ?? def.path ?? "reader",
      cold: argv.cold,
      coldMethod: argv.coldMethod,
      shape: shape.prefix || shape.length ? shape : undefined,
      seed: argv.seed,
      onStart: ({ target, enginePolicies }) => {
        // the options in force, before anything is measured (stderr under --json)
        const text = renderProbeStart(target, enginePolicies, outputWidth());
        (argv.json ? process.stderr : process.stdout).write(text);
      },
    };
    const report = await runProbe(argv.dir, opts);
    process.stdout.write(
      argv.json ? JSON.stringify(report, null, 2) + "\n" : renderProbeReport(report, outputWidth()),
    );
    if (report.incomplete?.length) {
      const { incompleteLine } = await import("../../datadir/inspect.js");
      if (!argv.json) process.stdout.write(incompleteLine(report.incomplete) + "\n");
      process.exitCode = 2;
    }
  },
};
