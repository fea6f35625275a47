/**
 * The summary view: one row per column family (and one per instance for its WAL files), with a Total row —
 * the table Besu's `storage rocksdb usage` and `reth db stats` print. Pure over the datadir model; every
 * figure is one the model already holds, under the model's own name:
 *
 * - `entries`: sum of the tables' `rocksdb.num.entries` (every version and tombstone in the files, not
 *   distinct keys); absent when no table's properties were read (LevelDB tables carry none).
 * - `sstBytes`, `files`: the column family's table files as the MANIFEST records them (cf.totals).
 * - `blobFileBytes`: its blob files' sizes on disk (cf.totals.blobFileBytes); blob files count in `files`.
 * - `walBytes`: WAL file sizes (instance totals.walBytes). WAL files belong to the instance, not to one
 *   column family, so they form their own row (`cf` = "(WAL)").
 * - `totalBytes` = sstBytes + blobFileBytes + walBytes + freezerBytes.
 * - `bytesAboveBottom`: table bytes in levels above the deepest non-empty level (analysis/layout.ts).
 * - `freezerBytes`: a geth freezer table's data, index and meta file sizes (src/freezer/); one row per
 *   table (`instance` = the freezer's path, `cf` = the table), `freezerItems` = its items still
 *   readable (not entries: the Total sums them apart).
 */
import type { DatadirModel } from "../datadir/model.js";
import { cfLayout } from "../analysis/layout.js";
import { resolve } from "node:path";
import { instanceLabel } from "../datadir/names.js";

export interface SummaryRow {
  /**
   * Instance path relative to the datadir ("." for the datadir itself), as the CSV prints it; "Total" for
   * the total row. The text names it by summaryInstanceLabel (datadir/names.ts).
   */
  instance: string;
  /** Column family display name, "(WAL)" for an instance's WAL files, "" for the total row. */
  cf: string;
  kind: "cf" | "wal" | "freezer" | "total";
  /** Table entries (cf rows; the total: their sum, unknown when a cf row's is). */
  entries?: number;
  /** A geth freezer table's items still readable (freezer rows; the total: their sum). */
  freezerItems?: number;
  sstBytes: number;
  blobFileBytes: number;
  walBytes: number;
  freezerBytes: number;
  totalBytes: number;
  files: number;
  bytesAboveBottom: number;
}

export interface Summary {
  root: string;
  identity?: DatadirModel["identity"];
  rows: SummaryRow[];
  total: SummaryRow;
}

/** A row's instance as shown to a user: as every command names it (datadir/names.ts instanceLabel). */
export function summaryInstanceLabel(s: Pick<Summary, "root">, r: Pick<SummaryRow, "instance">): string {
  return instanceLabel({ relPath: r.instance, path: resolve(s.root, r.instance) });
}

export function buildSummary(model: DatadirModel): Summary {
  const rows: SummaryRow[] = [];
  for (const inst of model.instances) {
    for (const cf of inst.columnFamilies) {
      const layout = cfLayout(inst, cf);
      rows.push({
        instance: inst.relPath,
        cf: cf.displayName,
        kind: "cf",
        entries: cf.totals.entries ?? undefined,
        sstBytes: cf.totals.bytes,
        blobFileBytes: cf.totals.blobFileBytes,
        walBytes: 0,
        freezerBytes: 0,
        totalBytes: cf.totals.bytes + cf.totals.blobFileBytes,
        files: cf.totals.files + cf.totals.blobFiles,
        bytesAboveBottom: layout.placement?.bytesAboveBottom ?? 0,
      });
    }
    if (inst.wal.length > 0)
      rows.push({
        instance: inst.relPath,
        cf: "(WAL)",
        kind: "wal",
        sstBytes: 0,
        blobFileBytes: 0,
        walBytes: inst.totals.walBytes,
        freezerBytes: 0,
        totalBytes: inst.totals.walBytes,
        files: inst.wal.length,
        bytesAboveBottom: 0,
      });
  }
  for (const f of model.freezers ?? [])
    for (const t of f.tables) {
      const bytes = t.bytes + t.indexBytes + t.metaBytes;
      rows.push({
        instance: f.relPath,
        cf: t.name,
        kind: "freezer",
        freezerItems: t.liveItems,
        sstBytes: 0,
        blobFileBytes: 0,
        walBytes: 0,
        freezerBytes: bytes,
        totalBytes: bytes,
        files: t.dataFiles + 1 + (t.metaBytes > 0 ? 1 : 0),
        bytesAboveBottom: 0,
      });
    }
  const cfRows = rows.filter((r) => r.kind === "cf" && r.files > 0);
  const freezerRows = rows.filter((r) => r.kind === "freezer");
  const total: SummaryRow = {
    instance: "Total",
    cf: "",
    kind: "total",
    // table entries and freezer items are different things: summed apart; a column family whose count
    // is unknown leaves the total unknown (never a partial sum)
    entries: cfRows.every((r) => r.entries !== undefined)
      ? cfRows.reduce((a, r) => a + r.entries!, 0)
      : undefined,
    freezerItems: freezerRows.length ? freezerRows.reduce((a, r) => a + r.freezerItems!, 0) : undefined,
    sstBytes: 0,
    blobFileBytes: 0,
    walBytes: 0,
    freezerBytes: 0,
    totalBytes: 0,
    files: 0,
    bytesAboveBottom: 0,
  };
  for (const r of rows) {
    total.sstBytes += r.sstBytes;
    total.blobFileBytes += r.blobFileBytes;
    total.walBytes += r.walBytes;
    total.freezerBytes += r.freezerBytes;
    total.totalBytes += r.totalBytes;
    total.files += r.files;
    total.bytesAboveBottom += r.bytesAboveBottom;
  }
  return { root: model.root, identity: model.identity, rows, total };
}
