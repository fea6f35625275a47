/**
 * Blob files of the selected column family: counts, bytes, garbage, header/footer, linked SSTs; for a
 * Pebble store its value-separation blob files.
 */
import { Text } from "ink";
import { formatBytes } from "../../util/bytes.js";
import { ScrollText } from "../scroll.js";
import type { PaneProps, TuiPane } from "./types.js";
import { pct } from "../../report/render.js";
import { plural } from "../../util/words.js";

export function blobLines(p: PaneProps): string[] {
  const cf = p.cf;
  if (!cf) return ["no column family selected"];
  const b = cf.knobs.configured?.blob;
  const out: string[] = [];
  out.push(
    b
      ? `OPTIONS: enable_blob_files=${b.enableBlobFiles ?? "-"} min_blob_size=${b.minBlobSize ?? "-"} blob_compression=${b.blobCompression ?? "-"} gc=${b.enableBlobGarbageCollection ?? "-"}`
      : "no OPTIONS for this column family",
  );
  const L = cf.layout.blob;
  out.push(
    `${plural(L.files, "blob file")} ${formatBytes(L.fileBytes)}, ${plural(L.blobs, "record")} ${formatBytes(L.recordBytes)}, garbage ${formatBytes(L.garbageRecordBytes)} (${pct(L.garbageShare)})`,
  );
  out.push("");
  for (const f of cf.cf.blobFiles) {
    out.push(
      `${f.fileName}${f.present ? "" : " (MISSING)"}  ${f.diskSize !== undefined ? formatBytes(f.diskSize) : "-"}  ${plural(f.totalBlobCount, "blob")}, records ${formatBytes(f.recordBytes)}  garbage ${f.garbageBlobCount} / ${formatBytes(f.garbageRecordBytes)}`,
    );
    const h = f.header;
    out.push(
      `  header: ${h ? `v${h.version}, cf ${h.columnFamilyId}, ${h.compressionName}${h.hasTtl ? ", ttl" : ""}` : "-"}  footer: ${
        f.footer
          ? `${plural(f.footer.blobCount, "blob")}, crc ${f.footer.crcOk ? "ok" : "BAD"}`
          : "none (open or torn)"
      }  linked SSTs: ${f.linkedSsts.length}`,
    );
  }
  // Pebble's blob files (value separation): what the MANIFEST records and the file's footer and index say
  for (const f of cf.cf.pebbleBlobFiles ?? []) {
    out.push(
      `${f.fileName}${f.present ? "" : " (MISSING)"}  blob file id ${f.blobFileId}  ${f.diskSize !== undefined ? formatBytes(f.diskSize) : "-"}  values ${formatBytes(f.valueBytes)} (MANIFEST)`,
    );
    out.push(
      `  ${f.format ?? "footer not read"}${f.checksum ? `, ${f.checksum}` : ""}${f.valueBlocks !== undefined ? `, ${plural(f.valueBlocks, "value block")}` : ""}  referenced by ${plural(f.referencingTables.length, "table")} (${formatBytes(f.referencedValueBytes)})`,
    );
  }
  if (cf.cf.blobFiles.length === 0 && !cf.cf.pebbleBlobFiles?.length) out.push("no blob files");
  return out;
}

export function BlobPane(p: PaneProps) {
  if (!p.cf) return <Text>no column family selected</Text>;
  return (
    <ScrollText lines={blobLines(p)} width={p.width} height={p.height} focused={p.focused} resetKey={p.cf} />
  );
}

export const blobPane: TuiPane = {
  id: "blob",
  title: "Blob",
  key: "b",
  order: 50,
  help: "↑↓ scroll",
  Component: BlobPane,
};
