/**
 * Damage fuzz over a whole store: a small db_bench store (tables, a MANIFEST, WALs, OPTIONS, blob
 * files) is copied, one file is mutated (byte flips, truncations, two blocks' bytes swapped), and every
 * command's library entry runs over the copy: inspect --verify, sizes --full, probe (reader path),
 * check and the compact plan. Properties:
 *  - no command throws anything but an LsmscopeError, and its one line names a file of the store;
 *  - whatever the oracle calls damaged (sst_dump --command=scan --verify_checksum for tables,
 *    ldb manifest_dump for the MANIFEST; for blob files every byte from the first record to the footer
 *    is covered by a checksum) inspect --verify reports as an error finding, so the command exits 2 and
 *    never prints a clean report (WALs and OPTIONS have no oracle here: only the first property);
 *  - a handful of mutants also go through the CLI: exit 2 and one line, or a report that says why.
 * Seeded (mulberry32), so a failure replays.
 */
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { spawnSync } from "node:child_process";
import { cpSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { LsmscopeError } from "../../src/util/errors.js";
import { mulberry32 } from "../../src/util/random.js";
import { runInspect } from "../../src/report/deep.js";
import { computeSizes } from "../../src/sizes/compute.js";
import { runProbe } from "../../src/probe/probe.js";
import { runCheck } from "../../src/check/runner.js";
import { planCompaction } from "../../src/compact/plan.js";
import * as engine from "../../src/engine/index.js";
import { dbBench, removeDir, tempDir } from "./helpers.js";

const bin = new URL("../../bin/lsmscope.js", import.meta.url).pathname;

type Kind = "table" | "manifest" | "wal" | "blob" | "options";
/** Mutants per kind (the test name counts them). */
const PLAN: Record<Kind, number> = { table: 20, manifest: 12, wal: 8, blob: 8, options: 4 };
const TOTAL = Object.values(PLAN).reduce((a, b) => a + b, 0);
const CLI_MUTANTS = 5;

let dir: string;
let base: string;
const files: Record<Kind, string> = {} as Record<Kind, string>;

function mutate(buf: Buffer, rnd: () => number): { bytes: Buffer; what: string } {
  const out = Buffer.from(buf);
  const n = out.length;
  const at = () => Math.floor(rnd() * n);
  const kind = rnd();
  if (kind < 0.2) {
    const len = Math.floor(rnd() * n);
    return { bytes: out.subarray(0, len), what: `truncated to ${len}` };
  }
  if (kind < 0.35 && n > 64) {
    // swap two runs of 16 bytes (a block's bytes moved elsewhere: checksums and lengths disagree)
    const a = Math.floor(rnd() * (n - 16));
    const b = Math.floor(rnd() * (n - 16));
    const t = Buffer.from(out.subarray(a, a + 16));
    out.copy(out, a, b, b + 16);
    t.copy(out, b);
    return { bytes: out, what: `swapped 16 bytes at ${a} and ${b}` };
  }
  const flips: number[] = [];
  for (let i = 0; i < 1 + Math.floor(rnd() * 3); i++) {
    const p = at();
    out[p]! ^= 1 + Math.floor(rnd() * 255);
    flips.push(p);
  }
  return { bytes: out, what: `flipped bytes at ${flips.join(", ")}` };
}

/** The oracle's word on a mutated file (undefined: no oracle for this kind). */
function oracleSaysDamaged(kind: Kind, path: string, original: Buffer, mutant: Buffer): boolean | undefined {
  if (mutant.equals(original)) return false;
  if (kind === "table") {
    const r = spawnSync("sst_dump", [`--file=${path}`, "--command=scan", "--verify_checksum"], {
      encoding: "utf8",
    });
    return /Corruption|Not an sstable|IO error|Invalid argument/i.test(r.stdout + r.stderr) || r.status !== 0;
  }
  if (kind === "manifest") {
    const r = spawnSync("ldb", ["manifest_dump", `--path=${path}`], { encoding: "utf8" });
    return r.status !== 0 || /Corruption|error/i.test(r.stderr);
  }
  if (kind === "blob") {
    // records and footer are checksummed; a cut inside them, or a flip there, is damage
    const from = 30;
    const to = original.length;
    if (mutant.length !== original.length) return mutant.length > from;
    for (let i = from; i < to; i++) if (mutant[i] !== original[i]) return true;
    return false;
  }
  return undefined;
}

type Outcome = { threw?: LsmscopeError; returned?: unknown };
async function outcome(f: () => Promise<unknown>): Promise<Outcome> {
  try {
    return { returned: await f() };
  } catch (e) {
    if (!(e instanceof LsmscopeError)) throw e;
    return { threw: e };
  }
}

beforeAll(() => {
  dir = tempDir("lsmscope-damage-fuzz-");
  base = join(dir, "base");
  dbBench(base, [
    "--benchmarks=fillrandom",
    "--num=1500",
    "--value_size=150",
    "--num_column_families=2",
    "--write_buffer_size=65536",
    "--compression_type=snappy",
    "--enable_blob_files=true",
    "--min_blob_size=120",
  ]);
  const names = readdirSync(base);
  const bySize = (ext: RegExp) =>
    names
      .filter((n) => ext.test(n))
      .sort((a, b) => statSync(join(base, b)).size - statSync(join(base, a)).size);
  files.table = bySize(/\.sst$/)[0]!;
  files.manifest = readFileSync(join(base, "CURRENT"), "latin1").trim();
  files.wal = bySize(/\.log$/)[0]!;
  files.blob = bySize(/\.blob$/)[0]!;
  files.options = bySize(/^OPTIONS-/)
    .sort()
    .pop()!;
  for (const k of Object.keys(PLAN) as Kind[]) expect(files[k], k).toBeDefined();
}, 120_000);
afterAll(() => removeDir(dir));

describe("damage fuzz over a db_bench store", () => {
  it(`${TOTAL} mutants (${Object.entries(PLAN)
    .map(([k, n]) => `${n} ${k}`)
    .join(", ")}) through inspect --verify, sizes, probe, check and the compact plan`, async () => {
    const rnd = mulberry32(0xda3a6e);
    const work = join(dir, "work");
    rmSync(work, { recursive: true, force: true });
    cpSync(base, work, { recursive: true });
    const tally = { detected: 0, oracleDamaged: 0, benign: 0, threw: 0 };
    let cliRuns = 0;
    for (const kind of Object.keys(PLAN) as Kind[]) {
      const name = files[kind];
      const path = join(work, name);
      const original = readFileSync(join(base, name));
      for (let i = 0; i < PLAN[kind]; i++) {
        const m = mutate(original, rnd);
        writeFileSync(path, m.bytes);
        const where = `${kind} ${name}: ${m.what}`;
        try {
          const inspected = await outcome(() => runInspect(work, { verify: { threads: 1 } }));
          const results = [
            inspected,
            await outcome(() => computeSizes(work, { mode: "full" })),
            await outcome(() =>
              runProbe(work, { cf: "default", keys: "present", counts: [20], path: "reader" }),
            ),
            await outcome(() => runCheck(work, { overlaySample: 200 })),
          ];
          if (engine.engineAvailable()) results.push(await outcome(() => planCompaction(work)));
          for (const r of results)
            if (r.threw) {
              tally.threw++;
              expect(r.threw.oneLine(), where).toContain(work);
            }
          const model = (inspected.returned as Awaited<ReturnType<typeof runInspect>> | undefined)?.model;
          const errorsInFile =
            inspected.threw !== undefined ||
            (model?.findings.some((f) => f.severity === "error" && f.file.startsWith(work)) ?? false);
          if (errorsInFile) tally.detected++;
          const damaged = oracleSaysDamaged(kind, path, original, m.bytes);
          if (damaged) {
            tally.oracleDamaged++;
            // the oracle's damage is ours too: an error finding (exit 2), never a clean report
            expect(errorsInFile, `${where}: the oracle reports damage, inspect --verify does not`).toBe(true);
            expect(model?.complete ?? false, where).toBe(false);
          } else if (damaged === false && !errorsInFile) tally.benign++;
          if (errorsInFile && cliRuns < CLI_MUTANTS && (kind === "table" || kind === "manifest")) {
            cliRuns++;
            const r = spawnSync(process.execPath, [bin, "inspect", work, "--verify"], { encoding: "utf8" });
            expect(r.stderr, where).not.toMatch(/internal error|\n\s+at /);
            expect(r.status, where).toBe(2);
          }
        } catch (e) {
          throw new Error(`${where}: ${(e as Error).stack}`);
        }
      }
      writeFileSync(path, original);
    }
    expect(tally.oracleDamaged).toBeGreaterThan(TOTAL / 3);
    expect(cliRuns).toBe(CLI_MUTANTS);
    console.log(
      `damage fuzz: ${TOTAL} mutants, ${tally.detected} reported as damage (exit 2), ${tally.oracleDamaged} damaged by the oracle's account, ${tally.benign} benign by it, ${tally.threw} one-line errors`,
    );
  }, 300_000);
});
