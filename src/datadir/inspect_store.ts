/**
 * One store directory → its instance model, as a sequence of named steps: recognise it (recognise.ts),
 * read OPTIONS and the version (read_version.ts), its column families (column_families.ts), WALs
 * (inspect_wals.ts), totals (together: the store's outline) and then, if asked, each table's details.
 */
import type { DiscoveredStore } from "./discover.js";
import { readStoreWals } from "./inspect_wals.js";
import { placementOf, tableEntries } from "./placement.js";
import { expectedFileSize, type InspectOptions, type InstanceModel, type SstFileModel } from "./model.js";
import type { TableDetailsReader } from "./table_details.js";
import { TailReadAhead } from "../util/tail_read_ahead.js";
import { TABLES_PER_YIELD, yieldEvery } from "../util/event_loop.js";
import { settleVanishedTables } from "./vanished.js";
import { emptyInstance, type LiveFiles, type StoreRead } from "./store_read.js";
import { recogniseClient, recogniseGeth, recognisePebble, recognisePebbleGeth } from "./recognise.js";
import { readOptions, readVersion, versionUnreadable } from "./read_version.js";
import { tableReadsBegin } from "../util/interrupt_budget.js";
import {
  columnFamily,
  attachPebbleBlobFiles,
  noteUnreferencedFiles,
  leaveTableSizes,
  settleTableSizes,
} from "./column_families.js";

/** A store whose outline is read (inspectStoreOutline), its table details still to read (finishStore). */
export interface StoreOutline {
  s: StoreRead;
  /** The live tables; undefined when the version could not be read (nothing more to read). */
  live?: LiveFiles;
}

/**
 * One store's outline: recognise it, read OPTIONS and the MANIFEST's version, build its column families
 * from the live files, then the WALs and totals. Each step adds to the model and its findings; a store
 * whose version cannot be read stops after the WALs are counted.
 */
export function inspectStoreOutline(
  root: string,
  store: DiscoveredStore,
  besuRoot: boolean,
  opts: InspectOptions,
): StoreOutline {
  const s: StoreRead = {
    dir: store.path,
    names: store.names,
    nameSet: new Set(store.names),
    inst: emptyInstance(root, store.path),
    F: [],
  };
  s.F = s.inst.findings;
  const { inst } = s;

  const pebble = recognisePebble(s);
  if (!pebble) {
    recogniseClient(s, root, besuRoot);
    readOptions(s);
  }
  const replay = readVersion(s, pebble);
  if (!replay) return { s };
  if (!replay.complete) {
    versionUnreadable(s, replay, opts);
    return { s };
  }
  inst.readable = true;
  // a LevelDB store that no other client claims may be legacy geth: decided below from its keys
  const gethCandidate = inst.engine === "leveldb" && inst.client === "generic";

  const live: LiveFiles = { tables: [], referencedTables: new Set(), referencedBlobs: new Set() };
  // every present table is opened next (finishStore, or the caller): its size on disk comes from that
  // open, not a stat of its own
  if (opts.tableDetails === "cheap" || opts.tableSizes === "caller") live.sizeLater = { models: [], at: [] };
  for (const rcf of replay.columnFamilies) inst.columnFamilies.push(columnFamily(s, replay, rcf, live));
  if (pebble) attachPebbleBlobFiles(s, replay, live);
  noteUnreferencedFiles(s, live);
  if (gethCandidate) recogniseGeth(s, live);
  if (pebble) recognisePebbleGeth(s, live);
  readStoreWals(inst, s.dir, s.names, opts);
  sumTotals(inst);
  return { s, live };
}

/** Each column family's placement and entries as its tables stand (entries unknown until all are read). */
export function settleColumnFamilies(inst: InstanceModel): void {
  for (const cf of inst.columnFamilies) {
    cf.placement = placementOf(cf.levels);
    cf.totals.entries = tableEntries(cf.levels);
  }
}

/** The rest of a store after its outline: each table's details if asked, vanished tables, placement. */
export async function finishStore(
  { s, live }: StoreOutline,
  opts: InspectOptions,
  tableReader: TableDetailsReader | undefined,
): Promise<InstanceModel> {
  if (!live) return s.inst;
  if (tableReader) await readTableDetails(s, live, tableReader, opts);
  else if (live.sizeLater && opts.tableSizes === "caller") leaveTableSizes(s.inst, live.sizeLater);
  // no reader after all (table-details-unavailable): each size from a stat now, as the outline's would be
  else if (live.sizeLater) settleTableSizes(s.F, live.sizeLater, new Map());
  settleVanishedTables(s.inst, s.dir);
  settleColumnFamilies(s.inst);
  return s.inst;
}

function sumTotals(inst: InstanceModel): void {
  for (const cf of inst.columnFamilies) {
    inst.totals.sstFiles += cf.totals.files;
    inst.totals.sstBytes += cf.totals.bytes;
    inst.totals.blobFiles += cf.totals.blobFiles;
    inst.totals.blobFileBytes += cf.totals.blobFileBytes;
  }
  inst.totals.walBytes = inst.wal.reduce((sum, w) => sum + w.size, 0);
}

/**
 * Per-file table details through the SST reader, with progress; the next tables' tails are read ahead
 * (util/tail_read_ahead.ts), so a store out of the page cache is not read one round trip at a time.
 */
async function readTableDetails(
  { inst, F }: StoreRead,
  live: LiveFiles,
  tableReader: TableDetailsReader,
  opts: InspectOptions,
): Promise<void> {
  const present = live.tables.filter((f) => f.present);
  const ahead = new TailReadAhead(
    present.map((model) => ({ path: model.path, size: model.diskSize ?? model.fileSize })),
    tableReader.tail,
  );
  let done = 0;
  const sizes = new Map<SstFileModel, number>();
  // thousands of tables: their reader's code pays for TurboFan early (util/interrupt_budget.ts)
  const endTableReads = tableReadsBegin(present.length);
  try {
    for (const model of present) {
      const tail = ahead.ready(done);
      if (tail) await tail;
      const { details: d, size } = tableReader.read(model.path, expectedFileSize(model), ahead.take(done));
      model.details = d;
      if (size !== undefined) sizes.set(model, size);
      // a table the reader cannot open leaves the picture incomplete (its knobs, its entries)
      if (d.error)
        F.push({
          severity: "error",
          code: "sst-unreadable",
          file: model.path,
          message: `table reader: ${d.error}`,
        });
      done++;
      if (opts.onProgress && (done % 64 === 0 || done === present.length))
        opts.onProgress(done, present.length, inst.relPath);
      if (opts.onOutline) await yieldEvery(done, TABLES_PER_YIELD, opts.signal);
    }
  } finally {
    endTableReads();
  }
  if (live.sizeLater) settleTableSizes(F, live.sizeLater, sizes);
}
