/**
 * The progress line (src/util/progress.ts): when a line is due on a terminal and in a log, and that
 * process.stderr is not made before a line is to be written there (Node makes it at its first use,
 * loading its net module for a pipe or a terminal: ~2.5 ms of a run that may take 0.1 s).
 */
import { fstatSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createProgress } from "../../src/util/progress.js";

/** A stream that keeps what is written to it. */
function fakeStream(isTTY: boolean): NodeJS.WriteStream & { text: string[] } {
  const text: string[] = [];
  return {
    isTTY,
    columns: 80,
    text,
    write(chunk: string) {
      text.push(chunk);
      return true;
    },
  } as unknown as NodeJS.WriteStream & { text: string[] };
}

describe("progress", () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.setSystemTime(0);
  });
  afterEach(() => vi.useRealTimers());

  it("on a terminal: redrawn from a tenth of a second in, cleared when done", () => {
    const stream = fakeStream(true);
    const p = createProgress({ label: "tables of db", total: 1000, stream });
    for (let t = 0; t < 100; t += 10) {
      vi.setSystemTime(t);
      p.update(t);
    }
    expect(stream.text).toEqual([]);
    vi.setSystemTime(100);
    p.update(100);
    expect(stream.text).toHaveLength(1);
    expect(stream.text[0]).toMatch(/^\r\[##--+\] tables of db: 100 \/ 1000 10%/);
    vi.setSystemTime(150);
    p.update(150); // within the interval: no redraw
    vi.setSystemTime(200);
    p.update(200);
    expect(stream.text).toHaveLength(2);
    p.done();
    expect(stream.text.at(-1)).toBe("\r\x1b[K");
  });

  it("in a log: a line once the interval has passed, none for work done sooner", () => {
    const short = fakeStream(false);
    const quick = createProgress({ label: "tables of db", total: 10, stream: short, plainIntervalMs: 2000 });
    for (let t = 0; t < 2000; t += 100) {
      vi.setSystemTime(t);
      quick.update(t / 200);
    }
    quick.done();
    expect(short.text).toEqual([]);

    vi.setSystemTime(10_000);
    const long = fakeStream(false);
    const p = createProgress({ label: "tables of db", total: 100, stream: long, plainIntervalMs: 2000 });
    vi.setSystemTime(11_999);
    p.update(50);
    expect(long.text).toEqual([]);
    vi.setSystemTime(12_000);
    p.update(60);
    expect(long.text).toEqual(["tables of db: 60 / 100 60% ETA 1s (30/s)\n"]);
    p.done();
    expect(long.text.at(-1)).toMatch(/^tables of db: 60 \/ 100 60% .* done\n$/);
    // `logStart` (compact): a line as the work starts too; a terminal's first is still a tenth of a second in
    const started = fakeStream(false);
    const announced = createProgress({ label: "compacting", total: 100, stream: started, logStart: true });
    announced.update(0);
    expect(started.text).toEqual(["compacting: 0 / 100 0%\n"]);
    announced.update(1);
    expect(started.text).toHaveLength(1);
    const onTerminal = fakeStream(true);
    createProgress({ label: "compacting", total: 100, stream: onTerminal, logStart: true }).update(0);
    expect(onTerminal.text).toEqual([]);
    // a final note is written even when no line was due
    const noted = fakeStream(false);
    createProgress({ label: "compact", stream: noted }).done("ok");
    expect(noted.text).toEqual(["compact: 0 ok\n"]);
  });

  it("does not make process.stderr before a line is due, nor where stderr is not a terminal", () => {
    const real = Object.getOwnPropertyDescriptor(process, "stderr")!;
    const stream = fakeStream(false);
    let made = 0;
    Object.defineProperty(process, "stderr", {
      configurable: true,
      get: () => {
        made++;
        return stream;
      },
    });
    try {
      const p = createProgress({ label: "tables of db", total: 5000, plainIntervalMs: 2000 });
      for (let t = 0; t < 100; t += 10) {
        vi.setSystemTime(t);
        p.update(t);
      }
      // no line is due before a tenth of a second, whatever stderr is
      expect(made).toBe(0);
      for (let t = 100; t < 2000; t += 50) {
        vi.setSystemTime(t);
        p.update(t);
      }
      p.done();
      // a pipe or a file (as under CI) is told from the descriptor, without the stream; a character
      // device (a terminal, /dev/null) needs the stream to tell
      expect(made > 0).toBe(fstatSync(2).isCharacterDevice());
      expect(stream.text).toEqual([]);
      made = 0;
      const later = createProgress({ label: "tables of db", total: 5000, plainIntervalMs: 2000 });
      vi.setSystemTime(5000);
      later.update(4000);
      expect(made).toBeGreaterThan(0);
      expect(stream.text).toHaveLength(1);
    } finally {
      Object.defineProperty(process, "stderr", real);
    }
  });
});
