/**
 * What a run of a merge over many runs keeps of its current table (merge.ts, TableRun's `lean`): the
 * file, its data blocks' handles and separators, and a reader of its data blocks, not its properties
 * or metaindex. Over an L0 pile-up every run has a table open at once, and the tables' metadata made
 * most of the merge's memory.
 *
 * Such a table can be opened ahead of the scan that reads it: planning a full scan opens every table
 * for its properties anyway, and opening each one a second time in the scan cost the thread ~45 µs a
 * table (~0.2 s over 4,354 L0 tables). The planning thread keeps what it opened (sizes/pool.ts,
 * keepOpened), and its runs take their tables from there (TableSource.takeOpened).
 */
import { openTable, type DataBlockReader, type SstTable } from "../format/table.js";
import type { PackedIndex } from "../format/packed_index.js";
import { TailEstimate } from "../util/tail_estimate.js";

export interface LeanTable {
  path: string;
  /**
   * The data blocks a run reads, in key order: from the one that may hold its lower bound up to the
   * first whose separator reaches its upper bound when opened by the run; every block when opened
   * ahead of it (the run skips blocks below its range and stops after the block that reaches hi).
   */
  index: PackedIndex;
  reader: DataBlockReader;
}

/**
 * How much of a table's end a lean open reads at once (footer, metaindex, properties and index in one
 * read instead of six or seven small ones: 4,354 L0 tables took ~30,000 read calls to open), learned
 * per thread from the tables opened before.
 */
const leanTail = new TailEstimate();

/**
 * Keep of `t` (open, its metadata read) what a lean run reads: its blocks from the one that may hold
 * `lo` up to the first whose separator reaches `hi` (every block without bounds), read through a
 * window of `readAhead` bytes. The table's prefetched tail goes to the next table's open.
 */
export function leanTableOf(t: SstTable, readAhead: number, lo?: Uint8Array, hi?: Uint8Array): LeanTable {
  // packed straight from the index walk: no entry object or separator copy per data block
  const index = t.packedIndex(lo, hi);
  leanTail.note(t.tailReach);
  const file = t.blocks.file;
  file.dropTail();
  file.readAhead(readAhead);
  return { path: t.path, index, reader: t.dataBlockReader() };
}

/**
 * Open the table at `path` for a lean run (see leanTableOf); `size`: its MANIFEST size, if known;
 * `prepare`: called on the table before anything is read of it (TableSource.prepare).
 */
export function openLeanTable(
  path: string,
  size: number | undefined,
  readAhead: number,
  lo?: Uint8Array,
  hi?: Uint8Array,
  prepare?: (t: SstTable) => void,
): LeanTable {
  const t = openTable(path, { readAhead, prefetchTail: leanTail.bytes, expectedSize: size });
  try {
    prepare?.(t);
    return leanTableOf(t, readAhead, lo, hi);
  } catch (err) {
    t.close();
    throw err;
  }
}

/** Lean tables opened ahead of the runs that will read them, each taken once (see the module). */
export class OpenedAhead {
  private readonly tables = new Map<string, LeanTable>();

  get size(): number {
    return this.tables.size;
  }

  /** Keep `lean` for the run that reads its file (a second opening of the same file is closed). */
  keep(lean: LeanTable): void {
    if (this.tables.has(lean.path)) lean.reader.close();
    else this.tables.set(lean.path, lean);
  }

  /** The table kept for `path`, now the caller's to close; undefined when none is. */
  take(path: string): LeanTable | undefined {
    const t = this.tables.get(path);
    if (t) this.tables.delete(path);
    return t;
  }

  /** Close every table no run took. */
  close(): void {
    for (const t of this.tables.values()) t.reader.close();
    this.tables.clear();
  }
}
