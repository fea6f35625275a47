/**
 * A Pebble store's blob files as the source of its tables' separated values. A table's blob handle
 * names a blob reference by its index in the table's MANIFEST entry (SstFileModel.blobReferences); the
 * reference names a blob file id; the MANIFEST's new-blob-file maps the id to the physical file
 * (PebbleBlobFileModel). Open blob files are kept in a least-recently-used cache sized from the
 * descriptor limit (open_files.ts), as the other readers' caches are.
 */
import { LsmscopeError } from "../util/errors.js";
import { OpenFileCache, openFileCacheCapacity } from "../util/open_files.js";
import type { ColumnFamilyModel, SstFileModel } from "../datadir/model.js";
import { PebbleBlobFile } from "../format/pebble_blob_file.js";
import { decodeBlobHandle, type PebbleBlobValues, type ResolvedValue } from "../format/pebble.js";
import type { SstTable } from "../format/table.js";
import type { TableSource } from "./table_cache.js";

export class PebbleBlobStore {
  private readonly open: OpenFileCache<PebbleBlobFile>;
  /** Blob file paths by blob file id. */
  private readonly paths = new Map<number, string>();
  /**
   * Blob file ids of each table's references, by table path (a virtual table reads its backing's
   * file: virtual tables over one backing with different references are not told apart).
   */
  private readonly refs = new Map<string, number[]>();
  /** Values read from blob files so far. */
  values = 0;

  constructor(cf: Pick<ColumnFamilyModel, "pebbleBlobFiles" | "levels">, capacity = openFileCacheCapacity()) {
    this.open = new OpenFileCache(
      (path) => new PebbleBlobFile(path),
      (f) => f.close(),
      capacity,
    );
    for (const b of cf.pebbleBlobFiles ?? []) if (b.present) this.paths.set(b.blobFileId, b.path);
    for (const l of cf.levels)
      for (const f of l.files)
        if (f.blobReferences)
          this.refs.set(
            f.path,
            f.blobReferences.map((r) => r.blobFileId),
          );
  }

  /** Whether any table of the column family keeps values in blob files. */
  get empty(): boolean {
    return this.refs.size === 0;
  }

  /** The source of one table's blob values (its references by index). */
  forTable(table: Pick<SstFileModel, "path" | "fileName">): PebbleBlobValues {
    const ids = this.refs.get(table.path) ?? [];
    return {
      resolve: (data, start, end): ResolvedValue => {
        const h = decodeBlobHandle(data, start, end);
        const id = ids[h.reference];
        if (id === undefined)
          throw new LsmscopeError(
            `a value names blob reference ${h.reference}; the MANIFEST gives the table ${ids.length}`,
            { file: table.path },
          );
        const path = this.paths.get(id);
        if (path === undefined)
          throw new LsmscopeError(
            `a value lives in blob file id ${id}, which is not on disk or not in the MANIFEST`,
            {
              file: table.path,
            },
          );
        const v = this.open.get(path).value(h.block, h.valueId);
        if (v.length !== h.length)
          throw new LsmscopeError(
            `blob value (block ${h.block}, value ${h.valueId}) has ${v.length} bytes, its handle in ${table.fileName} says ${h.length}`,
            { file: path },
          );
        this.values++;
        return v;
      },
    };
  }

  /** Give an open table of this column family its blob values (a no-op for a table without references). */
  attach(t: SstTable): void {
    if (this.refs.has(t.path)) t.attachBlobValues(this.forTable({ path: t.path, fileName: t.path }));
  }

  close(): void {
    this.open.close();
  }
}

/** A table source whose tables resolve their blob handles through the store's blob files. */
export function withBlobValues(source: TableSource, store: PebbleBlobStore): TableSource {
  return {
    acquire: (path, readAhead) => source.acquire(path, readAhead),
    release: (t) => source.release(t),
    prepare(t) {
      source.prepare?.(t);
      store.attach(t);
    },
  };
}
