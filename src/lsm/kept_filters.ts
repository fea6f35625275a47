/**
 * Whole-key filters kept of tables that have been closed, by path, bounded by bytes: a lookup over an
 * L0 pile-up consults thousands of tables, far more than stay open, and a kept filter rules a table
 * out without opening it (what its get() would answer first; `sizes --sample 10` on 4,354 L0 tables
 * took 130 s without them, mostly opening tables). Filled by a TableCache that keeps the
 * filters of the tables it opens, or by whoever opened the tables before (check keeps those of the
 * tables its model read opened, for the placement overlay's lookups).
 */
import type { DetachedFilter } from "../format/filter_reader.js";
import { hash64Parts } from "../format/hash_fast.js";

/**
 * Filter bytes kept: 10 bits per key is enough for ~50 M keys' tables; beyond, the least recently
 * kept go (and their tables are opened again when a lookup needs them).
 */
export const KEPT_FILTER_BYTES = 64 * 1024 * 1024;

/** What keeping a table's filter needs of the open table (SstTable has it). */
export interface FilterSource {
  readonly path: string;
  detachedFilter(): DetachedFilter | undefined;
}

export class KeptFilters {
  /** The detached filter of each table kept (null: it has none usable, or it could not be read). */
  private readonly filters = new Map<string, DetachedFilter | null>();
  private bytes = 0;

  constructor(private readonly maxBytes = KEPT_FILTER_BYTES) {}

  /** Keep an open table's filter (least recently kept out first past the bound). */
  keep(t: FilterSource): void {
    if (this.filters.has(t.path)) return;
    let f: DetachedFilter | null;
    try {
      f = t.detachedFilter() ?? null;
    } catch {
      f = null; // a damaged filter is the lookup's to report, when it reads the table
    }
    this.filters.set(t.path, f);
    this.bytes += f?.bytes ?? 0;
    for (const [path, old] of this.filters) {
      if (this.bytes <= this.maxBytes) break;
      this.filters.delete(path);
      this.bytes -= old?.bytes ?? 0;
    }
  }

  /** The kept filter of the table at `path`: undefined when none is kept (nothing known of it). */
  get(path: string): DetachedFilter | undefined {
    return this.filters.get(path) ?? undefined;
  }

  clear(): void {
    this.filters.clear();
    this.bytes = 0;
  }
}

/**
 * The 64-bit XXH3 hashes of a batch of keys (format/hash_fast.ts hash64Parts), low and high words of
 * key i at hashes[2i], hashes[2i + 1]: the layout filterMayHold reads.
 */
export function filterHashes(keys: readonly Uint8Array[]): Uint32Array {
  const hashes = new Uint32Array(2 * keys.length);
  for (let i = 0; i < keys.length; i++) hash64Parts(keys[i]!, hashes.subarray(2 * i, 2 * i + 2));
  return hashes;
}

/**
 * Whether a filter may hold key i of a batch whose 64-bit XXH3 hashes (format/hash_fast.ts
 * hash64Parts) are at hashes[2i], hashes[2i + 1]: asked by the hash where the filter takes one, so a
 * key is hashed once for all the filters it meets.
 */
export function filterMayHold(
  filter: DetachedFilter,
  key: Uint8Array,
  hashes: Uint32Array,
  i: number,
): boolean {
  const byHash = filter.mayContainHash;
  return byHash !== undefined ? byHash(hashes[2 * i]!, hashes[2 * i + 1]!) : filter.mayContain(key);
}
