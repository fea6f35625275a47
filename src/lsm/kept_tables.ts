/**
 * Tables kept parsed after a read, without their descriptors, for the point lookups that follow over
 * the same store (check keeps the tables its model read, for the placement overlay's and the code
 * population's lookups). A lookup that a table's filter lets through needs the table open: opening it
 * again read its end (footer, metaindex, properties) and parsed it once more, where a kept table only
 * opens its descriptor again (TableFile checks that the file is still the one read). Every TableCache
 * given the same KeptTables takes its tables from here and hands them back as it lets them go, so one
 * parse serves the model and every rule.
 */
import type { SstTable } from "../format/table.js";
import type { KeptFilters } from "./kept_filters.js";

/**
 * What an earlier reader of a store kept of the tables it read (check's model read), for the point
 * lookups that follow: a table a kept filter rules out is not opened, a kept table is not parsed again.
 */
export interface KeptReads {
  /** Whole-key filters of the tables it opened (bounded by bytes: check/arms.ts). */
  filters?: KeptFilters;
  /** The tables it read, kept parsed (KeptTables). */
  tables?: KeptTables;
}

/**
 * Tables kept at most (each ~2.5 KiB of parsed metadata beside what the model keeps of it: ~20 MiB):
 * enough for the L0 pile-ups whose lookups reopen most tables (Besu's three state column families,
 * 2,415 tables an arm), bounded for a store of 100,000 tables, where a levelled store's lookups touch
 * a few tables each and the tables beyond are opened as before.
 */
export const KEPT_TABLES_MAX = 8192;

export class KeptTables {
  private readonly tables = new Map<string, SstTable>();
  /** Tables take() has handed out (each an opening, and a parse, spared). */
  taken = 0;

  constructor(private readonly max = KEPT_TABLES_MAX) {}

  get size(): number {
    return this.tables.size;
  }

  /**
   * Keep `t` (its tail and descriptor let go: TableFile.detach); false when full or when a table of the
   * same path is kept already: the caller closes `t` then.
   */
  keep(t: SstTable): boolean {
    if (this.tables.size >= this.max || this.tables.has(t.path)) return false;
    t.blocks.file.detach();
    this.tables.set(t.path, t);
    return true;
  }

  has(path: string): boolean {
    return this.tables.has(path);
  }

  /** The table kept for `path`, now the caller's (to hand back with keep(), or to close). */
  take(path: string): SstTable | undefined {
    const t = this.tables.get(path);
    if (t !== undefined) {
      this.tables.delete(path);
      this.taken++;
    }
    return t;
  }

  close(): void {
    for (const t of this.tables.values()) t.close();
    this.tables.clear();
  }
}
