/**
 * Every table of the committed sample datadirs (Besu, Nethermind, format-6 "modern", LevelDB geth)
 * through the same cross-check as the generated tables: sst_dump for the block-based tables RocksDB
 * 7.8.3 can read (format <= 5), the reader's own consistency for the others.
 */
import { describe, expect, it } from "vitest";
import { existsSync } from "node:fs";
import { openTable } from "../../src/format/index.js";
import { tableFilesUnder } from "../helpers/index.js";
import { checkTable } from "./check.js";

const samplesDir = new URL("../../samples", import.meta.url).pathname;

const files = existsSync(samplesDir) ? tableFilesUnder(samplesDir) : [];

describe.skipIf(files.length === 0)("sample datadir tables", () => {
  it("are all found", () => {
    expect(files.length).toBeGreaterThan(20);
  });
  for (const f of files) {
    it(f.slice(samplesDir.length + 1), () => {
      const t = openTable(f);
      const noSstDump = t.format === "leveldb" || t.formatVersion > 5;
      t.close();
      checkTable(f, { noSstDump });
    });
  }
});
