/**
 * Words a user reads: counts with their noun in the singular for one, names without repeats, flags named
 * once, code classes in size order. The CLI sweep runs the read-only commands on samples whose instances
 * hold one column family, one SST, one file per level, so "1 files"-style slips show up.
 */
import { describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { cpSync, rmSync } from "node:fs";
import { join } from "node:path";
import { int, noun, plural, someOf } from "../../src/util/words.js";
import { cfLabel, instanceLabel } from "../../src/datadir/names.js";
import { orderedClassCounts } from "../../src/eth/code.js";
import { oneNamePerFlag } from "../../src/cli/main.js";
import { REPO, SAMPLES, tempDir } from "../helpers/index.js";

const bin = join(REPO, "bin", "lsmscope.js");
const run = (...args: string[]) =>
  spawnSync(process.execPath, [bin, ...args], { encoding: "utf8", env: { ...process.env, COLUMNS: "80" } });

/** A count of one beside a plural noun ("1 files", "1 column families", "in 1 files"). */
const ONE_PLURAL =
  /(?<![\d.,/×])\b1 (files|SSTs|tables|column families|records|blobs|entries|writes|keys|blocks|instances|workers|lookups|blob files)\b/;

describe("words", () => {
  it("counts in the singular for exactly one", () => {
    expect(plural(1, "file")).toBe("1 file");
    expect(plural(0, "file")).toBe("0 files");
    expect(plural(12434, "entry", "entries")).toBe("12,434 entries");
    expect(plural(1, "column family", "column families")).toBe("1 column family");
    expect(noun(2, "SST")).toBe("SSTs");
    expect(int(-1234567)).toBe("-1,234,567");
  });

  it("names an instance by its directory, a column family without repeating the instance's name", () => {
    expect(instanceLabel({ relPath: ".", path: "/x/samples/modern" })).toBe("modern");
    expect(instanceLabel({ relPath: "database", path: "/x/besu/database" })).toBe("database");
    const flat = { relPath: "nethermind_db/mainnet/flat", path: "/d/nethermind_db/mainnet/flat" };
    expect(cfLabel(flat, "flat/Account")).toBe("nethermind_db/mainnet/flat/Account");
    expect(cfLabel({ relPath: "nethermind_db/mainnet/code", path: "/d" }, "code")).toBe(
      "nethermind_db/mainnet/code",
    );
    expect(cfLabel({ relPath: "database", path: "/d" }, "cf06 ACCOUNT_INFO_STATE")).toBe(
      "database/cf06 ACCOUNT_INFO_STATE",
    );
  });

  it("names an unknown flag once, as typed", () => {
    expect(oneNamePerFlag("Unknown arguments: bogus-flag, bogusFlag")).toBe("Unknown argument: bogus-flag");
    expect(oneNamePerFlag("Unknown arguments: a-b, aB, zz")).toBe("Unknown arguments: a-b, zz");
    expect(oneNamePerFlag("Not enough arguments")).toBe("Not enough arguments");
    const r = run("inspect", join(SAMPLES, "modern"), "--bogus-flag");
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("Unknown argument: bogus-flag\n");
  });

  it("lists at most a few names in an error, however many the datadir holds", () => {
    expect(someOf(["a", "b"])).toBe("a, b");
    expect(someOf(["a", "b", "c", "d"], 3)).toBe("a, b, c … and 1 more");
    const dir = tempDir();
    try {
      for (let i = 0; i < 40; i++)
        cpSync(join(SAMPLES, "modern"), join(dir, `store${String(i).padStart(2, "0")}`), { recursive: true });
      const ambiguous = run("probe", dir, "--cf", "default", "--keys", "absent", "--count", "1");
      expect(ambiguous.status).toBe(2);
      const line = ambiguous.stderr.trim();
      expect(line.split("\n")).toHaveLength(1);
      expect(line).toMatch(/column family "default" is ambiguous: .* … and 34 more; add --instance/);
      expect(line.length).toBeLessThan(400); // 40 matches listed whole were ~1,000 characters
      const none = run("sizes", dir, "--cf", "nope");
      expect(none.status).toBe(2);
      expect(none.stderr.trim().split("\n")).toHaveLength(1);
      const unknown = run("probe", dir, "--cf", "nope", "--keys", "absent", "--count", "1");
      expect(unknown.status).toBe(2);
      expect(unknown.stderr).toMatch(/no column family "nope"; have: .* … and \d+ more\n$/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("orders code classes by size, whatever order they were counted in", () => {
    expect(Object.keys(orderedClassCounts({ max: 1, tiny: 2, medium: 3, delegation: 4, small: 5 }))).toEqual([
      "delegation",
      "tiny",
      "small",
      "medium",
      "max",
    ]);
  });

  it("no command says '1 files' and the like on the samples", () => {
    const outs: [string, string][] = [];
    for (const s of ["nethermind", "modern", "besu-generated"]) {
      const d = join(SAMPLES, s);
      outs.push([`inspect ${s}`, run("inspect", d).stdout]);
      outs.push([`sizes ${s}`, run("sizes", d, "--sample", "20").stdout]);
      outs.push([`check ${s}`, run("check", d, "--json").stdout]);
    }
    for (const [what, out] of outs) {
      expect(out.length, what).toBeGreaterThan(0);
      expect(ONE_PLURAL.exec(out)?.[0], what).toBeUndefined();
      // nor hedges a count ("1 WAL file(s)"): the count picks the noun
      expect(/\w\(s\)/.exec(out)?.[0], what).toBeUndefined();
    }
    const modern = outs.find(([w]) => w === "inspect modern")![1];
    expect(modern).toMatch(/^══ modern {2}\[rocksdb/m);
    expect(modern).not.toMatch(/≤ ?[\d.]+ KiB/); // an average is not labelled as a bound
    const nm = outs.find(([w]) => w === "sizes nethermind")![1];
    expect(nm).toContain("accounts (nethermind_db/mainnet/flat/Account)");
    expect(nm).toContain("code (nethermind_db/mainnet/code)");
    expect(nm).toContain("plain EOAs in the sample");
    expect(nm).toMatch(/classes in the sample: delegation \d+, tiny \d+, small \d+, medium/);
    expect(nm).toMatch(/co-tenancy: \d+ max-size bytecodes? in/);
  });
});
