/**
 * Open tables kept between the key-range tasks of one thread. A full scan split into key ranges
 * visits the same tables once per range; re-opening each one costs the footer, metaindex and
 * properties reads and, worse, re-reading and re-parsing its index block. A thread runs its tasks one
 * after another, so a table is either in use by one run or idle here; idle tables are kept, least
 * recently released first out, up to `maxIdle` (each holds a file descriptor, its index block and a
 * read-ahead window).
 */
import { openTable, type OpenTableOptions, type SstTable } from "../format/table.js";

/**
 * Where a run gets its tables from and gives them back. `readAhead`, when given, replaces the
 * source's read-ahead window for a table it opens (a table already open keeps its own).
 */
export interface TableSource {
  acquire(path: string, readAhead?: number): SstTable;
  release(table: SstTable): void;
  /**
   * Called on every table a run reads, acquired here or opened by the run itself (a lean run: see
   * TableRun), before its first block: e.g. to give a Pebble table its store's blob files.
   */
  prepare?(table: SstTable): void;
}

/** No caching: open on acquire, close on release. */
export function uncachedTables(opts: OpenTableOptions = {}): TableSource {
  return {
    acquire: (path, readAhead) => openTable(path, readAhead === undefined ? opts : { ...opts, readAhead }),
    release: (t) => t.close(),
  };
}

export class TableCache implements TableSource {
  /** Idle tables by path; Map order is release order, so the first entry is the least recent. */
  private readonly idle = new Map<string, SstTable>();

  constructor(
    private readonly opts: OpenTableOptions = {},
    private readonly maxIdle = 64,
  ) {}

  /** Tables open and idle right now. */
  get size(): number {
    return this.idle.size;
  }

  acquire(path: string, readAhead?: number): SstTable {
    const t = this.idle.get(path);
    if (t) {
      this.idle.delete(path);
      return t;
    }
    return openTable(path, readAhead === undefined ? this.opts : { ...this.opts, readAhead });
  }

  release(table: SstTable): void {
    if (this.idle.has(table.path)) {
      // the same file was open twice (two runs naming it): keep one
      table.close();
      return;
    }
    this.idle.set(table.path, table);
    while (this.idle.size > this.maxIdle) {
      const [path, oldest] = this.idle.entries().next().value as [string, SstTable];
      this.idle.delete(path);
      oldest.close();
    }
  }

  close(): void {
    for (const t of this.idle.values()) t.close();
    this.idle.clear();
  }
}
