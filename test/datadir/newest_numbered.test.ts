/**
 * newestNumbered / numberedNewestFirst (src/datadir/newest_numbered.ts): the newest OPTIONS-<n> (recognise,
 * read_version via findOptionsFiles) and the newest MANIFEST-<n> (read_version's fallback).
 */
import { describe, expect, it } from "vitest";
import { newestNumbered, numberedNewestFirst } from "../../src/datadir/newest_numbered.js";
import { findOptionsFiles } from "../../src/datadir/options_file.js";
import { newestOptionsFile } from "../../src/datadir/pebble_store.js";

/** The pipeline each of the three places had before (regex, sort by number descending). */
function before(names: string[], stem: string): string[] {
  return names
    .map((n) => new RegExp(`^${stem}-(\\d+)$`).exec(n))
    .filter((m): m is RegExpExecArray => m !== null)
    .sort((a, b) => Number(b[1]) - Number(a[1]))
    .map((m) => m[0]);
}

const NAMES = [
  "CURRENT",
  "OPTIONS-000005",
  "OPTIONS-000007.dbtmp",
  "OPTIONS-000012",
  "OPTIONS-12",
  "OPTIONS-9",
  "OPTIONS-",
  "OPTIONS-0x10",
  "xOPTIONS-000099",
  "OPTIONS-000099 ",
  "MANIFEST-000010",
  "MANIFEST-000009",
  "MANIFEST-10",
  "MANIFEST-000011.tmp",
  "marker.manifest.000001.MANIFEST-000010",
  "000012.sst",
];

describe("newestNumbered", () => {
  it("only whole <stem>-<digits> names, highest number first, ties in the order given", () => {
    expect(numberedNewestFirst(NAMES, "OPTIONS")).toEqual([
      "OPTIONS-000012",
      "OPTIONS-12",
      "OPTIONS-9",
      "OPTIONS-000005",
    ]);
    expect(numberedNewestFirst(NAMES, "MANIFEST")).toEqual([
      "MANIFEST-000010",
      "MANIFEST-10",
      "MANIFEST-000009",
    ]);
    expect(newestNumbered(NAMES, "MANIFEST")).toBe("MANIFEST-000010");
    expect(newestNumbered(["MANIFEST-10", "MANIFEST-000010"], "MANIFEST")).toBe("MANIFEST-10");
    expect(newestNumbered(["OPTIONS-000007.dbtmp", "CURRENT"], "OPTIONS")).toBeUndefined();
    expect(newestNumbered([], "OPTIONS")).toBeUndefined();
  });

  it("agrees with the regex pipeline it replaces, on every order of the names", () => {
    const lists = [
      NAMES,
      [...NAMES].reverse(),
      [...NAMES].sort(),
      ["OPTIONS-0", "OPTIONS-00", "OPTIONS-000"],
    ];
    for (const names of lists)
      for (const stem of ["OPTIONS", "MANIFEST"])
        expect(numberedNewestFirst(names, stem)).toEqual(before(names, stem));
  });

  it("findOptionsFiles and newestOptionsFile pick the same file", () => {
    expect(findOptionsFiles("/nowhere", NAMES)).toEqual({
      newest: "OPTIONS-000012",
      others: ["OPTIONS-12", "OPTIONS-9", "OPTIONS-000005"],
    });
    expect(newestOptionsFile("/db", NAMES)).toEqual({ path: "/db/OPTIONS-000012", file: "OPTIONS-000012" });
    expect(findOptionsFiles("/nowhere", ["LOCK"])).toEqual({ newest: undefined, others: [] });
    expect(newestOptionsFile("/db", ["LOCK"])).toBeUndefined();
  });
});
