/**
 * Bounds on open file descriptors. A datadir may hold tens of thousands of tables and blob files (a
 * node whose blob files stay small accumulates thousands); a reader cache that keeps one descriptor
 * per file it has touched fails with EMFILE part-way through, and again on every rerun. Every cache of
 * open files takes its capacity from here, and the engine is opened with a max_open_files that leaves
 * room for them.
 */
import { readdirSync, readFileSync } from "node:fs";

/** Where the soft limit cannot be read: the usual Linux default. */
const FALLBACK_LIMIT = 1024;

let limit: number | undefined;

/** The process's soft limit on open files (RLIMIT_NOFILE, from /proc/self/limits). */
export function openFileLimit(): number {
  if (limit === undefined) {
    limit = FALLBACK_LIMIT;
    try {
      const m = /^Max open files\s+(\d+|unlimited)/m.exec(readFileSync("/proc/self/limits", "utf8"));
      if (m) limit = m[1] === "unlimited" ? 1 << 20 : Number(m[1]);
    } catch {
      // not Linux: keep the fallback
    }
  }
  return limit;
}

/**
 * Descriptors one reader cache (tables, blob files) may keep open: an eighth of the limit, so that
 * several caches, the engine and Node's own fit together; at least 8, at most 1,024 (beyond that a
 * cache saves no measurable time).
 */
export function openFileCacheCapacity(): number {
  return Math.max(8, Math.min(1024, Math.floor(openFileLimit() / 8)));
}

/**
 * Files kept open by path in a least-recently-used cache of `capacity` (openFileCacheCapacity() by
 * default): a blob reader touches files in the order its values name them, and keeping every file it
 * has touched failed with EMFILE on a store of more blob files than the limit (`sizes` in sample mode
 * before session 51).
 */
export class OpenFileCache<T> {
  /** Map order is use order: the first entry is the least recently used. */
  private readonly open = new Map<string, T>();

  constructor(
    private readonly openFile: (path: string) => T,
    private readonly closeFile: (file: T) => void,
    private readonly capacity = openFileCacheCapacity(),
  ) {}

  /** The file at `path`, opened now if it is not open; the least recently used closes beyond capacity. */
  get(path: string): T {
    let f = this.open.get(path);
    if (f !== undefined) {
      this.open.delete(path);
      this.open.set(path, f);
      return f;
    }
    f = this.openFile(path);
    this.open.set(path, f);
    while (this.open.size > this.capacity) {
      const [oldest, of] = this.open.entries().next().value as [string, T];
      this.open.delete(oldest);
      this.closeFile(of);
    }
    return f;
  }

  /** Files open now. */
  get size(): number {
    return this.open.size;
  }

  close(): void {
    for (const f of this.open.values()) this.closeFile(f);
    this.open.clear();
  }
}

/**
 * Descriptors the table files of one thread may hold at once (format/table_file.ts lends the least
 * recently read one back beyond it): a quarter of the limit (two scanning threads take half; the
 * blob caches, the engine and Node the rest), at least 16. Unlike a cache's, this budget is worth
 * spending: a merge over thousands of L0 files reads every one of them in turn, and each one beyond
 * the budget is opened again at every read (sizes --full on 4,537 L0 tables with a budget of 2,500:
 * about a sixth of its time in open/fstat/close).
 */
export function tableDescriptorBudget(): number {
  return Math.max(16, Math.floor(openFileLimit() / (onlyTableReader ? 2 : 4)));
}

/** Inside asOnlyTableReader(): this thread is the only one reading tables. */
let onlyTableReader = false;

/**
 * Run `fn` (synchronous) with this thread's table files given the half of the limit that two
 * scanning threads share (tableDescriptorBudget): for work that reads tables on one thread only, as
 * `diff` does. `diff` of an L0 pile-up against itself cycles through both sides' runs at every
 * sub-range, and each run beyond the budget is opened again each time: 4,884 tables a side, 116,590
 * opens under a quarter of the limit (20,000 here), 24,804 under half (10.5 -> 9.8 s; 10,206
 * tables a side 40.9 -> 24.6 s). After `fn` the files beyond the budget lend their descriptors back
 * as others open (table_file.ts). The blob caches stay an eighth each (openFileCacheCapacity).
 */
export function asOnlyTableReader<T>(fn: () => T): T {
  const before = onlyTableReader;
  onlyTableReader = true;
  try {
    return fn();
  } finally {
    onlyTableReader = before;
  }
}

/**
 * max_open_files for RocksDB opened on a store: the store's own setting when it is positive and
 * fits, else half the process's limit (RocksDB's table cache holds the tables and blob files it has
 * open; -1 would keep every one of them open).
 */
export function engineMaxOpenFiles(configured?: number): number {
  const room = Math.max(64, Math.floor(openFileLimit() / 2));
  return configured !== undefined && configured > 0 ? Math.min(configured, room) : room;
}

/** Descriptors this process has open now (/proc/self/fd; undefined where unreadable). */
export function openDescriptorCount(): number | undefined {
  try {
    return readdirSync("/proc/self/fd").length;
  } catch {
    return undefined;
  }
}
