/**
 * The test files that load @nxtedition/rocksdb (its own RocksDB 9.7.4) into their own process. They
 * run in forks of their own (vitest.config.ts): the suite's forks are shared by many files, and a
 * process that holds both RocksDB 9.7.4 and the engine addon's system RocksDB 7.8.3 dies.
 */
import { readFileSync } from "node:fs";

export const ROCKSDB_97_IN_PROCESS = [
  "test/format/engines.test.ts",
  "test/format/fuzz.test.ts",
  "test/identity/nethermind.test.ts",
  "test/samples/leveldb-modern.test.ts",
];

/** Which of the two RocksDB builds this process has mapped (read from /proc/self/maps). */
export function rocksdbBuildsLoaded(): { system78: boolean; nxtedition97: boolean } {
  const maps = readFileSync("/proc/self/maps", "utf8");
  return {
    system78: maps.includes("/librocksdb.so"),
    nxtedition97: maps.includes("@nxtedition+rocksdb.node"),
  };
}
