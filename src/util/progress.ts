/**
 * Progress for long work, on stderr so stdout stays clean for reports and --json.
 * On a terminal: one line redrawn in place (bar, rate, ETA). Not on a terminal: a plain line at most
 * every `plainIntervalMs`, so logs stay short. `quiet` silences it entirely (tests, --json pipes).
 */
import { formatBytes } from "./bytes.js";

export interface ProgressOptions {
  label: string;
  total?: number;
  unit?: "bytes" | "items";
  stream?: NodeJS.WriteStream;
  quiet?: boolean;
  plainIntervalMs?: number;
}

export interface Progress {
  update(done: number, note?: string): void;
  add(delta: number): void;
  done(finalNote?: string): void;
}

export function createProgress(opts: ProgressOptions): Progress {
  const stream = opts.stream ?? process.stderr;
  const tty = Boolean(stream.isTTY);
  const unit = opts.unit ?? "items";
  const started = Date.now();
  let current = 0;
  let lastDraw = 0;
  let drewTty = false;
  const interval = tty ? 100 : (opts.plainIntervalMs ?? 2000);
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

  const draw = (force: boolean, note?: string) => {
    if (opts.quiet) return;
    const now = Date.now();
    if (!force && now - lastDraw < interval) return;
    lastDraw = now;
    if (tty) {
      const cols = stream.columns ?? 80;
      stream.write("\r" + line(note).slice(0, Math.max(10, cols - 1)) + "\x1b[K");
      drewTty = true;
    } else {
      stream.write(line(note) + "\n");
    }
  };

  return {
    update(done, note) {
      current = done;
      draw(false, note);
    },
    add(delta) {
      current += delta;
      draw(false);
    },
    done(finalNote) {
      if (opts.quiet) return;
      if (tty) {
        if (drewTty) stream.write("\r\x1b[K");
      } else if (lastDraw !== 0 || finalNote) {
        stream.write(line(finalNote ?? "done") + "\n");
      }
    },
  };
}
