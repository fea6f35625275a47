/**
 * geth's DatabaseVersion key as evidence that a Pebble store is geth's: which tables are opened is
 * decided from the live tables' user-key bounds as the model holds them (lowercase hex, which orders
 * as the bytes do). No Pebble store here holds that key, so the tables are LevelDB's (classic-level):
 * gethEvidenceForPebble opens whatever table format it is given.
 */
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gethEvidenceForPebble } from "../../src/datadir/pebble_geth.js";

const require = createRequire(import.meta.url);
const hex = (s: string) => Buffer.from(s).toString("hex");
const EVIDENCE = "geth's DatabaseVersion key";

interface Db {
  open(o: object): Promise<void>;
  put(k: Buffer, v: Buffer): Promise<void>;
  compactRange(a: Buffer, b: Buffer): Promise<void>;
  close(): Promise<void>;
}

async function writeTable(dir: string, keys: string[]): Promise<string> {
  const { ClassicLevel } = require("classic-level") as { ClassicLevel: new (d: string, o: object) => Db };
  const db = new ClassicLevel(dir, { keyEncoding: "buffer", valueEncoding: "buffer" });
  await db.open({ createIfMissing: true });
  for (const k of keys) await db.put(Buffer.from(k), Buffer.from([8]));
  await db.compactRange(Buffer.alloc(0), Buffer.alloc(24, 0xff));
  await db.close();
  const tables = readdirSync(dir).filter((f) => f.endsWith(".ldb"));
  expect(tables).toHaveLength(1);
  return join(dir, tables[0]!);
}

let root: string;
let withKey: string;
let withoutKey: string;
beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "lsmscope-pebble-geth-"));
  withKey = await writeTable(join(root, "with"), ["A", "DatabaseVersion", "DatabaseVersionX", "z"]);
  withoutKey = await writeTable(join(root, "without"), ["A", "Database", "DatabaseVersionX", "z"]);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("gethEvidenceForPebble: the DatabaseVersion key", () => {
  it("is found in a table whose bounds hold it, bounds equal to the key included", () => {
    const bounds = { path: withKey, smallestKey: hex("A"), largestKey: hex("z") };
    expect(gethEvidenceForPebble(root, [bounds])).toEqual([EVIDENCE]);
    const exact = { path: withKey, smallestKey: hex("DatabaseVersion"), largestKey: hex("DatabaseVersion") };
    expect(gethEvidenceForPebble(root, [exact])).toEqual([EVIDENCE]);
  });

  it("is not looked for in a table whose bounds leave it out (a prefix of it sorts before it)", () => {
    const after = { path: withKey, smallestKey: hex("DatabaseVersionX"), largestKey: hex("z") };
    const before = { path: withKey, smallestKey: hex("A"), largestKey: hex("Database") };
    expect(gethEvidenceForPebble(root, [after, before])).toEqual([]);
  });

  it("is not found in a table without it, and a missing table is passed over", () => {
    const bounds = { path: withoutKey, smallestKey: hex("A"), largestKey: hex("z") };
    const gone = { path: join(root, "000999.sst"), smallestKey: hex("A"), largestKey: hex("z") };
    expect(gethEvidenceForPebble(root, [gone, bounds])).toEqual([]);
    expect(gethEvidenceForPebble(root, [gone, bounds, { ...bounds, path: withKey }])).toEqual([EVIDENCE]);
  });
});
