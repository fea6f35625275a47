/**
 * After each test file: a file of the shared forks must not have loaded @nxtedition/rocksdb, and one
 * listed as loading it must not have loaded the engine addon's RocksDB (test/setup/rocksdb97.ts), so
 * that the list in vitest.config.ts stays complete. The check runs after every file, so a file
 * missing from the list fails on its own run, named (and the files after it in that fork with it),
 * instead of killing a fork some files later, in some orders only.
 */
import { relative } from "node:path";
import { afterAll, expect } from "vitest";
import { REPO } from "../helpers/index.js";
import { ROCKSDB_97_IN_PROCESS, rocksdbBuildsLoaded } from "./rocksdb97.js";

afterAll(() => {
  const file = relative(REPO, expect.getState().testPath ?? "");
  const loaded = rocksdbBuildsLoaded();
  if (ROCKSDB_97_IN_PROCESS.includes(file))
    expect(loaded.system78, `${file} loads the system RocksDB beside @nxtedition/rocksdb`).toBe(false);
  else
    expect(
      loaded.nxtedition97,
      `${file} loads @nxtedition/rocksdb in process: add it to test/setup/rocksdb97.ts`,
    ).toBe(false);
});
