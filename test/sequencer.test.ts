/**
 * The suite's order (test/setup/sequencer.ts): without vitest's cache of the last run, the files that
 * test/setup/durations.json lists start first, longest first; with a cache of every file, vitest's
 * own order stands. And the table names only files that are there.
 */
import { describe, expect, it } from "vitest";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { TestSpecification, Vitest } from "vitest/node";
import { LongestFirst } from "./setup/sequencer.js";

const root = join(import.meta.dirname, "..");

/** A sequencer over a cache holding `cached` (project:path -> seconds) and nothing else. */
function sequencer(cached: Record<string, number>): LongestFirst {
  const cache = {
    getFileTestResults: (key: string) =>
      key in cached ? { failed: false, duration: cached[key]! * 1000 } : undefined,
    getFileStats: () => undefined,
  };
  return new LongestFirst({ config: { root }, cache } as unknown as Vitest);
}

const spec = (path: string) =>
  ({ moduleId: join(root, path), project: { name: "main" } }) as unknown as TestSpecification;
const paths = (specs: TestSpecification[]) => specs.map((s) => s.moduleId.slice(root.length + 1));

describe("the suite's order", () => {
  const durations = JSON.parse(readFileSync(join(root, "test", "setup", "durations.json"), "utf8")) as Record<
    string,
    number
  >;
  const [longest, second] = Object.keys(durations);

  it("without a cache: the listed files first, longest first, then the others", async () => {
    const unlisted = "test/sequencer.test.ts";
    expect(durations[unlisted]).toBeUndefined();
    const order = await sequencer({}).sort([spec(unlisted), spec(second!), spec(longest!)]);
    expect(paths(order)).toEqual([longest, second, unlisted]);
  });

  it("with a cache of every file: vitest's order, by the cached durations", async () => {
    const cached = { [`main:${longest}`]: 1, [`main:${second}`]: 5 };
    const order = await sequencer(cached).sort([spec(longest!), spec(second!)]);
    expect(paths(order)).toEqual([second, longest]);
  });

  it("lists only files that exist", () => {
    expect(Object.keys(durations).length).toBeGreaterThan(10);
    for (const path of Object.keys(durations)) expect(existsSync(join(root, path)), path).toBe(true);
  });
});
