/**
 * Tables that vanished while lsmscope read a store. Beside a live node, a compaction installs a new
 * version and deletes its input tables: a table the MANIFEST we replayed lists may be gone by the time
 * it is opened. Such a table is not damage — the newest MANIFEST no longer lists it — so its finding
 * becomes a warning that says so (its entries live on in the tables that replaced it, which the version
 * we read does not include), instead of an error. A table that is gone and still listed stays an error.
 */
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import type { DatadirModel, Finding, InstanceModel } from "./model.js";
import { readCurrent, replayManifest } from "./manifest.js";
import { markedManifest, readMarkers } from "./pebble_store.js";

const TABLE_NUMBER = /(\d+)\.(sst|ldb)$/;

/** File numbers of every table the store's current MANIFEST lists now, or undefined if unreadable. */
function liveTableNumbers(dir: string, pebble: boolean): Set<number> | undefined {
  try {
    const name = pebble
      ? markedManifest(readMarkers(readdirSync(dir)))
      : (() => {
          const c = readCurrent(dir);
          return "manifestName" in c ? c.manifestName : undefined;
        })();
    if (!name) return undefined;
    const replay = replayManifest(join(dir, name), name, { pebble });
    if (!replay.complete) return undefined;
    const out = new Set<number>();
    for (const cf of replay.columnFamilies) for (const n of cf.files.keys()) out.add(n);
    return out;
  } catch {
    return undefined;
  }
}

/** Turn the missing/unreadable-table findings of tables a newer version dropped into `sst-vanished`. */
export function settleVanishedTables(inst: InstanceModel, dir: string): void {
  const gone = inst.findings.filter(
    (f) =>
      (f.code === "sst-missing" || f.code === "sst-unreadable") &&
      TABLE_NUMBER.test(f.file) &&
      !existsSync(f.file),
  );
  if (gone.length === 0) return;
  const live = liveTableNumbers(dir, inst.engine === "pebble");
  if (!live) return;
  for (const f of gone) {
    const n = Number(TABLE_NUMBER.exec(f.file)![1]);
    if (live.has(n)) continue;
    const vanished: Finding = {
      severity: "warn",
      code: "sst-vanished",
      file: f.file,
      message: `table ${n} was deleted while lsmscope read the store (the current MANIFEST no longer lists it: a live node's compaction replaced it); its entries are left out of this picture`,
    };
    Object.assign(f, vanished);
    delete f.offset;
  }
}

/**
 * Tables (and WALs) a scan found deleted (lsm/gone.ts), split by the current MANIFEST of their store:
 * `replaced` (no longer listed: a compaction replaced them; a deleted WAL was flushed into tables) and
 * `missing` (still listed, or the store's version cannot be re-read: damage until shown otherwise).
 */
export function classifyGoneTables(
  model: DatadirModel,
  paths: readonly string[],
): { replaced: string[]; missing: string[] } {
  const out = { replaced: [] as string[], missing: [] as string[] };
  const liveByDir = new Map<string, Set<number> | undefined>();
  for (const p of paths) {
    // RocksDB deletes a WAL only once what it holds is in tables (or recycles it)
    if (/\d+\.log$/.test(p) && !existsSync(p)) {
      out.replaced.push(p);
      continue;
    }
    const inst = model.instances.find((i) => p.startsWith(i.path + "/"));
    const m = TABLE_NUMBER.exec(p);
    if (!inst || !m || existsSync(p)) {
      out.missing.push(p);
      continue;
    }
    if (!liveByDir.has(inst.path))
      liveByDir.set(inst.path, liveTableNumbers(inst.path, inst.engine === "pebble"));
    const live = liveByDir.get(inst.path);
    (live && !live.has(Number(m[1])) ? out.replaced : out.missing).push(p);
  }
  return out;
}
