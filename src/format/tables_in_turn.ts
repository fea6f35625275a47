/**
 * Tables opened one after another from a list, each from one read of its end: for the readers that
 * open every table of a store in turn for its metadata (`sizes --full`'s plan, the sample mode's block
 * counts, the probe's two paths, the live view's range deletions). Where there are many, the ends are
 * read ahead on other threads by the read-ahead helper (util/tail_read_ahead.ts, TailsInOrder), as
 * `inspect` reads them; how much of each end to read is learned from the tables opened before.
 */
import { openTable, type SstTable } from "./table.js";
import type { OpenTableOptions } from "./table_types.js";
import { TailEstimate } from "../util/tail_estimate.js";
import { TailsInOrder } from "../util/tail_read_ahead.js";

export class TablesInTurn {
  private readonly tails: TailsInOrder;

  /** `paths`: the tables in the order open() will be called; `tail`: an estimate shared with others, if any. */
  constructor(
    paths: readonly string[],
    private readonly tail = new TailEstimate(),
  ) {
    this.tails = new TailsInOrder(paths, tail);
  }

  /**
   * Open the next table of the list, `path` (one out of the list's order is opened and read as without
   * the helper). Its end must not be needed once done() has been called for it: a table kept open
   * after that drops it (TableFile.dropTail), one closed is done.
   */
  open(path: string, opts: Omit<OpenTableOptions, "prefetchTail" | "preread"> = {}): SstTable {
    return openTable(path, { ...opts, prefetchTail: this.tail.bytes, preread: this.tails.take(path) });
  }

  /** `t`'s metadata has been read: how far from its end it read teaches the next tables' reads. */
  done(t: SstTable): void {
    this.tail.note(t.tailReach);
  }

  /** Open the next table of the list, `path`, give it to `read`, and close it (done() once `read` returned). */
  read<T>(
    path: string,
    opts: Omit<OpenTableOptions, "prefetchTail" | "preread">,
    read: (t: SstTable) => T,
  ): T {
    const t = this.open(path, opts);
    try {
      const out = read(t);
      this.done(t);
      return out;
    } finally {
      t.close();
    }
  }
}
