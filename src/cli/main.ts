/**
 * CLI entry: yargs over the library API. User errors (LsmscopeError, fs errors) become one line on
 * stderr and a non-zero exit; anything else is a bug and keeps its stack.
 */
import yargs from "yargs";
import { hideBin } from "yargs/helpers";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";
import { loadCommands } from "./commands/index.js";
import { isUserError, fromFsError } from "../util/errors.js";
import { setReadRateLimit } from "../util/throttle.js";
import { outputWidth } from "./width.js";

export { setEsImport } from "../util/es_import.js";
export { noteYoungGenerationGrowth } from "../util/worker_heap.js";
export { noteRaisedInterruptBudget } from "../util/interrupt_budget.js";

function packageVersion(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  for (const rel of ["../../../package.json", "../../package.json"]) {
    try {
      return (JSON.parse(readFileSync(join(here, rel), "utf8")) as { version: string }).version;
    } catch {
      // try the next layout (dist/src/cli vs src/cli)
    }
  }
  return "unknown";
}

export function reportError(err: unknown): number {
  const user = isUserError(err) ? err : fromFsError(err);
  if (user) {
    process.stderr.write(`lsmscope: ${user.oneLine()}\n`);
    return user.exitCode;
  }
  process.stderr.write(
    `lsmscope: internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
  );
  return 70;
}

export async function main(argv: string[] = hideBin(process.argv)): Promise<number> {
  const commands = await loadCommands();
  let exitCode = 0;
  const parser = yargs(argv)
    .scriptName("lsmscope")
    .usage("$0 <command> [options]\n\nForensic inspector for RocksDB, LevelDB and Pebble stores.")
    .version(packageVersion())
    .strict()
    .demandCommand(1, "name a command (see --help)")
    .recommendCommands()
    .option("max-read-mb-per-sec", {
      type: "number",
      global: true,
      describe:
        "limit lsmscope's own reads of store files to this many MiB per second, so a live node on the same disk is not disturbed (RocksDB's reads in probe --path engine and compact are not limited)",
    })
    .middleware((a) => {
      const v = a["max-read-mb-per-sec"] as number | undefined;
      if (v === undefined) return;
      if (!Number.isFinite(v) || v <= 0)
        throw new UsageError(`--max-read-mb-per-sec needs a positive number, got ${String(v)}`);
      setReadRateLimit(v * 1024 * 1024);
    })
    // yargs renders the whole help text as each command starts, in case its handler shows it (none
    // does); wrapped to the terminal that is ~10 ms of string widths per run, so only --help wraps it
    .wrap(argv.includes("--help") ? Math.min(110, outputWidth()) : null)
    .exitProcess(false)
    .fail((msg, err) => {
      if (err) throw err;
      throw new UsageError(oneNamePerFlag(msg));
    });
  for (const c of commands) parser.command(c);
  skipHelpCache(parser);
  try {
    await parser.parseAsync();
    exitCode = typeof process.exitCode === "number" ? process.exitCode : 0;
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`lsmscope: ${err.message}\nRun 'lsmscope --help' for usage.\n`);
      return 2;
    }
    return reportError(err);
  }
  return exitCode;
}

class UsageError extends Error {}

/**
 * yargs renders the whole help text as each command's handler starts (command.js: cacheHelpMessage),
 * to show it should the handler fail; our `fail` throws instead of showing help, so that text is never
 * shown, yet rendering it cost ~10 ms per run (cliui's string widths, the first Intl.Segmenter's ICU
 * set-up). The method is yargs' own, reached through its untyped getInternalMethods(); `--help` renders
 * through help(), not this. Returns whether it was found (a test fails if yargs renames it).
 */
export function skipHelpCache(parser: object): boolean {
  type Internals = { getInternalMethods?: () => { getUsageInstance?: () => Record<string, unknown> } };
  const usage = (parser as Internals).getInternalMethods?.().getUsageInstance?.();
  if (typeof usage?.cacheHelpMessage !== "function") return false;
  usage.cacheHelpMessage = () => {};
  return true;
}

/**
 * yargs names an unknown flag twice, as typed and camel-cased ("Unknown arguments: bogus-flag, bogusFlag"):
 * keep the spelling the user typed.
 */
export function oneNamePerFlag(msg: string): string {
  const m = /^(Unknown arguments?): (.*)$/s.exec(msg);
  if (!m) return msg;
  const names = m[2]!.split(", ");
  const camel = (s: string) => s.replace(/-+([^-])/g, (_, c: string) => c.toUpperCase());
  const kept = names.filter((n) => !(n !== camel(n) ? false : names.some((o) => o !== n && camel(o) === n)));
  return `${kept.length === 1 ? "Unknown argument" : "Unknown arguments"}: ${kept.join(", ")}`;
}
