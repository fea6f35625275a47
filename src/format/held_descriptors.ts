/**
 * This thread's table files that hold a descriptor, least recently read first. Readers keep thousands
 * of tables open at once (a merge over an L0 pile-up has one run per file, the probe's reader path
 * opens every table as RocksDB's table cache does with max_open_files=-1), so a table keeps its parsed
 * state but lends its descriptor back: past tableDescriptorBudget() the least recently read table
 * closes its descriptor, and opens it again at its next read from the file (table_file.ts).
 *
 * A list through the tables themselves (HeldFile.olderHeld/newerHeld), not a Set: a Set's delete and
 * add at every read made it rebuild its hash table, and a long-lived Set's tables are allocated in the
 * old generation, so each table read left ~0.4 KiB of garbage there until the next full collection
 * (`inspect --deep --json` on 43,726 tables: ~19 MiB of the peak).
 */
import { tableDescriptorBudget } from "../util/open_files.js";

/** A table file as this list links it (TableFile). */
export interface HeldFile {
  /** Its neighbours in the list while it holds a descriptor. */
  olderHeld: HeldFile | undefined;
  newerHeld: HeldFile | undefined;
  isHeld: boolean;
  /** Close its descriptor (unlinkHeld first), keeping the table open. */
  releaseDescriptor(): void;
}

const held: { oldest?: HeldFile; newest?: HeldFile; count: number } = { count: 0 };

/** Descriptors opened by this thread's table files so far, reopens of lent-back ones included. */
let descriptorsOpened = 0;

/** Table files of this thread holding a descriptor now (at most tableDescriptorBudget()). */
export function tableDescriptorsInUse(): number {
  return held.count;
}

/** Descriptors this thread's table files have opened so far (a reopen counts again). */
export function tableDescriptorsOpened(): number {
  return descriptorsOpened;
}

/** `f` is the most recently read of the tables holding a descriptor (it may hold one already). */
export function markRead(f: HeldFile): void {
  if (held.newest === f) return;
  unlinkHeld(f);
  f.olderHeld = held.newest;
  if (held.newest) held.newest.newerHeld = f;
  else held.oldest = f;
  held.newest = f;
  f.isHeld = true;
  held.count++;
}

/** `f` holds no descriptor any more. */
export function unlinkHeld(f: HeldFile): void {
  if (!f.isHeld) return;
  if (f.olderHeld) f.olderHeld.newerHeld = f.newerHeld;
  else held.oldest = f.newerHeld;
  if (f.newerHeld) f.newerHeld.olderHeld = f.olderHeld;
  else held.newest = f.olderHeld;
  f.olderHeld = f.newerHeld = undefined;
  f.isHeld = false;
  held.count--;
}

/** `f` opened a descriptor: the most recently read, and the least recently read past the budget lend theirs back. */
export function holdDescriptor(f: HeldFile): void {
  descriptorsOpened++;
  markRead(f);
  // a while, not an if: the budget may have shrunk since the files were opened (asOnlyTableReader)
  const budget = tableDescriptorBudget();
  while (held.count > budget) held.oldest!.releaseDescriptor();
}
