#!/usr/bin/env node
/**
 * Sample datadir generator: `node dist/src/samples/generate.js [--accounts N] [--out DIR] [--only NAME]
 * [--seed S]`. Writes each sample into OUT/<name>/ (refusing directories it did not create) and its
 * ground truth into OUT/<name>.truth.json. Deterministic: the same seed and account count give the
 * same logical content.
 */
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { isUserError } from "../util/errors.js";
import { SAMPLE_NAMES, generateSample, DEFAULT_ACCOUNTS, DEFAULT_SEED, type SampleName } from "./samples.js";

/** JSON as the repository's prettier would format it (so `prettier --check` passes), plain JSON without it. */
async function formatJson(value: unknown): Promise<string> {
  const text = JSON.stringify(value, null, 2) + "\n";
  try {
    const prettier = (await import("prettier")) as { format(src: string, opts: object): Promise<string> };
    return await prettier.format(text, { parser: "json", printWidth: 110 });
  } catch {
    return text;
  }
}

export async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      accounts: { type: "string", default: String(DEFAULT_ACCOUNTS) },
      out: { type: "string", default: "samples" },
      only: { type: "string", multiple: true },
      seed: { type: "string", default: DEFAULT_SEED },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    process.stdout.write(
      `usage: generate [--accounts N] [--out DIR] [--only NAME]... [--seed S]\nsamples: ${SAMPLE_NAMES.join(", ")}\n`,
    );
    return 0;
  }
  const accounts = Number(values.accounts);
  if (!Number.isInteger(accounts) || accounts < 50) throw new Error("--accounts must be an integer ≥ 50");
  const names = (values.only ?? SAMPLE_NAMES) as SampleName[];
  for (const n of names)
    if (!SAMPLE_NAMES.includes(n)) throw new Error(`unknown sample ${n}; known: ${SAMPLE_NAMES.join(", ")}`);
  const out = resolve(values.out!);
  for (const name of names) {
    const started = Date.now();
    const truth = await generateSample(name, join(out, name), { seed: values.seed!, accounts });
    writeFileSync(join(out, `${name}.truth.json`), await formatJson(truth));
    process.stderr.write(
      `${name}: written to ${join(out, name)} in ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
    );
  }
  return 0;
}

const isMain =
  process.argv[1] !== undefined && import.meta.url === new URL(`file://${resolve(process.argv[1])}`).href;
if (isMain) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: unknown) => {
      process.stderr.write(
        `generate: ${isUserError(err) ? err.oneLine() : err instanceof Error ? err.message : String(err)}\n`,
      );
      if (!isUserError(err) && !(err instanceof Error && /^--|unknown sample/.test(err.message)))
        console.error(err);
      process.exit(2);
    },
  );
}
