/**
 * Lines of a Pebble column family's section that RocksDB stores never have: its blob files (value
 * separation) and its virtual tables. Per-file detail is in `--json` (pebbleBlobFiles, and per table
 * blobReferences / virtualBacking).
 */
import type { ColumnFamilyModel } from "../datadir/model.js";
import { escapeText, formatBytes } from "../util/bytes.js";
import { plural } from "../util/words.js";

function tally(values: (string | undefined)[]): string {
  const n = new Map<string, number>();
  for (const v of values) n.set(v ?? "unread", (n.get(v ?? "unread") ?? 0) + 1);
  return [...n].map(([k, c]) => `${escapeText(k)} ×${c}`).join(", ");
}

export function pebbleCfLines(cf: ColumnFamilyModel): string[] {
  const out: string[] = [];
  const blobs = cf.pebbleBlobFiles ?? [];
  const tables = cf.levels.flatMap((l) => l.files);
  if (blobs.length > 0) {
    const disk = blobs.reduce((s, b) => s + (b.diskSize ?? 0), 0);
    const values = blobs.reduce((s, b) => s + b.valueBytes, 0);
    const referencing = tables.filter((t) => (t.blobReferences?.length ?? 0) > 0).length;
    const referenced = blobs.reduce((s, b) => s + b.referencedValueBytes, 0);
    out.push(
      `  blob files (value separation): ${plural(blobs.length, "file")} ${formatBytes(disk)}, ` +
        `values ${formatBytes(values)} (MANIFEST)`,
      `    ${plural(referencing, "table")} reference ${formatBytes(referenced)} of them; ` +
        `${tally(blobs.map((b) => b.format))}; checksum ${tally(blobs.map((b) => b.checksum))}`,
    );
  }
  const virtual = tables.filter((t) => t.virtualBacking !== undefined);
  if (virtual.length > 0) {
    const backings = [...new Set(virtual.map((t) => t.fileName))].sort();
    out.push(
      `  virtual tables: ${virtual.length} over ${plural(backings.length, "backing table")} ` +
        `(${backings.slice(0, 4).map(escapeText).join(", ")}${backings.length > 4 ? ", …" : ""})`,
    );
  }
  return out;
}
