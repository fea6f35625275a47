/**
 * The order in which the suite's files start: the longest first, so that both forks end together.
 *
 * vitest orders two files by its cache of the last run's durations (node_modules/.vite) where it has
 * both, and by source size where it does not: on a clean clone, as in CI, all by size, a file of many
 * short tests before a long one of few. In a run in vitest's own order (session 33, the working clone,
 * its cache from earlier runs of a few files; two forks, 246 s) format/samples.test.ts (9.5 s) started
 * 226 s in and ran alone on its fork at the end, and a fork stood idle through most of the last 20 s.
 * Without a cache of every file the files start in the order of test/setup/durations.json
 * (measured: scripts/test-durations.mjs writes it from a run's JSON report), the files it does not
 * list after them in vitest's order. With a cache that holds every file, vitest's order stands: it
 * is the newer measurement, and it starts the files that failed last time first.
 *
 * The projects still run one after the other (vitest.config.ts: the files that load RocksDB 9.7.4
 * in-process run in forks of their own, after the others).
 */
import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/** Seconds each file took, by its path from the repository's root. */
function measured(root: string): ReadonlyMap<string, number> {
  const text = readFileSync(join(root, "test", "setup", "durations.json"), "utf8");
  return new Map(Object.entries(JSON.parse(text) as Record<string, number>));
}

export class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const theirs = await super.sort(files);
    const root = this.ctx.config.root;
    const key = (f: TestSpecification) => relative(root, f.moduleId);
    if (files.every((f) => this.ctx.cache.getFileTestResults(`${f.project.name}:${key(f)}`))) return theirs;
    const seconds = measured(root);
    // a stable sort: the files it does not list keep vitest's order, after the listed ones
    return theirs.sort((a, b) => (seconds.get(key(b)) ?? 0) - (seconds.get(key(a)) ?? 0));
  }
}
