/**
 * A FIFO in place of a live table (an untrusted datadir): opening it for reading would wait for a writer
 * forever; the readers open tables without blocking (format/table_file.ts OPEN_FOR_READING, the
 * read-ahead and its helper alike: test/util/readahead_helper.test.ts), so every command ends with the
 * table named as not a regular file and exit 2. (`check` off a terminal prints one summary line: its
 * findings are read from --json.)
 */
import { afterAll, describe, expect, it } from "vitest";
import { execFileSync, spawnSync } from "node:child_process";
import { readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { copyInto, REPO, SAMPLES, trackedTempDirs } from "../helpers/index.js";

const { tempDir, cleanupTemps } = trackedTempDirs("lsmscope-fifo-");
afterAll(cleanupTemps);

const bin = join(REPO, "bin", "lsmscope.js");

describe("a FIFO in place of a table", () => {
  const dir = copyInto(join(SAMPLES, "besu-snapshot"), tempDir());
  const db = join(dir, "database");
  const table = readdirSync(db).find((n) => n.endsWith(".sst"))!;
  rmSync(join(db, table));
  execFileSync("mkfifo", [join(db, table)]);

  for (const args of [["inspect"], ["inspect", "--deep", "--json"], ["check", "--json"], ["sizes", "--full"]])
    it(`${args.join(" ")}: exit 2, the table named, no wait`, () => {
      const r = spawnSync(process.execPath, [bin, ...args, dir], { encoding: "utf8", timeout: 30_000 });
      expect(r.error).toBeUndefined(); // not killed by the timeout
      expect(r.status).toBe(2);
      const out = r.stdout + r.stderr;
      expect(out).toContain(table);
      expect(out).toContain("not a regular file");
      expect(out).not.toMatch(/\n\s+at /);
    });
});
