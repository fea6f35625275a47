/**
 * A FIFO in place of one of a datadir's files (an untrusted datadir): an ordinary open for reading
 * waits for a writer, forever. The readers open a datadir's files without blocking and refuse anything
 * but a regular file (src/util/regular_file.ts; a table with its size known is opened the same way
 * without the fstat: format/table_file.ts; the read-ahead helper: test/util/readahead_helper.test.ts),
 * so every command ends with the file named as not a regular file and exit 2 (3 where `check` cannot
 * read the store at all). `check` off a terminal prints one summary line: its findings are read from
 * --json.
 */
import { afterAll, describe, expect, it } from "vitest";
import { execFileSync, spawnSync } from "node:child_process";
import { readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { copyInto, REPO, SAMPLES, trackedTempDirs } from "../helpers/index.js";

const { tempDir, cleanupTemps } = trackedTempDirs("lsmscope-fifo-");
afterAll(cleanupTemps);

const bin = join(REPO, "bin", "lsmscope.js");

/** A copy of the Besu sample with the first file of `kind` (its name matches) replaced by a FIFO. */
function withFifo(kind: RegExp): { dir: string; name: string } {
  const dir = copyInto(join(SAMPLES, "besu-snapshot"), tempDir());
  const db = join(dir, "database");
  // the newest of its kind: the one the readers take (OPTIONS: the newest file)
  const name = readdirSync(db)
    .filter((n) => kind.test(n))
    .sort()
    .at(-1)!;
  rmSync(join(db, name));
  execFileSync("mkfifo", [join(db, name)]);
  return { dir, name };
}

describe("a FIFO in place of a datadir's file", () => {
  for (const [what, kind] of [
    ["a live table", /\.sst$/],
    ["a blob file", /\.blob$/],
    ["the WAL", /\.log$/],
    ["the MANIFEST", /^MANIFEST-/],
    ["CURRENT", /^CURRENT$/],
    ["the newest OPTIONS", /^OPTIONS-/],
  ] as const) {
    const { dir, name } = withFifo(kind);
    const commands =
      what === "a live table"
        ? [
            ["inspect", "--deep", "--json"],
            ["sizes", "--full"],
          ]
        : [];
    for (const args of [["inspect"], ["check", "--json"], ...commands])
      it(`${what}: ${args.join(" ")} names it, exit 2, no wait`, () => {
        const r = spawnSync(process.execPath, [bin, ...args, dir], { encoding: "utf8", timeout: 30_000 });
        expect(r.error).toBeUndefined(); // not killed by the timeout
        expect(r.status).toBe(args[0] === "check" && what === "the MANIFEST" ? 3 : 2);
        const out = (r.stdout + r.stderr).replace(/\s+/g, " ");
        expect(out).toContain(name);
        expect(out).toContain("not a regular file");
        expect(out).not.toMatch(/ at .*\.c?js:\d+/);
      });
  }
});
