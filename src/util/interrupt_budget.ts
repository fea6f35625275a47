/**
 * V8's interrupt budget for a run that turns out long. The launcher (bin/load_cli.js) raises the
 * budget for `inspect` (8x V8's) and `check` (4x): in a run of a fraction of a second, TurboFan's
 * compiles of functions about to fall idle take the cores from the main thread. How long the run is
 * shows once the stores are found (the table files their directories list), and again as the
 * tables are about to be read. The launcher gives the counts from which V8's own budget pays for the
 * command line it runs, for the whole run or for the table reads alone (its LONG_INSPECT_TABLES and
 * TABLE_READS_TABLES say what was measured; bench/history.md, sessions 28 and 29, in full); below
 * them nothing changes.
 */
import { setFlagsFromString } from "node:v8";

/** What the launcher set, while the budget is raised; undefined where lsmscope runs as a library. */
let raised:
  | { v8Budget: number; raisedBudget: number; longRunTables: number; tableReadTables: number | undefined }
  | undefined;

/**
 * TurboFan's budget for inlining (bytecode, cumulative per compile) while a long phase of table reads
 * runs under V8's interrupt budget (tableReadsBegin), and V8's own (Node 20's V8 11.3), put back after
 * it. Under V8's 920 the per-table reader's compiles (the table's constructor with its footer,
 * metaindex and properties decoders inlined, 25-40 ms each) took a background thread ~470 ms on the
 * 5,260-table pile-up, on two cores the main thread shares with it; under 200, ~290 ms, and the run
 * reached its optimised code sooner (bench/history.md, session 29).
 */
const TABLE_READS_INLINING = 200;
const V8_INLINING = 920;

/**
 * The launcher raised V8's interrupt budget (`v8Budget`) to `raisedBudget` for this run. V8's own pays
 * for the whole run from `longRunTables` table files on, and for its table reads alone from
 * `tableReadTables` tables on (undefined: never; see tableReadsBegin).
 */
export function noteRaisedInterruptBudget(
  v8Budget: number,
  raisedBudget: number,
  longRunTables: number,
  tableReadTables?: number,
): void {
  raised = { v8Budget, raisedBudget, longRunTables, tableReadTables };
}

/** Whether the run is still under the launcher's raised budget (tablesAhead has not ended it). */
export function budgetRaised(): boolean {
  return raised !== undefined;
}

/**
 * The run is about to read stores holding `tableFiles()` table files (counted only while the budget is
 * raised): from the launcher's count on, V8's own budget for the rest of the run (each function takes
 * it when its budget is next reset).
 */
export function tablesAhead(tableFiles: () => number): void {
  if (raised === undefined || tableFiles() < raised.longRunTables) return;
  setFlagsFromString(`--interrupt-budget=${raised.v8Budget}`);
  raised = undefined;
}

const leaveFlags = (): void => {};

/** Between tableReadsBegin's lowering and its end. */
let lowered = false;

/** Whether table reads run under V8's budget and the smaller inlining budget now. */
export function tableReadsLowered(): boolean {
  return lowered;
}

/**
 * `tables` table reads begin (a store's, or in deep mode every store's); call the returned function
 * when they end. From the launcher's count on, they run under V8's own interrupt budget and a
 * smaller inlining budget, and the run goes back to the raised budget after them: the per-table code
 * runs thousands of times and pays for TurboFan early, while what runs before (the MANIFEST's replay)
 * and after (the report) is compiled for milliseconds of use. Below the count, or where no budget was
 * raised, nothing changes.
 */
export function tableReadsBegin(tables: number): () => void {
  const r = raised;
  if (r?.tableReadTables === undefined || tables < r.tableReadTables) return leaveFlags;
  setFlagsFromString(`--interrupt-budget=${r.v8Budget}`);
  setFlagsFromString(`--max-inlined-bytecode-size-cumulative=${TABLE_READS_INLINING}`);
  lowered = true;
  return () => {
    setFlagsFromString(`--max-inlined-bytecode-size-cumulative=${V8_INLINING}`);
    if (raised === r) setFlagsFromString(`--interrupt-budget=${r.raisedBudget}`);
    lowered = false;
  };
}
