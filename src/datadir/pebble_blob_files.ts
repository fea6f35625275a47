/**
 * A Pebble store's blob files (value separation): the live ones the MANIFEST records (new-blob-file,
 * by blob file id), matched with the files on disk, each file's footer and index read
 * (format/pebble_blob_file.ts), and the tables whose blob references name them. A table's value handle
 * names a blob reference by its index in the table's list; the reference names a blob file id; the id
 * names the physical file (PebbleBlobFiles.fileFor).
 */
import { join } from "node:path";
import { numberedFileName } from "../base/file_names.js";
import { PebbleBlobFile } from "../format/pebble_blob_file.js";
import type { Finding, PebbleBlobFileModel, SstFileModel } from "./model.js";
import type { PebbleBlobFile as ManifestBlobFile } from "./version_edit.js";

export interface PebbleBlobFilesInput {
  dir: string;
  nameSet: Set<string>;
  /** Live blob files by blob file id (manifest.ts ManifestReplay.pebbleBlobFiles). */
  blobFiles: Map<number, ManifestBlobFile>;
  /** The store's live tables (their blobReferences). */
  tables: SstFileModel[];
  findings: Finding[];
}

/** Live blob files, sorted by id, with what their footer and index say; damage becomes findings. */
export function pebbleBlobFileModels(input: PebbleBlobFilesInput): PebbleBlobFileModel[] {
  const { dir, nameSet, findings: F } = input;
  const refs = new Map<number, { tables: number[]; valueBytes: number }>();
  for (const t of input.tables)
    for (const r of t.blobReferences ?? []) {
      const e = refs.get(r.blobFileId) ?? { tables: [], valueBytes: 0 };
      if (!e.tables.includes(t.fileNumber)) e.tables.push(t.fileNumber);
      e.valueBytes += r.valueBytes;
      refs.set(r.blobFileId, e);
    }
  const out: PebbleBlobFileModel[] = [];
  for (const b of [...input.blobFiles.values()].sort((x, y) => x.blobFileId - y.blobFileId)) {
    const fileName = numberedFileName(b.fileNumber, "blob");
    const r = refs.get(b.blobFileId);
    const m: PebbleBlobFileModel = {
      blobFileId: b.blobFileId,
      fileNumber: b.fileNumber,
      fileName,
      path: join(dir, fileName),
      present: nameSet.has(fileName),
      fileSize: b.size,
      valueBytes: b.valueSize,
      creationTime: b.creationTime,
      referencingTables: (r?.tables ?? []).sort((x, y) => x - y),
      referencedValueBytes: r?.valueBytes ?? 0,
    };
    out.push(m);
    if (!m.present) {
      F.push({
        severity: "error",
        code: "blob-missing",
        file: m.path,
        message: `the MANIFEST lists Pebble blob file ${b.fileNumber} (blob file id ${b.blobFileId}) but it is not on disk`,
      });
      continue;
    }
    readFooterAndIndex(m, F);
  }
  for (const [id, r] of refs)
    if (!input.blobFiles.has(id))
      F.push({
        severity: "error",
        code: "blob-missing",
        file: dir,
        message: `table ${r.tables.join(", ")} references blob file id ${id}, which the MANIFEST does not list`,
      });
  return out;
}

function readFooterAndIndex(m: PebbleBlobFileModel, F: Finding[]): void {
  let f: PebbleBlobFile | undefined;
  try {
    f = new PebbleBlobFile(m.path);
    m.diskSize = f.size;
    m.format = f.footer.format;
    m.checksum = f.footer.checksumType;
    m.valueBlocks = f.blockCount;
    if (f.size !== m.fileSize)
      F.push({
        severity: "error",
        code: "blob-size-mismatch",
        file: m.path,
        message: `size on disk ${f.size} differs from the MANIFEST's ${m.fileSize}`,
      });
  } catch (e) {
    F.push({
      severity: "error",
      code: "blob-unreadable",
      file: m.path,
      offset: (e as { offset?: number }).offset,
      message: (e as Error).message,
    });
  } finally {
    f?.close();
  }
}
