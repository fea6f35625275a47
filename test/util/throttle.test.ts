/**
 * --max-read-mb-per-sec: the throttle's sleeps on a simulated clock (no wall-clock assertions), and the
 * CLI: the same figures with and without the limit, the limit carried to worker threads, bad values refused.
 */
import { describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { ReadThrottle } from "../../src/util/throttle.js";
import { REPO, SAMPLES } from "../helpers/index.js";

function simulated(rate: number) {
  let now = 0;
  const sleeps: number[] = [];
  const t = new ReadThrottle(
    rate,
    () => now,
    (ms) => {
      sleeps.push(ms);
      now += ms;
    },
  );
  return {
    read: (n: number) => t.read(n),
    advance: (ms: number) => (now += ms),
    get now() {
      return now;
    },
    sleeps,
  };
}

describe("ReadThrottle", () => {
  it("reads at the rate: 10 MiB in 1 MiB reads at 2 MiB/s take 5 s of sleep", () => {
    const s = simulated(2 * 1024 * 1024);
    for (let i = 0; i < 10; i++) s.read(1024 * 1024);
    expect(s.now).toBeCloseTo(5000, 6);
  });

  it("time spent reading counts: no sleep while reads are slower than the rate", () => {
    const s = simulated(1024 * 1024);
    for (let i = 0; i < 5; i++) {
      s.read(512 * 1024);
      s.advance(600); // the read itself took longer than its share (500 ms)
    }
    expect(s.sleeps.every((ms) => ms <= 500)).toBe(true);
    expect(s.sleeps.length).toBe(1); // only the first read, before any time had passed
  });

  it("a pause buys at most one second of burst", () => {
    const s = simulated(1024 * 1024);
    s.read(1024 * 1024);
    s.advance(60_000);
    const before = s.now;
    for (let i = 0; i < 4; i++) s.read(1024 * 1024);
    // 4 MiB at 1 MiB/s with 1 s of credit: 3 s of sleep
    expect(s.now - before).toBeCloseTo(3000, 6);
  });
});

describe("--max-read-mb-per-sec", () => {
  const run = (args: string[]) =>
    spawnSync(process.execPath, [join(REPO, "bin", "lsmscope.js"), ...args], { encoding: "utf8" });
  const strip = (json: string) => {
    const r = JSON.parse(json) as Record<string, unknown>;
    delete r["elapsedMs"];
    delete r["entriesPerSecond"];
    delete r["workers"];
    return r;
  };

  it("sizes: the same figures under a limit, in one thread and in two", () => {
    const dir = join(SAMPLES, "besu-snapshot");
    const free = strip(run(["sizes", dir, "--json"]).stdout);
    const one = run(["sizes", dir, "--json", "--max-read-mb-per-sec", "64"]);
    expect(one.status).toBe(0);
    expect(strip(one.stdout)).toEqual(free);
    const two = run(["sizes", dir, "--json", "--workers", "2", "--max-read-mb-per-sec", "64"]);
    expect(two.status).toBe(0);
    expect(strip(two.stdout)).toEqual(free);
  }, 120_000);

  it("inspect and diff take it; zero or a word is a usage error", () => {
    expect(run(["inspect", join(SAMPLES, "modern"), "--max-read-mb-per-sec", "8"]).status).toBe(0);
    const d = run(["diff", join(SAMPLES, "modern"), join(SAMPLES, "modern"), "--max-read-mb-per-sec", "8"]);
    expect(d.status).toBe(0);
    for (const bad of ["0", "-3", "fast"]) {
      const r = run(["inspect", join(SAMPLES, "modern"), "--max-read-mb-per-sec", bad]);
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(/--max-read-mb-per-sec needs a positive number/);
    }
  }, 120_000);
});
