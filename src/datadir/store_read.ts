/**
 * One store directory being read by inspectDatadir's steps (inspect_store.ts): where it is, what it
 * holds, the instance model being filled in, and the live files the MANIFEST names.
 */
import { relative } from "node:path";
import type { Finding, InstanceModel, SstFileModel } from "./model.js";
import type { RemoteCatalog } from "./pebble_remote_catalog.js";

/** One store directory being read: where it is, what it holds, and the model being filled in. */
export interface StoreRead {
  dir: string;
  names: string[];
  nameSet: Set<string>;
  inst: InstanceModel;
  /** inst.findings */
  F: Finding[];
  /** Pebble: objects kept on remote storage (its remote object catalog), by file number. */
  remote?: RemoteCatalog;
}

/** Live files the MANIFEST names, and which of the files on disk it references. */
export interface LiveFiles {
  /**
   * The live tables' models (not their MANIFEST entries: the replay's entries, keys and maps can go
   * once the models are built; what recognition needs of the keys the models hold, as hex).
   */
  tables: SstFileModel[];
  referencedTables: Set<string>;
  referencedBlobs: Set<string>;
  /**
   * Set when every present table will be opened for its details: their sizes on disk are then taken
   * from that open (its fstat) instead of a stat each, and their size checks made afterwards, each
   * finding put where the stat's would have been.
   */
  sizeLater?: DeferredSizes;
}

/**
 * Tables whose sizes on disk are left to their opens, and where each one's size check goes (`at`: the
 * findings' length when it was deferred). Two arrays, not an object per table (40 bytes each, kept
 * until the tables are read).
 */
export interface DeferredSizes {
  models: SstFileModel[];
  at: number[];
}

export function emptyInstance(root: string, dir: string): InstanceModel {
  return {
    path: dir,
    relPath: relative(root, dir) || ".",
    engine: "unknown",
    client: "generic",
    readable: false,
    columnFamilies: [],
    wal: [],
    unreferencedTables: [],
    unreferencedBlobFiles: [],
    totals: { sstFiles: 0, sstBytes: 0, blobFiles: 0, blobFileBytes: 0, walBytes: 0 },
    findings: [],
  };
}
