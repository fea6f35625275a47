/**
 * Progress for long work, on stderr so stdout stays clean for reports and --json.
 * On a terminal: one line redrawn in place (bar, rate, ETA), from a tenth of a second into the work.
 * Not on a terminal: a plain line at most every `plainIntervalMs`, the first once that long has
 * passed, so logs stay short and work done sooner leaves none (`logStart`: a line as it starts too).
 * `quiet` silences it entirely (tests, --json pipes).
 *
 * process.stderr is asked for only when a line is to be written. Node makes it at its first use, and
 * for a terminal or a pipe that loads its net module (~2.5 ms here, of runs that may take 0.1 s):
 * whether stderr may be a terminal is told first from its file descriptor (a terminal is a character
 * device; a pipe or a file is not).
 */
import { fstatSync } from "node:fs";
import { formatBytes } from "./bytes.js";

export interface ProgressOptions {
  label: string;
  total?: number;
  unit?: "bytes" | "items";
  stream?: NodeJS.WriteStream;
  quiet?: boolean;
  plainIntervalMs?: number;
  /** In a log, a line as the work starts too (work that changes a store: `compact`). */
  logStart?: boolean;
}

export interface Progress {
  update(done: number, note?: string): void;
  add(delta: number): void;
  done(finalNote?: string): void;
}

/** Between a terminal's redraws, and before its first. */
const TTY_INTERVAL_MS = 100;

/** Whether process.stderr is a terminal, making it only where it may be one. */
function stderrIsTerminal(): boolean {
  try {
    if (!fstatSync(2).isCharacterDevice()) return false;
  } catch {
    return false; // closed: nothing will be drawn anyway
  }
  return Boolean(process.stderr.isTTY);
}

export function createProgress(opts: ProgressOptions): Progress {
  const stream = (): NodeJS.WriteStream => opts.stream ?? process.stderr;
  // undefined until a line may be due (a tenth of a second in)
  let tty: boolean | undefined;
  const unit = opts.unit ?? "items";
  const started = Date.now();
  let current = 0;
  let lastDraw = 0;
  let drewTty = false;
  const plainInterval = opts.plainIntervalMs ?? 2000;
  const isTty = (): boolean => (tty ??= opts.stream ? Boolean(opts.stream.isTTY) : stderrIsTerminal());
  const fmt = (n: number) => (unit === "bytes" ? formatBytes(n) : String(n));

  const line = (note?: string): string => {
    const secs = (Date.now() - started) / 1000;
    const rate = secs > 0 ? current / secs : 0;
    let s = `${opts.label}: ${fmt(current)}`;
    if (opts.total !== undefined && opts.total > 0) {
      const frac = Math.min(1, current / opts.total);
      const width = 20;
      const filled = Math.round(frac * width);
      const eta = rate > 0 ? (opts.total - current) / rate : NaN;
      s += ` / ${fmt(opts.total)}`;
      if (tty) s = `[${"#".repeat(filled)}${"-".repeat(width - filled)}] ` + s;
      s += ` ${(frac * 100).toFixed(0)}%`;
      if (Number.isFinite(eta) && current > 0) s += ` ETA ${eta.toFixed(0)}s`;
    }
    if (rate > 0) s += ` (${fmt(Math.round(rate))}/s)`;
    if (note) s += ` ${note}`;
    return s;
  };

  const due = (now: number): boolean => {
    if (lastDraw === 0 && opts.logStart && !isTty()) return true;
    const since = now - (lastDraw || started);
    // a terminal's interval is the shorter: no line is due before it, whatever stderr is
    if (since < Math.min(TTY_INTERVAL_MS, plainInterval)) return false;
    return since >= (isTty() ? TTY_INTERVAL_MS : plainInterval);
  };

  const draw = (note?: string) => {
    if (opts.quiet) return;
    const now = Date.now();
    if (!due(now)) return;
    lastDraw = now;
    const out = stream();
    if (isTty()) {
      const cols = out.columns ?? 80;
      out.write("\r" + line(note).slice(0, Math.max(10, cols - 1)) + "\x1b[K");
      drewTty = true;
    } else {
      out.write(line(note) + "\n");
    }
  };

  return {
    update(done, note) {
      current = done;
      draw(note);
    },
    add(delta) {
      current += delta;
      draw();
    },
    done(finalNote) {
      if (opts.quiet) return;
      if (drewTty) stream().write("\r\x1b[K");
      // a final note is written even when no line was due yet (but not on a terminal, as before)
      else if (lastDraw !== 0 || (finalNote !== undefined && !isTty()))
        stream().write(line(finalNote ?? "done") + "\n");
    },
  };
}
