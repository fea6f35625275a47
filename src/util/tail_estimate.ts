/**
 * How many of a table's last bytes to read at once when opening it (footer, metaindex, properties,
 * index, filter metadata): learned from the tables opened before. Shared by the datadir model's
 * details reader and the scans' merges, which open every table of an L0 pile-up.
 */

/**
 * Bytes read at once from the end of each table, as deep mode does (report/deep_table.ts): the
 * footer, metaindex and properties lie there, so a small table's details take one read instead of
 * four (footer, metaindex, properties, filter metadata each a read call). Default mode was slower than
 * --deep on thousands of small tables for that reason. The most read: the reader reads what the
 * tables before needed (TailEstimate), rounded up to TAIL_STEP.
 */
export const TABLE_TAIL_BYTES = 32 * 1024;
const TAIL_STEP = 4096;

/**
 * How many of a table's last bytes its details need (footer, metaindex, properties, the filter's last
 * bytes), learned from the tables read before: a store's tables are alike, and reading 32 KiB where
 * 2 KiB do costs ~3.5 µs of CPU per table (the copy out of the page cache) on a store of tiny tables.
 * A table that needs more than the estimate costs one more read call; the estimate follows the
 * largest recent need, decaying slowly towards smaller ones.
 */
export class TailEstimate {
  private reach: number;
  /** `first`: the reach assumed before any table was read (0: the least, one TAIL_STEP). */
  constructor(
    private readonly most = TABLE_TAIL_BYTES,
    first = 0,
  ) {
    this.reach = first;
  }
  /** Bytes to prefetch for the next table. */
  get bytes(): number {
    return Math.min(this.most, Math.max(TAIL_STEP, Math.ceil(this.reach / TAIL_STEP) * TAIL_STEP));
  }
  /** A table's reads reached `reach` bytes from its end. */
  note(reach: number): void {
    this.reach = reach >= this.reach ? reach : this.reach - (this.reach - reach) / 16;
  }
}
