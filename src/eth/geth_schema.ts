/**
 * geth's chaindata key schema (core/rawdb/schema.go) and the categories `geth db inspect`
 * (core/rawdb/database.go InspectDatabase) sorts keys into, under its own category names, tested in its
 * order. Keys only: geth tells a hash-scheme trie node by keccak(value) == key, here a 32-byte key is
 * taken as one (nothing else in the schema is 32 bytes long). The one classifier of geth keys: `inspect`
 * (geth recognition, file key ranges), `sizes` (live records per category) and the sample truth use it.
 */

const HASH = 32;
const NUM = 8;

/** Singleton keys geth's InspectDatabase counts as "Singleton metadata" (schema.go). */
const METADATA_KEYS = new Set(
  [
    "DatabaseVersion",
    "LastHeader",
    "LastBlock",
    "LastFast",
    "LastFinalized",
    "LastStateID",
    "LastPivot",
    "TrieSync",
    "SnapshotDisabled",
    "SnapshotRoot",
    "SnapshotJournal",
    "SnapshotGenerator",
    "SnapshotRecovery",
    "SnapshotSyncStatus",
    "SkeletonSyncStatus",
    "TrieJournal",
    "TransactionIndexTail",
    "FastTransactionLookupLimit",
    "InvalidBlock",
    "unclean-shutdown",
    "eth2-transition",
    "SnapSyncStatus",
  ].map((k) => Buffer.from(k, "latin1").toString("hex")),
);

/** Category names, as `geth db inspect` prints them. */
export const GETH_CATEGORIES = {
  headers: "Headers",
  bodies: "Bodies",
  receipts: "Receipt lists",
  difficulties: "Difficulties",
  numberToHash: "Block number->hash",
  hashToNumber: "Block hash->number",
  hashTrieNodes: "Hash trie nodes",
  stateLookups: "Path trie state lookups",
  accountTrieNodes: "Path trie account nodes",
  storageTrieNodes: "Path trie storage nodes",
  codes: "Contract codes",
  txIndex: "Transaction index",
  accountSnapshot: "Account snapshot",
  storageSnapshot: "Storage snapshot",
  preimages: "Trie preimages",
  bloomBits: "Bloombit index",
  beaconHeaders: "Beacon sync headers",
  cliqueSnapshots: "Clique snapshots",
  metadata: "Singleton metadata",
  unaccounted: "Unaccounted",
} as const;

export type GethCategory = (typeof GETH_CATEGORIES)[keyof typeof GETH_CATEGORIES];

const startsWith = (key: Uint8Array, prefix: string): boolean => {
  if (key.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (key[i] !== prefix.charCodeAt(i)) return false;
  return true;
};

/** The `geth db inspect` category of a chaindata key. */
export function gethKeyCategory(key: Uint8Array): GethCategory {
  const C = GETH_CATEGORIES;
  const n = key.length;
  const first = n > 0 ? String.fromCharCode(key[0]!) : "";
  const last = n > 0 ? String.fromCharCode(key[n - 1]!) : "";
  if (first === "h" && n === 1 + NUM + HASH) return C.headers;
  if (first === "b" && n === 1 + NUM + HASH) return C.bodies;
  if (first === "r" && n === 1 + NUM + HASH) return C.receipts;
  // h num hash t (deprecated total difficulty), h num n (canonical hash of a number)
  if (first === "h" && last === "t") return C.difficulties;
  if (first === "h" && last === "n") return C.numberToHash;
  if (first === "H" && n === 1 + HASH) return C.hashToNumber;
  if (n === HASH) return C.hashTrieNodes;
  if (first === "L" && n === 1 + HASH) return C.stateLookups;
  // path scheme: "A" ‖ path (≤ 64 nibbles), "O" ‖ account hash ‖ path
  if (first === "A" && n <= 1 + 64) return C.accountTrieNodes;
  if (first === "O" && n >= 1 + HASH && n <= 1 + HASH + 64) return C.storageTrieNodes;
  if (first === "c" && n === 1 + HASH) return C.codes;
  if (first === "l" && n === 1 + HASH) return C.txIndex;
  if (first === "a" && n === 1 + HASH) return C.accountSnapshot;
  if (first === "o" && n === 1 + 2 * HASH) return C.storageSnapshot;
  if (startsWith(key, "secure-key-") && n === 11 + HASH) return C.preimages;
  if (startsWith(key, "ethereum-config-") && n === 16 + HASH) return C.metadata;
  if (startsWith(key, "ethereum-genesis-") && n === 17 + HASH) return C.metadata;
  if (first === "B" && n === 1 + 10 + HASH) return C.bloomBits;
  if (startsWith(key, "iB")) return C.bloomBits;
  if (first === "S" && n === 1 + NUM) return C.beaconHeaders;
  if (startsWith(key, "clique-") && n === 7 + HASH) return C.cliqueSnapshots;
  if (METADATA_KEYS.has(Buffer.from(key.buffer, key.byteOffset, key.byteLength).toString("hex")))
    return C.metadata;
  return C.unaccounted;
}
