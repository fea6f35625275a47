/**
 * No command writes a file into a datadir it inspects: the one helper refuses such paths (through
 * symlinks too), `sizes --svg` and `check --report` use it, and no other module under src/ writes user
 * paths (a new writer has to be added to the list below, or go through the helper).
 */
import { afterAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync, symlinkSync } from "node:fs";
import { join, relative } from "node:path";
import { assertOutsideDatadirs } from "../../src/util/output_file.js";
import { copyInto, REPO, SAMPLES, snapshotTree, trackedTempDirs } from "../helpers/index.js";

const { tempDir, cleanupTemps } = trackedTempDirs("lsmscope-out-");
afterAll(cleanupTemps);
const bin = join(REPO, "bin", "lsmscope.js");
const run = (...args: string[]) => spawnSync(process.execPath, [bin, ...args], { encoding: "utf8" });

/** Modules that write files, and why it is not into a datadir. */
const OTHER_WRITERS: Record<string, string> = {
  "src/util/output_file.ts": "the helper itself",
  "src/probe/cold.ts": "/proc/sys/vm/drop_caches",
  "src/probe/point.ts": "job files in its own mkdtemp directory",
  "src/probe/worker.ts": "result files in the parent's mkdtemp directory",
};

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? sources(p) : /\.tsx?$/.test(n) ? [p] : [];
  });
}

describe("output files", () => {
  it("refuses a path inside a datadir, through a symlink too, and allows one beside it", () => {
    const parent = tempDir();
    const dd = copyInto(join(SAMPLES, "modern"), parent);
    const link = join(parent, "link");
    symlinkSync(dd, link);
    expect(() => assertOutsideDatadirs(join(dd, "x.svg"), [dd], "the SVG")).toThrow(
      /refusing to write the SVG inside the datadir/,
    );
    expect(() => assertOutsideDatadirs(join(link, "x.svg"), [dd], "the SVG")).toThrow(/refusing/);
    expect(() => assertOutsideDatadirs(dd, [dd], "the SVG")).toThrow(/refusing/);
    expect(assertOutsideDatadirs(join(parent, "modern.svg"), [dd], "the SVG")).toBe(
      join(parent, "modern.svg"),
    );
  });

  it("sizes --svg inside the datadir: one line, exit 2, nothing written; beside it: written", () => {
    const parent = tempDir();
    const dd = copyInto(join(SAMPLES, "modern"), parent);
    const before = snapshotTree(dd);
    const r = run("sizes", dd, "--sample", "5", "--svg", join(dd, "sizes.svg"));
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toMatch(/refusing to write the SVG inside the datadir/);
    expect(snapshotTree(dd)).toEqual(before);
    const ok = run("sizes", dd, "--sample", "5", "--svg", join(parent, "sizes.svg"));
    expect(ok.status).toBe(0);
    expect(readFileSync(join(parent, "sizes.svg"), "utf8")).toMatch(/<svg /);
  });

  it("no other module writes files", () => {
    const writers = sources(join(REPO, "src"))
      .map((p) => relative(REPO, p))
      .filter((p) => !p.startsWith("src/samples/")) // the generator writes its own sample directories
      .filter((p) =>
        /\b(writeFileSync|createWriteStream|appendFileSync|writeFile)\(/.test(
          readFileSync(join(REPO, p), "utf8"),
        ),
      );
    expect(writers.sort()).toEqual(Object.keys(OTHER_WRITERS).sort());
    for (const p of Object.keys(OTHER_WRITERS)) expect(existsSync(join(REPO, p))).toBe(true);
  });
});
