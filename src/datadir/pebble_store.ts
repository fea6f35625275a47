/**
 * The files that make a directory a Pebble store, other than its tables, MANIFEST and WALs
 * (Pebble's internal/base/filenames.go, vfs/atomicfs/marker.go, options.go):
 *
 *   marker.<name>.<iteration>.<value>   an empty file whose name is the value of a marker; the one
 *                                        with the highest iteration wins. "manifest" names the current
 *                                        MANIFEST (Pebble reads it instead of CURRENT, which it keeps
 *                                        for older readers); "format-version" holds the store's format
 *                                        major version (decimal).
 *   OPTIONS-<n>                          Pebble's own INI text: [Version] pebble_version=…,
 *                                        [Options] key=value, [Level "N"] per-level table options,
 *                                        other sections ([Value Separation], [WAL Failover], …).
 */
import { readRegularFileUpTo } from "../util/regular_file.js";
import { join } from "node:path";
import { LIMITS } from "../util/limits.js";
import { newestNumbered } from "./newest_numbered.js";

export interface PebbleMarker {
  /** The marker file's name. */
  file: string;
  iteration: number;
  value: string;
}

/** The winning marker of each name among a directory's file names (highest iteration). */
export function readMarkers(names: string[]): Map<string, PebbleMarker> {
  const out = new Map<string, PebbleMarker>();
  for (const n of names) {
    const m = /^marker\.([^.]+)\.(\d+)\.(.*)$/.exec(n);
    if (!m) continue;
    const iteration = Number(m[2]);
    const prev = out.get(m[1]!);
    if (!prev || iteration > prev.iteration) out.set(m[1]!, { file: n, iteration, value: m[3]! });
  }
  return out;
}

/** The MANIFEST a Pebble store's manifest marker names, if it has one. */
export function markedManifest(markers: Map<string, PebbleMarker>): string | undefined {
  const v = markers.get("manifest")?.value;
  return v !== undefined && /^MANIFEST-\d+$/.test(v) ? v : undefined;
}

/** Format major version from the format-version marker (undefined when absent or not a number). */
export function formatMajorVersion(markers: Map<string, PebbleMarker>): number | undefined {
  const v = markers.get("format-version")?.value;
  return v !== undefined && /^\d{1,6}$/.test(v) ? Number(v) : undefined;
}

/**
 * Pebble's FormatMajorVersion names by number (format_major_version.go, iota order). 13 is
 * FormatFlushableIngest, which `geth db pebble-upgrade` moves old geth stores to.
 */
const FORMAT_MAJOR_NAMES = [
  "FormatDefault",
  "FormatMostCompatible",
  "formatVersionedManifestMarker",
  "FormatVersioned",
  "FormatSetWithDelete",
  "FormatBlockPropertyCollector",
  "FormatSplitUserKeysMarked",
  "FormatSplitUserKeysMarkedCompacted",
  "FormatRangeKeys",
  "FormatMinTableFormatPebblev1",
  "FormatPrePebblev1Marked",
  "formatUnusedPrePebblev1MarkedCompacted",
  "FormatSSTableValueBlocks",
  "FormatFlushableIngest",
  "FormatPrePebblev1MarkedCompacted",
  "FormatDeleteSizedAndObsolete",
  "FormatVirtualSSTables",
  "FormatSyntheticPrefixSuffix",
  "FormatFlushableIngestExcises",
  "FormatColumnarBlocks",
  "FormatWALSyncChunks",
  "FormatTableFormatV6",
  "FormatValueSeparation",
  "FormatExciseBoundsRecord",
  "FormatV2BlobFiles",
  "FormatBackingValueSize",
  "FormatMarkForCompactionInVersionEdit",
  "FormatIngestBlobFiles",
  "FormatRowblkMarkedForCompaction",
];

export function formatMajorVersionName(v: number): string | undefined {
  return v > 0 ? FORMAT_MAJOR_NAMES[v] : undefined;
}

export interface PebbleOptions {
  path: string;
  file: string;
  pebbleVersion?: string;
  /** [Options] */
  options: Record<string, string>;
  /** [Level "N"] by level. */
  levels: Record<number, Record<string, string>>;
  /** Every other section by its header text. */
  sections: Record<string, Record<string, string>>;
}

/** RocksDB's names that Pebble renames in a [CFOptions "default"] section. */
const CF_DEFAULT_KEYS: Record<string, string> = { comparator: "comparer", merge_operator: "merger" };

/** Parse Pebble's OPTIONS text. Throws on a file over the text-size cap. */
export function parsePebbleOptions(path: string, file: string): PebbleOptions {
  const text = readRegularFileUpTo(path, LIMITS.maxTextFileBytes, "latin1");
  const out: PebbleOptions = { path, file, options: {}, levels: {}, sections: {} };
  let section: Record<string, string> | undefined;
  let cfDefault = false;
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#") || line.startsWith(";")) continue;
    const h = /^\[(.*)\]$/.exec(line);
    if (h) {
      const name = h[1]!;
      // Pebble reads RocksDB's [CFOptions "default"] as its [Options] (options.go parseOptions)
      cfDefault = name === 'CFOptions "default"';
      const lv = /^Level\s*"?(\d+)"?\s*$/.exec(name);
      if (name === "Options" || cfDefault) section = out.options;
      else if (lv) section = out.levels[Number(lv[1])] ??= {};
      else section = out.sections[name] ??= {};
      continue;
    }
    const eq = line.indexOf("=");
    if (eq < 0 || !section) continue;
    let key = line.slice(0, eq).trim();
    if (cfDefault) key = CF_DEFAULT_KEYS[key] ?? key;
    section[key] = line.slice(eq + 1).trim();
  }
  out.pebbleVersion = out.sections["Version"]?.["pebble_version"];
  return out;
}

/** The newest OPTIONS-<n> file among a directory's names. */
export function newestOptionsFile(dir: string, names: string[]): { path: string; file: string } | undefined {
  const file = newestNumbered(names, "OPTIONS");
  return file ? { path: join(dir, file), file } : undefined;
}
