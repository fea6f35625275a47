/**
 * Find every store below a directory: a directory holding CURRENT (RocksDB, LevelDB, older Pebble) or
 * Pebble's `marker.manifest.*`. Bounded depth; symlinked directories are followed at most once each
 * (by real path), so a link loop cannot trap the walk. Store directories are not descended into.
 */
import { readdirSync, realpathSync, statSync, type Dirent } from "node:fs";
import { join } from "node:path";
import { describeOsError } from "../util/errors.js";
import type { Finding } from "./model.js";

export interface DiscoveredStore {
  path: string;
  names: string[];
}

export function discoverStores(root: string, maxDepth: number, findings: Finding[]): DiscoveredStore[] {
  const out: DiscoveredStore[] = [];
  const seen = new Set<string>();
  const walk = (dir: string, depth: number) => {
    let real: string;
    try {
      real = realpathSync(dir);
    } catch {
      return;
    }
    if (seen.has(real)) return;
    seen.add(real);
    const list = <T>(read: () => T): T | undefined => {
      try {
        return read();
      } catch (e) {
        findings.push({
          severity: "warn",
          code: "dir-unreadable",
          file: dir,
          message: `cannot list directory: ${describeOsError(e)}`,
        });
        return undefined;
      }
    };
    // names alone first: a store's directory may list ~100,000 tables, and a Dirent each is ~100 bytes
    // of garbage the model would be built beside; only a directory walked further needs the types
    const names = list(() => readdirSync(dir));
    if (!names) return;
    if (names.includes("CURRENT") || names.some((n) => n.startsWith("marker.manifest."))) {
      out.push({ path: dir, names });
      return;
    }
    const entries = list(() => readdirSync(dir, { withFileTypes: true }));
    if (!entries) return;
    if (depth >= maxDepth) {
      // a store further down is missed: say so, so "no store found" can say why
      const sub = entries.filter((e) => e.isDirectory() && !e.name.startsWith(".")).length;
      if (sub > 0)
        findings.push({
          severity: "info",
          code: "walk-depth-limit",
          file: dir,
          message: `not searched below (${sub} subdirector${sub === 1 ? "y" : "ies"}): the directory walk stops ${maxDepth} levels below the datadir; name the store directory itself to read a deeper store`,
        });
      return;
    }
    // real directories before symlinks, so a store reached both ways is named by its real path
    const order = (e: Dirent) => (e.isSymbolicLink() ? 1 : 0);
    const sorted = entries.sort(
      (a, b) => order(a) - order(b) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
    );
    for (const e of sorted) {
      const p = join(dir, e.name);
      let isDir = e.isDirectory();
      if (e.isSymbolicLink()) {
        try {
          isDir = statSync(p).isDirectory();
        } catch {
          isDir = false;
        }
      }
      // geth's freezer (ancient/) holds flat files, never a store
      if (isDir && e.name !== "ancient" && e.name !== "node_modules" && !e.name.startsWith("."))
        walk(p, depth + 1);
    }
  };
  walk(root, 0);
  return out;
}

/**
 * Why no store was found below `root`, from the walk's findings: directories it could not list
 * (permissions) and directories below its depth limit. Empty when the walk saw everything.
 */
export function whyNoStore(findings: Finding[]): string {
  const unreadable = findings.filter((f) => f.code === "dir-unreadable");
  const deep = findings.filter((f) => f.code === "walk-depth-limit");
  const why: string[] = [];
  if (unreadable.length)
    why.push(
      `${unreadable.length === 1 ? `${unreadable[0]!.file}` : `${unreadable.length} directories (first ${unreadable[0]!.file})`}: ${unreadable[0]!.message}`,
    );
  if (deep.length)
    why.push(
      `the walk stopped at its depth limit in ${deep.length === 1 ? deep[0]!.file : `${deep.length} directories (first ${deep[0]!.file})`}; name the store directory itself`,
    );
  return why.join("; ");
}
