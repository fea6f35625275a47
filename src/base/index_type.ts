/**
 * Index types of block-based tables (include/rocksdb/table.h BlockBasedTableOptions::IndexType), as
 * the "rocksdb.block.based.table.index.type" property stores them (fixed32), with their OPTIONS
 * spelling ("kTwoLevelIndexSearch") and the name lsmscope prints ("two-level").
 */

export enum IndexTypeId {
  BinarySearch = 0,
  HashSearch = 1,
  TwoLevel = 2,
  BinarySearchWithFirstKey = 3,
}

export type IndexTypeName = "binary-search" | "hash-search" | "two-level" | "binary-search-with-first-key";

const SPELLINGS: readonly (readonly [options: string, name: IndexTypeName])[] = [
  ["kBinarySearch", "binary-search"],
  ["kHashSearch", "hash-search"],
  ["kTwoLevelIndexSearch", "two-level"],
  ["kBinarySearchWithFirstKey", "binary-search-with-first-key"],
];

const BY_OPTIONS: ReadonlyMap<string, IndexTypeName> = new Map(SPELLINGS.map(([o, n]) => [o, n]));

/** Display name of the stored index type value; undefined for one this reader does not know. */
export function indexTypeName(t: number): IndexTypeName | undefined {
  return SPELLINGS[t]?.[1];
}

/** OPTIONS spelling → display name ("kTwoLevelIndexSearch" → "two-level"); undefined when unknown. */
export function indexTypeNameFromOptions(v: string): IndexTypeName | undefined {
  return BY_OPTIONS.get(v);
}
