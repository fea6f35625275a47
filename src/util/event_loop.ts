/**
 * Long synchronous loops (a table read after another) that share the thread with a screen: every so
 * many steps they let the event loop run (timers, input, drawing) and stop when their caller aborts.
 */

/** Tables read between two yields to the event loop when a caller shows the model as it is read. */
export const TABLES_PER_YIELD = 64;

/**
 * After step `done` of a loop: every `every` steps, let the event loop run once (setImmediate: timers
 * and I/O callbacks come first), then throw the signal's reason if the caller aborted meanwhile. In
 * between, nothing to wait for (undefined): a caller that is synchronous otherwise stays so.
 */
export function yieldEvery(done: number, every: number, signal?: AbortSignal): Promise<void> | undefined {
  if (done % every !== 0) return undefined;
  return new Promise<void>((resolve) => setImmediate(resolve)).then(() => signal?.throwIfAborted());
}
