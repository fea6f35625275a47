/**
 * V8's interrupt budget for a run that turns out long. The launcher (bin/load_cli.js) raises the
 * budget for `inspect` (8x V8's) and `check` (4x): in a run of a fraction of a second, TurboFan's
 * compiles of functions about to fall idle take the cores from the main thread. How long the run is
 * shows once the stores are found (the table files their directories list). The launcher gives the
 * table count from which V8's own budget pays for the command line it runs (fewer for the commands
 * that do more per table; its LONG_INSPECT_TABLES says what was measured, bench/history.md session
 * 28 in full); below it nothing changes.
 */
import { setFlagsFromString } from "node:v8";

/** What the launcher set, while the budget is raised; undefined where lsmscope runs as a library. */
let raised: { v8Budget: number; longRunTables: number } | undefined;

/**
 * The launcher raised V8's interrupt budget for this run; `v8Budget` is V8's own, which pays from
 * `longRunTables` table files on.
 */
export function noteRaisedInterruptBudget(v8Budget: number, longRunTables: number): void {
  raised = { v8Budget, longRunTables };
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
