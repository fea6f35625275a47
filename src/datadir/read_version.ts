/**
 * A store's configuration and version: its newest OPTIONS file, and CURRENT (or Pebble's manifest
 * marker) → the MANIFEST, replayed; a version that does not decode stops the store's reading.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { readCurrent, replayManifest, type ManifestReplay } from "./manifest.js";
import { newestNumbered } from "./newest_numbered.js";
import { findOptionsFiles, parseOptionsFile } from "./options_file.js";
import { inspectWals } from "./inspect_wals.js";
import type { Finding, InspectOptions } from "./model.js";
import { markedManifest, readMarkers } from "./pebble_store.js";
import type { StoreRead } from "./store_read.js";

/** The newest OPTIONS file. */
export function readOptions({ dir, names, inst, F }: StoreRead): void {
  const opt = findOptionsFiles(dir, names);
  if (!opt.newest) return;
  try {
    const parsed = parseOptionsFile(join(dir, opt.newest), opt.newest, opt.others);
    inst.options = parsed.model;
    F.push(...parsed.findings);
  } catch (e) {
    F.push({
      severity: "error",
      code: "options-unreadable",
      file: join(dir, opt.newest),
      message: `cannot read OPTIONS: ${(e as Error).message}`,
    });
  }
}

/**
 * CURRENT → MANIFEST, replayed (or the newest MANIFEST present, flagged, when CURRENT does not lead to
 * one); decides the engine.
 */
export function readVersion(
  { dir, names, nameSet, inst, F }: StoreRead,
  pebble: boolean,
): ManifestReplay | undefined {
  const rocksSignals = nameSet.has("IDENTITY") || names.some((n) => /^OPTIONS-\d+$/.test(n));
  let replay: ManifestReplay | undefined;
  // Pebble reads the MANIFEST its manifest marker names (CURRENT is kept for older readers)
  const marker = inst.pebble?.manifestMarker;
  const marked = marker ? markedManifest(readMarkers([marker])) : undefined;
  const cur = marked ? { manifestName: marked, manifestNumber: Number(marked.slice(9)) } : readCurrent(dir);
  const namedBy = marker ? `the manifest marker ${marker}` : "CURRENT";
  if ("manifestName" in cur) {
    inst.current = cur.manifestName;
    const mpath = join(dir, cur.manifestName);
    if (existsSync(mpath)) {
      replay = safeReplay(mpath, cur.manifestName, F, pebble);
    } else {
      F.push({
        severity: "error",
        code: "current-dangling",
        file: join(dir, marker ?? "CURRENT"),
        offset: 0,
        message: `${namedBy} names ${cur.manifestName}, which does not exist`,
      });
    }
  } else {
    F.push(cur);
  }
  if (!replay) {
    // best effort: the newest MANIFEST present, clearly flagged
    const m = newestNumbered(names, "MANIFEST");
    if (m !== undefined) {
      F.push({
        severity: "warn",
        code: "manifest-fallback",
        file: join(dir, m),
        message: `reading ${m} (the newest MANIFEST present) instead of what ${namedBy} names`,
      });
      replay = safeReplay(join(dir, m), m, F, pebble);
    }
  }
  if (!pebble) inst.engine = rocksSignals || (replay && !replay.levelDbStyle) ? "rocksdb" : "leveldb";
  if (replay) {
    inst.manifest = replay.summary;
    F.push(...replay.findings);
  }
  return replay;
}

/**
 * RocksDB refuses to open a MANIFEST that does not decode, and so do we: the levels, the live files, the
 * WALs' liveness, sizes and plans all depend on the version it records. The WALs are still counted, with
 * their liveness unknown.
 */
export function versionUnreadable(
  { dir, names, inst, F }: StoreRead,
  replay: ManifestReplay,
  opts: InspectOptions,
) {
  F.push({
    severity: "error",
    code: "manifest-incomplete",
    file: replay.summary.path,
    message: `${replay.summary.file} does not decode to a whole version (see the finding before); levels, live files and WAL liveness are unknown`,
  });
  if (opts.readWal !== false) inspectWals(inst, dir, names, false);
  inst.totals.walBytes = inst.wal.reduce((sum, w) => sum + w.size, 0);
}

function safeReplay(path: string, name: string, F: Finding[], pebble = false): ManifestReplay | undefined {
  try {
    return replayManifest(path, name, { pebble });
  } catch (e) {
    F.push({ severity: "error", code: "manifest-unreadable", file: path, message: (e as Error).message });
    return undefined;
  }
}
