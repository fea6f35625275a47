import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";
import { ROCKSDB_97_IN_PROCESS } from "./test/setup/rocksdb97.js";
import { LongestFirst } from "./test/setup/sequencer.js";

const include = ["test/**/*.test.ts", "test/**/*.test.tsx"];

export default defineConfig({
  test: {
    setupFiles: ["test/setup/environment.ts", "test/setup/one_rocksdb.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // the longest files first, with or without vitest's cache of the last run (test/setup/sequencer.ts)
    sequence: { sequencer: LongestFirst },
    pool: "forks",
    poolOptions: {
      forks: {
        // one test file per core: vitest's default for a run leaves a core idle (CPUs - 1: a single
        // fork on two cores), while the tests spend much of their time waiting on child processes
        // (db_bench, sst_dump, the CLI, tmux, npm). On the 2-core development machine the suite took
        // 174 s with two forks against 290 s with one (same commit, same hour)
        maxForks: availableParallelism(),
        // test files share their fork instead of each starting a new one: a fresh fork, vitest's
        // runner in it and the file's imports cost ~1.5 s of a core per file on the 2-core
        // development machine (112 files); 274 -> 234 s for the suite in the same hour
        isolate: false,
      },
    },
    // Forks are shared only within a project (vitest starts new ones between projects). The files
    // that load @nxtedition/rocksdb into their own process (RocksDB 9.7.4) get forks of their own: a
    // fork that has loaded the engine addon (the system's RocksDB 7.8.3) died running one of them
    // ("Channel closed"; src/samples/modern.ts writes from a child process for the same reason).
    // test/setup/one_rocksdb.ts fails a file that loads the wrong one for its project.
    projects: [
      { extends: true, test: { name: "main", include, exclude: ROCKSDB_97_IN_PROCESS } },
      { extends: true, test: { name: "rocksdb97", include: ROCKSDB_97_IN_PROCESS } },
    ],
  },
});
