/**
 * A monotonic clock in milliseconds, for the elapsed times lsmscope reports. Not `performance.now()`:
 * its first use loads eleven of Node's internal modules (perf_hooks and its parts), ~3.7 ms of an
 * `inspect` of ten tables whose whole run takes ~0.1 s.
 */
export function monotonicMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}
