/**
 * geth's freezer ("ancients"): append-only flat files beside the key/value store (`chaindata/ancient/`,
 * `ancient/chain`, `ancient/state`). Layout, from go-ethereum core/rawdb/freezer_table.go and
 * freezer_meta.go:
 *
 *   <name>.cidx | <name>.ridx   index: 6-byte entries (u16 BE data file number, u32 BE end offset of an
 *                               item in that file); `.cidx` when items are snappy-compressed, `.ridx` raw.
 *                               Entry 0 is {tail file number, items deleted from the tail}; entry i ≥ 1
 *                               ends item (deleted + i − 1). Items = deleted + entries − 1.
 *   <name>.NNNN.cdat | .rdat    data files (NNNN = file number, 4 digits)
 *   <name>.meta                 RLP [version, virtualTail (, flushOffset in version 2)]: items hidden
 *                               (deleted or marked deleted) from the tail
 *
 * Only sizes and the index's two ends are read: the figures cost two small reads per table.
 */
import { closeSync, readSync, opendirSync, realpathSync, statSync } from "node:fs";
import { openRegularFile, readRegularFileUpTo } from "../util/regular_file.js";
import { basename, join, relative } from "node:path";
import { bytesToBigint, rlpDecode } from "../eth/rlp.js";

export interface FreezerTableModel {
  name: string;
  /** Items ever appended (index entries − 1 + items deleted from the tail). */
  items: number;
  /** Items hidden from the tail (meta virtualTail; at least the deleted ones). */
  tail: number;
  /** Items still readable: items − tail. */
  liveItems: number;
  /** Sum of the data files' sizes. */
  bytes: number;
  indexBytes: number;
  /** Size of the meta file (0 when there is none). */
  metaBytes: number;
  dataFiles: number;
  /** Items snappy-compressed (`.cidx`) or raw (`.ridx`). */
  compressed: boolean;
  /** meta file version, when the meta file could be read. */
  metaVersion?: number;
  /** Why a figure could not be read. */
  error?: string;
}

export interface FreezerModel {
  /** Absolute path of the freezer directory. */
  path: string;
  /** Path relative to the scanned root. */
  relPath: string;
  /** "chain" (headers, hashes, bodies, receipts), "state" (state history), or "unknown". */
  kind: "chain" | "state" | "unknown";
  tables: FreezerTableModel[];
  /** Data + index + meta bytes of every table. */
  bytes: number;
}

const ENTRY = 6;

function readAt(fd: number, pos: number, len: number): Buffer {
  const b = Buffer.alloc(len);
  const n = readSync(fd, b, 0, len, pos);
  return b.subarray(0, n);
}

function readTable(dir: string, name: string, names: Set<string>): FreezerTableModel {
  const compressed = names.has(`${name}.cidx`);
  const idx = join(dir, `${name}.${compressed ? "cidx" : "ridx"}`);
  const dataRe = new RegExp(
    `^${name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\.(\\d{4})\\.${compressed ? "cdat" : "rdat"}$`,
  );
  const t: FreezerTableModel = {
    name,
    items: 0,
    tail: 0,
    liveItems: 0,
    bytes: 0,
    indexBytes: 0,
    metaBytes: 0,
    dataFiles: 0,
    compressed,
  };
  for (const n of names)
    if (dataRe.test(n)) {
      t.dataFiles++;
      t.bytes += statSync(join(dir, n)).size;
    }
  const size = statSync(idx).size;
  t.indexBytes = size;
  const entries = Math.floor(size / ENTRY);
  if (entries === 0) {
    t.error = "empty index";
    return t;
  }
  const { fd } = openRegularFile(idx);
  try {
    const first = readAt(fd, 0, ENTRY);
    const deleted = first.readUInt32BE(2);
    t.items = deleted + entries - 1;
    t.tail = deleted;
    // the last entry ends the head data file: geth truncates both to agree when it opens the table
    if (entries > 1) {
      const last = readAt(fd, (entries - 1) * ENTRY, ENTRY);
      const file = last.readUInt16BE(0);
      const end = last.readUInt32BE(2);
      const head = join(dir, `${name}.${String(file).padStart(4, "0")}.${compressed ? "cdat" : "rdat"}`);
      const have = names.has(basename(head)) ? statSync(head).size : undefined;
      if (have === undefined) t.error = `head data file ${basename(head)} is missing`;
      else if (have !== end)
        t.error = `index ends at byte ${end} of ${basename(head)}, which holds ${have} bytes (geth would truncate the longer one)`;
    }
    if (size % ENTRY !== 0) t.error ??= `index has ${size % ENTRY} trailing bytes (a torn entry)`;
  } finally {
    closeSync(fd);
  }
  const metaPath = join(dir, `${name}.meta`);
  if (names.has(`${name}.meta`)) {
    t.metaBytes = statSync(metaPath).size;
    try {
      // one short RLP list: a larger file is not a meta file (and is not read whole)
      const meta = rlpDecode(readRegularFileUpTo(metaPath, 64));
      if (Array.isArray(meta) && meta[0] instanceof Uint8Array && meta[1] instanceof Uint8Array) {
        t.metaVersion = Number(bytesToBigint(meta[0], false));
        t.tail = Math.max(t.tail, Number(bytesToBigint(meta[1], false)));
      } else t.error = "meta file is not [version, tail, …]";
    } catch (e) {
      t.error = `meta file: ${(e as Error).message}`;
    }
  }
  t.liveItems = Math.max(0, t.items - t.tail);
  return t;
}

function kindOf(dir: string, tables: string[]): FreezerModel["kind"] {
  if (tables.includes("headers") || tables.includes("hashes")) return "chain";
  if (tables.some((t) => t.startsWith("account.") || t.startsWith("storage.")) || /state$/.test(dir))
    return "state";
  return "unknown";
}

/** The files of a freezer table readTable() looks at: its index, data files and meta file. */
const FREEZER_FILE = /\.(cidx|ridx|meta|\d{4}\.(cdat|rdat))$/;

/** Every freezer below `root` (directories holding `.cidx`/`.ridx` index files), bounded depth. */
export function findFreezers(root: string, maxDepth = 6): FreezerModel[] {
  const out: FreezerModel[] = [];
  const seen = new Set<string>();
  const walk = (dir: string, depth: number) => {
    // the entries one at a time, keeping the freezer files' names and the subdirectories: the walk
    // starts at the datadir, which may be a store's directory of ~100,000 tables, and a Dirent each
    // held at once was ~10 MiB of garbage at the end of `inspect`, where its peak is
    const names = new Set<string>();
    const subdirs: string[] = [];
    try {
      const real = realpathSync(dir);
      if (seen.has(real)) return;
      seen.add(real);
      const d = opendirSync(dir, { bufferSize: 1024 });
      try {
        for (let e = d.readSync(); e !== null; e = d.readSync()) {
          if (FREEZER_FILE.test(e.name)) names.add(e.name);
          if (e.isDirectory() || e.isSymbolicLink()) subdirs.push(e.name);
        }
      } finally {
        d.closeSync();
      }
    } catch {
      return; // unreadable directories are reported by the store discovery, not twice
    }
    const tables = [...names]
      .filter((n) => /\.(cidx|ridx)$/.test(n))
      .map((n) => n.slice(0, -5))
      .sort();
    if (tables.length > 0) {
      const ts = tables.map((n) => readTable(dir, n, names));
      const bytes = ts.reduce((a, t) => a + t.bytes + t.indexBytes + t.metaBytes, 0);
      out.push({
        path: dir,
        relPath: relative(root, dir) || ".",
        kind: kindOf(dir, tables),
        tables: ts,
        bytes,
      });
    }
    if (depth >= maxDepth) return;
    for (const sub of subdirs) walk(join(dir, sub), depth + 1);
  };
  walk(root, 0);
  return out.sort((a, b) => (a.relPath < b.relPath ? -1 : 1));
}
