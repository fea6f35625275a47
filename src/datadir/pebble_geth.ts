/**
 * Whether a Pebble store is geth's. Pebble is a general engine (CockroachDB and others write it too), so a
 * Pebble directory is geth's only with geth evidence (reference clients.md):
 *   - layout: the store is a `chaindata` directory with geth's freezer `ancient/` inside it (geth's
 *     default, `<chaindata>/ancient`) or beside it;
 *   - metadata: the store holds geth's `DatabaseVersion` key (core/rawdb/schema.go databaseVersionKey),
 *     found by a point lookup in the tables whose key range covers it.
 * geth's key prefixes alone are not evidence here: single letters such as "b" or "h" start many keys.
 */
import { existsSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { openTable } from "../format/table.js";
import { toHex } from "../util/bytes.js";

/** A live table: where it is and its user-key bounds as hex (the model's smallestKey, largestKey). */
export interface TableBounds {
  path: string;
  smallestKey: string;
  largestKey: string;
}

/** geth's metadata key naming the database schema version. */
const GETH_DATABASE_VERSION_KEY = Buffer.from("DatabaseVersion");

const isDir = (p: string) => {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
};

/** The evidence found, one phrase each; empty when the store shows none. */
export function gethEvidenceForPebble(dir: string, tables: TableBounds[]): string[] {
  const out: string[] = [];
  if (basename(dir) === "chaindata") {
    if (isDir(join(dir, "ancient"))) out.push("chaindata with the freezer ancient/ inside");
    else if (isDir(join(dirname(dir), "ancient"))) out.push("chaindata beside the freezer ancient/");
  }
  if (hasKey(tables, GETH_DATABASE_VERSION_KEY)) out.push("geth's DatabaseVersion key");
  return out;
}

function hasKey(tables: TableBounds[], key: Buffer): boolean {
  // hex strings order as their bytes do (two lowercase digits a byte)
  const keyHex = toHex(key);
  for (const { path, smallestKey, largestKey } of tables) {
    if (keyHex < smallestKey || keyHex > largestKey) continue;
    if (!existsSync(path)) continue;
    try {
      const t = openTable(path);
      try {
        if (t.get(key).found) return true;
      } finally {
        t.close();
      }
    } catch {
      // an unreadable table (a columnar format, damage) is reported where tables are read
    }
  }
  return false;
}
