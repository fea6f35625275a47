/**
 * A read-rate limit for running beside a live node (`--max-read-mb-per-sec`): every reader calls
 * throttleRead(bytes) after a read of a store file, and the thread sleeps until its reads are back
 * under the rate. Configured once per process by the CLI and carried to worker threads and probe
 * child processes in the environment (each copies it when it starts); a command that runs several
 * threads gives each its share of the rate. Reads RocksDB makes itself (the engine path) are not
 * limited.
 */
import { monotonicMs } from "./clock.js";

const ENV = "LSMSCOPE_MAX_READ_BYTES_PER_SEC";

/** At most this much unused allowance is carried over after a pause, so a pause does not buy a burst. */
const CREDIT_MS = 1000;

/** Bytes read against a rate: how long to sleep after each read (clock and sleep injectable for tests). */
export class ReadThrottle {
  private start = 0;
  private bytes = 0;

  constructor(
    readonly bytesPerSecond: number,
    private readonly now: () => number = monotonicMs,
    private readonly sleep: (ms: number) => void = sleepSync,
  ) {}

  read(n: number): void {
    if (n <= 0) return;
    const now = this.now();
    if (this.bytes === 0) this.start = now;
    this.bytes += n;
    let due = this.start + (this.bytes / this.bytesPerSecond) * 1000;
    if (now - due > CREDIT_MS) {
      this.start = now - CREDIT_MS;
      this.bytes = n;
      due = this.start + (n / this.bytesPerSecond) * 1000;
    }
    if (due > now) this.sleep(due - now);
  }
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));
function sleepSync(ms: number): void {
  Atomics.wait(sleeper, 0, 0, ms);
}

let throttle: ReadThrottle | undefined;
let configured = false;

/** Set (or clear, with undefined) this process's read rate in bytes per second, for it and its children. */
export function setReadRateLimit(bytesPerSecond: number | undefined): void {
  if (bytesPerSecond === undefined) delete process.env[ENV];
  else process.env[ENV] = String(bytesPerSecond);
  throttle = bytesPerSecond === undefined ? undefined : new ReadThrottle(bytesPerSecond);
  configured = true;
}

/** The read rate in force (bytes per second), if any. */
export function readRateLimit(): number | undefined {
  if (!configured) {
    const v = Number(process.env[ENV]);
    throttle = Number.isFinite(v) && v > 0 ? new ReadThrottle(v) : undefined;
    configured = true;
  }
  return throttle?.bytesPerSecond;
}

/** Account `bytes` just read from a store file; sleep while this thread is ahead of the rate. */
export function throttleRead(bytes: number): void {
  if (!configured) readRateLimit();
  throttle?.read(bytes);
}
