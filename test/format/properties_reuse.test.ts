/**
 * The properties decoder reuses what the table decoded before it recognised (a layout of names, text
 * values with the same bytes at the same position): every table must still get its own values, whatever
 * tables came before it. Tables written by RocksDB (the committed samples: 7.8.3 and 9.7.4, Besu- and
 * Nethermind-shaped, a LevelDB store) and by Pebble (test/fixtures/pebble), read in file order, in
 * reverse and interleaved, each compared with its raw property bytes rendered one at a time
 * (propertyValue, the renderer of one property).
 */
import { describe, expect, it } from "vitest";
import { existsSync } from "node:fs";
import { NUMERIC_FIELDS, openTable, STRING_FIELDS } from "../../src/format/index.js";
import { propertyValue } from "../../src/format/properties.js";
import { tableFilesUnder } from "../helpers/index.js";

const roots = ["../../samples", "../fixtures/pebble"].map((p) => new URL(p, import.meta.url).pathname);
const files = roots.filter((r) => existsSync(r)).flatMap((r) => tableFilesUnder(r));

/** The table's properties as its raw bytes render one by one, or undefined if it does not open. */
function expected(path: string): Record<string, string | number> | undefined {
  let t;
  try {
    t = openTable(path);
  } catch {
    return undefined;
  }
  try {
    const out: Record<string, string | number> = {};
    for (const [name, raw] of t.rawProperties) out[name] = propertyValue(name, raw);
    return out;
  } finally {
    t.close();
  }
}

describe.skipIf(files.length < 20)("properties decoded after other tables", () => {
  const want = new Map(files.map((f) => [f, expected(f)]));
  const readable = files.filter((f) => want.get(f) !== undefined);

  it("reads tables of several writers and layouts", () => {
    expect(readable.length).toBeGreaterThan(20);
    const layouts = new Set(readable.map((f) => Object.keys(want.get(f)!).join(",")));
    expect(layouts.size).toBeGreaterThan(3);
  });

  const orders: [string, string[]][] = [
    ["in file order", readable],
    ["in reverse", [...readable].reverse()],
    ["interleaved", readable.flatMap((f, i) => [f, readable[readable.length - 1 - i]!])],
  ];
  for (const [label, order] of orders) {
    it(`every table its own values, ${label}`, () => {
      for (const f of order) {
        const t = openTable(f);
        try {
          const all = t.properties;
          expect(all, f).toEqual(want.get(f));
          // same names, same order: the JSON prints them so
          expect(Object.keys(all), f).toEqual(Object.keys(want.get(f)!));
          for (const [field, name] of Object.entries(NUMERIC_FIELDS)) {
            const v = all[name];
            expect(t.props[field as keyof typeof NUMERIC_FIELDS], `${f} ${name}`).toBe(
              typeof v === "number" ? v : undefined,
            );
          }
          for (const [field, name] of Object.entries(STRING_FIELDS)) {
            const v = all[name];
            expect(t.props[field as keyof typeof STRING_FIELDS], `${f} ${name}`).toBe(
              v === undefined ? undefined : String(v),
            );
          }
        } finally {
          t.close();
        }
      }
    });
  }
});
