/**
 * Behaviour guard: the stdout of every read-only command on every committed sample (and on a small
 * db_bench store, test/fixtures/db_bench-l0-l1) compared with committed files, one per command and store
 * under test/snapshots/out/. A refactor that is meant to change nothing must leave them byte-identical;
 * a change meant to alter output regenerates them (`npx vitest run test/snapshots -u`) and the diff of the
 * files is what a reviewer reads.
 *
 * The commands run in this process through the compiled CLI (dist/, as `bin/lsmscope.js` runs it), so
 * this needs `npm run build` first (`npm test` does it); a build older than its sources fails the test.
 * Only what legitimately varies between runs is replaced: wall-clock times and rates, process ids,
 * free disk space, device read counters, and the repository's absolute path.
 */
import { readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO, SAMPLES, tableFilesUnder } from "../helpers/index.js";

const OUT = join(import.meta.dirname, "out");
const DB_BENCH = join(REPO, "test", "fixtures", "db_bench-l0-l1");

/** Stores and their names under out/. */
const STORES: { name: string; dir: string }[] = [
  ...["besu-snapshot", "besu-generated", "nethermind", "geth-leveldb", "modern"].map((name) => ({
    name,
    dir: join(SAMPLES, name),
  })),
  { name: "db_bench-l0-l1", dir: DB_BENCH },
];

/** Probe points per store: column family, keys. Reader path only (the engine path measures RocksDB). */
const PROBES: Record<string, { cf: string; keys: "present" | "absent" }[]> = {
  "besu-snapshot": [
    { cf: "cf06", keys: "present" },
    { cf: "cf06", keys: "absent" },
  ],
  "besu-generated": [{ cf: "cf06", keys: "present" }],
  nethermind: [
    { cf: "flat/Account", keys: "absent" },
    { cf: "state", keys: "present" },
  ],
  "geth-leveldb": [{ cf: "default", keys: "present" }],
  modern: [{ cf: "accounts", keys: "present" }],
  "db_bench-l0-l1": [
    { cf: "default", keys: "present" },
    { cf: "default", keys: "absent" },
  ],
};

interface Case {
  /** file under out/<store>/ */
  file: string;
  args: string[];
  /** extra normalisation for this command */
  kind: "json" | "text" | "probe" | "compact";
}

function casesFor(store: { name: string; dir: string }): Case[] {
  const d = store.dir;
  const cases: Case[] = [
    { file: "inspect.json", args: ["inspect", d, "--json"], kind: "json" },
    { file: "inspect.txt", args: ["inspect", d], kind: "text" },
    { file: "inspect-deep.json", args: ["inspect", d, "--deep", "--json"], kind: "json" },
    { file: "sizes-full.json", args: ["sizes", d, "--full", "--json"], kind: "json" },
    { file: "sizes-sample.json", args: ["sizes", d, "--sample", "4", "--seed", "7", "--json"], kind: "json" },
    { file: "check.json", args: ["check", d, "--json"], kind: "json" },
    { file: "compact-plan.json", args: ["compact", d, "--json"], kind: "compact" },
  ];
  for (const p of PROBES[store.name] ?? [])
    cases.push({
      file: `probe-${p.cf.replace(/\W+/g, "_")}-${p.keys}.json`,
      args: ["probe", d, "--cf", p.cf, "--keys", p.keys, "--count", "20", "--path", "reader", "--json"],
      kind: "probe",
    });
  for (const t of tableFilesUnder(d)) {
    const rel = relative(d, t).replace(/[\\/]/g, "_");
    cases.push({ file: `sst-${rel}.json`, args: ["sst", t, "--json", "--scan", "--verify"], kind: "json" });
  }
  // one table per store with its block list
  const first = tableFilesUnder(d)[0];
  if (first)
    cases.push({
      file: `sst-blocks-${relative(d, first).replace(/[\\/]/g, "_")}.json`,
      args: ["sst", first, "--json", "--blocks"],
      kind: "json",
    });
  return cases;
}

/** Replace what varies from run to run; everything else must be byte-identical. */
function normalise(text: string, kind: Case["kind"]): string {
  // a command's header line wraps its path onto the next line when the checkout's path is long: join
  // it back, so the snapshot does not depend on where the repository sits
  let t = text.replace(/^(lsmscope \w+)\n\s+(?=\/)/m, "$1 ");
  t = t.split(REPO).join("<repo>");
  t = t.replace(/"(elapsedMs|entriesPerSecond)": \d+(\.\d+)?/g, '"$1": 0');
  if (kind === "text") t = t.replace(/\b\d[\d,.]* (ms|s) for the model/g, "<time> for the model");
  if (kind === "compact") t = t.replace(/"free": \d+/g, '"free": 0');
  if (kind === "probe") t = t.replace(/"(pid|deviceReadBytes|blockLayerBytes)": \d+/g, '"$1": 0');
  return t;
}

type Main = (argv: string[]) => Promise<number>;
let main: Main;

/** Run the CLI in this process; its stdout and exit code. */
async function runCli(args: string[]): Promise<{ stdout: string; code: number }> {
  const chunks: string[] = [];
  const out = process.stdout.write.bind(process.stdout);
  const err = process.stderr.write.bind(process.stderr);
  process.stdout.write = ((c: string | Uint8Array) => {
    chunks.push(typeof c === "string" ? c : Buffer.from(c).toString("utf8"));
    return true;
  }) as typeof process.stdout.write;
  process.stderr.write = (() => true) as typeof process.stderr.write;
  process.exitCode = 0;
  try {
    const code = await main(args);
    return { stdout: chunks.join(""), code };
  } finally {
    process.stdout.write = out;
    process.stderr.write = err;
    process.exitCode = 0;
  }
}

/** Newest modification time of the .ts/.tsx files under `dir`. */
function newestSource(dir: string): number {
  let newest = 0;
  for (const n of readdirSync(dir)) {
    const p = join(dir, n);
    const st = statSync(p);
    if (st.isDirectory()) newest = Math.max(newest, newestSource(p));
    else if (/\.tsx?$/.test(n)) newest = Math.max(newest, st.mtimeMs);
  }
  return newest;
}

beforeAll(async () => {
  const entry = join(REPO, "dist", "src", "cli", "main.js");
  // tsc's incremental build leaves an output whose text did not change as it was (a source only
  // touched is newer than it); the CLI bundle is written by every build, last
  const built = [entry, join(REPO, "dist", "src", "bundle", "cli.cjs")].map(
    (f) => statSync(f, { throwIfNoEntry: false })?.mtimeMs,
  );
  if (
    built.some((t) => t === undefined) ||
    Math.max(...(built as number[])) < newestSource(join(REPO, "src"))
  )
    throw new Error("dist/ is missing or older than src/: run `npm run build` first");
  main = ((await import(entry)) as { main: Main }).main;
});

afterAll(() => {
  process.exitCode = 0;
});

describe.each(STORES)("$name", (store) => {
  const codes: Record<string, number> = {};
  for (const c of casesFor(store)) {
    it(c.file, async () => {
      const { stdout, code } = await runCli(c.args);
      codes[c.file] = code;
      await expect(normalise(stdout, c.kind)).toMatchFileSnapshot(join(OUT, store.name, c.file));
    });
  }
  it("exit codes", async () => {
    const lines = Object.entries(codes)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([f, c]) => `${f} ${c}\n`)
      .join("");
    await expect(lines).toMatchFileSnapshot(join(OUT, store.name, "exit-codes.txt"));
  });
});
