/**
 * Find every store below a directory: a directory holding CURRENT (RocksDB, LevelDB, older Pebble) or
 * Pebble's `marker.manifest.*`. Bounded depth; symlinked directories are followed at most once each
 * (by real path), so a link loop cannot trap the walk. Store directories are not descended into.
 */
import { readdirSync, realpathSync, statSync, type Dirent } from "node:fs";
import { join } from "node:path";
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
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch (e) {
      findings.push({
        severity: "warn",
        code: "dir-unreadable",
        file: dir,
        message: `cannot list directory: ${(e as Error).message}`,
      });
      return;
    }
    const names = entries.map((e) => e.name);
    if (names.includes("CURRENT") || names.some((n) => n.startsWith("marker.manifest."))) {
      out.push({ path: dir, names });
      return;
    }
    if (depth >= maxDepth) return;
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
