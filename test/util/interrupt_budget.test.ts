/**
 * util/interrupt_budget.ts: the launcher raises V8's interrupt budget for `inspect` and `check`, and
 * a run whose stores hold many tables goes back to V8's own, for the rest of the run or for a store's
 * table reads. V8's flags cannot be read back, so a child Node (the built module, as the CLI runs it)
 * raises the budget eightfold, tells the module the table count, then calls a small function 100
 * times: that is past V8's budget for optimising it and short of eight times it (V8 marks it for
 * TurboFan after ~40 calls under its own budget, ~200 under the raised one), and --trace-opt says
 * whether it was marked. The inlining budget of the table reads is seen the same way, in
 * --trace-turbo-inlining's decisions on a function of 228 bytes of bytecode.
 */
import { afterAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { dbBench, REPO, removeDir, tempDir } from "../helpers/index.js";
import { ONE_TABLE_PER_MEMTABLE, TINY_L0_PILEUP } from "../datadir/helpers.js";
import { inspectDatadir } from "../../src/datadir/inspect.js";
import { runInspect, type InspectMode } from "../../src/report/deep.js";
import {
  budgetRaised,
  noteRaisedInterruptBudget,
  tableReadsLowered,
  tablesAhead,
} from "../../src/util/interrupt_budget.js";

const MODULE = pathToFileURL(join(REPO, "dist", "src", "util", "interrupt_budget.js")).href;
const V8_BUDGET = 67584;
/**
 * The flags these child Nodes set are V8 11's (Node 20): V8 12 and 13 (Node 22, 24) have no
 * --interrupt-budget, and the launcher raises nothing there (bin/load_cli.js, test/cli_bundle.test.ts).
 */
const { V8_HAS_INTERRUPT_BUDGET } = createRequire(import.meta.url)(join(REPO, "bin", "load_cli.js")) as {
  V8_HAS_INTERRUPT_BUDGET: boolean;
};

/** Run `script` (an ES module) in a child Node under V8's `flags`; what it printed. */
function childNode(script: string, flags: string[]): string {
  const r = spawnSync(process.execPath, [...flags, "--input-type=module", "-e", script], {
    encoding: "utf8",
  });
  expect(r.stderr).toBe("");
  expect(r.status).toBe(0);
  return r.stdout;
}

/** Whether V8 marked the child's hot function for TurboFan (`note`: the launcher's call made). */
function optimisedAfter(tables: number, note = true): { optimised: boolean; counted: boolean } {
  const script = `
import { setFlagsFromString } from "node:v8";
import { noteRaisedInterruptBudget, tablesAhead } from ${JSON.stringify(MODULE)};
setFlagsFromString("--interrupt-budget=${8 * V8_BUDGET}");
${note ? `noteRaisedInterruptBudget(${V8_BUDGET}, ${8 * V8_BUDGET}, 6000);` : ""}
let counted = false;
tablesAhead(() => { counted = true; return ${tables}; });
function hotLoop(n) { let s = 0; for (let i = 0; i < n; i++) s += i % 7; return s; }
let t = 0;
for (let k = 0; k < 100; k++) t += hotLoop(100);
console.log(counted ? "counted" : "not counted", t);
`;
  const stdout = childNode(script, ["--trace-opt"]);
  return {
    optimised: /marking .*hotLoop.* for optimization/.test(stdout),
    counted: stdout.includes("\ncounted ") || stdout.startsWith("counted "),
  };
}

/**
 * Whether V8 marked a hot function for TurboFan while a store's `tables` table reads ran, and another
 * after they ended (`note`: the launcher's call made, with the count of its default `inspect`).
 */
function tableReadsMarked(tables: number, note = true): { during: boolean; after: boolean } {
  const script = `
import { setFlagsFromString } from "node:v8";
import { noteRaisedInterruptBudget, tableReadsBegin } from ${JSON.stringify(MODULE)};
setFlagsFromString("--interrupt-budget=${8 * V8_BUDGET}");
${note ? `noteRaisedInterruptBudget(${V8_BUDGET}, ${8 * V8_BUDGET}, Infinity, 4000);` : ""}
function duringLoop(n) { let s = 0; for (let i = 0; i < n; i++) s += i % 7; return s; }
function afterLoop(n) { let s = 0; for (let i = 0; i < n; i++) s += i % 5; return s; }
let t = 0;
const end = tableReadsBegin(${tables});
for (let k = 0; k < 100; k++) t += duringLoop(100);
end();
for (let k = 0; k < 100; k++) t += afterLoop(100);
console.log(t);
`;
  const stdout = childNode(script, ["--trace-opt"]);
  return {
    during: /marking .*duringLoop.* for optimization/.test(stdout),
    after: /marking .*afterLoop.* for optimization/.test(stdout),
  };
}

/**
 * Whether TurboFan inlined a callee of 228 bytes of bytecode into a caller optimised before, during
 * and after a store's `tables` table reads (compiled at once through V8's test intrinsics).
 */
function inlinedAround(tables: number): { before: boolean; during: boolean; after: boolean } {
  const script = `
import { noteRaisedInterruptBudget, tableReadsBegin } from ${JSON.stringify(MODULE)};
function callee(a) {
  let s = 0;
  for (let i = 0; i < a.length; i++) {
    s += a[i] * 3 + (a[i] >> 2) - (a[i] & 7);
    s ^= i;
    s += a[i] % 5;
    s -= a[i] % 3;
    s += (a[i] | 9) ^ 17;
  }
  if (s > 100) s -= 1;
  if (s > 1000) s -= 7;
  if (s < -1) s += 3;
  return s + (a.length > 3 ? 1 : 2) + (a.length > 5 ? 3 : 4) + (a.length > 7 ? 5 : 6);
}
for (let i = 0; i < 20; i++) callee([1, 2]); // its feedback vector, which inlining needs
function probe(label) {
  const caller = new Function("callee", "return function caller(a) { return callee(a) + 1; }")(callee);
  %PrepareFunctionForOptimization(caller);
  caller([1, 2, 3, 4]);
  %OptimizeFunctionOnNextCall(caller);
  console.log("PROBE " + label);
  caller([1, 2, 3, 4]);
}
noteRaisedInterruptBudget(${V8_BUDGET}, ${8 * V8_BUDGET}, Infinity, 4000);
probe("before");
const end = tableReadsBegin(${tables});
probe("during");
end();
probe("after");
console.log("PROBE end");
`;
  const stdout = childNode(script, ["--allow-natives-syntax", "--trace-turbo-inlining"]);
  const inlined = (label: string) => {
    const from = stdout.indexOf(`PROBE ${label}\n`);
    const to = stdout.indexOf("PROBE ", from + 1);
    expect(from).toBeGreaterThanOrEqual(0);
    return /Inlining .*callee.* into .*caller/.test(stdout.slice(from, to));
  };
  return { before: inlined("before"), during: inlined("during"), after: inlined("after") };
}

describe("interrupt_budget", () => {
  it.runIf(V8_HAS_INTERRUPT_BUDGET)(
    "goes back to V8's budget from the launcher's table count on, not below it",
    () => {
      expect(optimisedAfter(5999)).toEqual({ optimised: false, counted: true });
      expect(optimisedAfter(6000)).toEqual({ optimised: true, counted: true });
    },
  );

  it.runIf(V8_HAS_INTERRUPT_BUDGET)(
    "leaves the flags alone, and counts nothing, where the launcher raised no budget",
    () => {
      expect(optimisedAfter(1_000_000, false)).toEqual({ optimised: false, counted: false });
    },
  );

  it.runIf(V8_HAS_INTERRUPT_BUDGET)(
    "reads a store of many tables under V8's budget, and goes back to the raised one after",
    () => {
      expect(tableReadsMarked(3999)).toEqual({ during: false, after: false });
      expect(tableReadsMarked(4000)).toEqual({ during: true, after: false });
      expect(tableReadsMarked(1_000_000, false)).toEqual({ during: false, after: false });
    },
  );

  it.runIf(V8_HAS_INTERRUPT_BUDGET)("lowers TurboFan's inlining budget for those reads only", () => {
    expect(inlinedAround(4000)).toEqual({ before: true, during: false, after: true });
    expect(inlinedAround(3999)).toEqual({ before: true, during: true, after: true });
  });

  // in this process the budget is V8's own already: going back to it changes nothing but the state,
  // which is ended after these tests (the test files share their process)
  afterAll(() => tablesAhead(() => Number.MAX_SAFE_INTEGER));
  /** Whether inspecting `dir` ends a budget raised until `tables` table files. */
  async function endsAt(dir: string, tables: number): Promise<boolean> {
    noteRaisedInterruptBudget(V8_BUDGET, 8 * V8_BUDGET, tables);
    await inspectDatadir(dir);
    return !budgetRaised();
  }

  /**
   * Whether `inspect`'s table reads of `dir` (`mode`'s) ran under V8's budget, lowered from `tables`
   * tables on. Progress is told as the last table is read, before the reads end.
   */
  async function readsLowered(dir: string, tables: number, mode: InspectMode): Promise<boolean> {
    noteRaisedInterruptBudget(V8_BUDGET, V8_BUDGET, Number.MAX_SAFE_INTEGER, tables);
    let lowered = false;
    await runInspect(dir, { mode, onProgress: () => (lowered ||= tableReadsLowered()) });
    return lowered;
  }

  it("is told the table files the stores' directories list: three stores of Nethermind's", async () => {
    const dir = join(REPO, "samples", "nethermind");
    const model = await inspectDatadir(dir);
    expect(model.instances.length).toBe(3);
    const listed = model.instances.reduce(
      (n, i) => n + readdirSync(i.path).filter((f) => /^\d+\.(sst|ldb)$/.test(f)).length,
      0,
    );
    expect(listed).toBeGreaterThan(3);
    expect(await endsAt(dir, listed)).toBe(true);
    expect(await endsAt(dir, listed + 1)).toBe(false);
  });

  it("counts a db_bench pile-up's tables as sst_dump finds them", async () => {
    const dir = tempDir("lsmscope-budget-");
    try {
      const db = join(dir, "l0");
      dbBench(db, [...TINY_L0_PILEUP, ...ONE_TABLE_PER_MEMTABLE, "--num=30000"]);
      // sst_dump's own view of which files of the directory are tables: one "Process" line each
      const r = spawnSync("sst_dump", [`--file=${db}`, "--command=identify"], { encoding: "utf8" });
      expect(r.status).toBe(0);
      const tables = r.stdout.split("\n").filter((l) => l.startsWith("Process ")).length;
      expect(tables).toBeGreaterThan(10);
      expect(await endsAt(db, tables)).toBe(true);
      expect(await endsAt(db, tables + 1)).toBe(false);
      // and its table reads are one phase of that many tables, in default mode and in --deep
      for (const mode of ["cheap", "deep"] as const) {
        expect(await readsLowered(db, tables, mode)).toBe(true);
        expect(await readsLowered(db, tables + 1, mode)).toBe(false);
        expect(tableReadsLowered()).toBe(false);
      }
    } finally {
      removeDir(dir);
    }
  });

  it("counts LevelDB's .ldb tables too (geth's chaindata)", async () => {
    const dir = join(REPO, "samples", "geth-leveldb");
    const model = await inspectDatadir(dir);
    const names = model.instances.flatMap((i) => readdirSync(i.path));
    const ldb = names.filter((f) => /^\d+\.ldb$/.test(f)).length;
    expect(ldb).toBeGreaterThan(0);
    const tables = ldb + names.filter((f) => /^\d+\.sst$/.test(f)).length;
    expect(await endsAt(dir, tables)).toBe(true);
    expect(await endsAt(dir, tables + 1)).toBe(false);
  });
});
