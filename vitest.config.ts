import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts", "test/**/*.test.tsx"],
    setupFiles: ["test/setup/environment.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    poolOptions: {
      forks: {
        // one test file per core: vitest's default for a run leaves a core idle (CPUs - 1: a single
        // fork on two cores), while the tests spend much of their time waiting on child processes
        // (db_bench, sst_dump, the CLI, tmux, npm). On the 2-core development machine the suite took
        // 174 s with two forks against 290 s with one (same commit, same hour)
        maxForks: availableParallelism(),
      },
    },
  },
});
