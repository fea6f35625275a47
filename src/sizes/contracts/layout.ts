/**
 * Where each client keeps contract storage, and which key bytes name the contract a slot belongs to
 * (shared/reference/clients.md):
 * - Besu (Bonsai): ACCOUNT_STORAGE_STORAGE (cf 08), key accountHash(32) ‖ slotHash(32).
 * - geth (snapshot): the one keyspace, key "o"(0x6f) ‖ accountHash(32) ‖ slotHash(32).
 * - Nethermind (flat DB): column family Storage, key addrHash[0:4] ‖ slotHash(32) ‖ addrHash[4:20]:
 *   a contract's slots are not contiguous, only grouped under their 4-byte prefix.
 * A key's "group" is the run of key bytes that keeps a contract's slots together in key order; its
 * "id" is the bytes that name the contract (for Besu and geth the group itself).
 */
import type { DatadirModel } from "../../datadir/model.js";
import { cfLabel } from "../../datadir/names.js";

export interface StorageLayout {
  /** Only keys starting with these bytes (hex; geth "6f"). */
  prefixHex: string;
  /** Only keys of exactly this length. */
  keyLength: number;
  /** [offset, length] of the group bytes. */
  group: [number, number];
  /** [offset, length] pieces of the contract id, in order. */
  id: [number, number][];
}

export const BESU_STORAGE: StorageLayout = { prefixHex: "", keyLength: 64, group: [0, 32], id: [[0, 32]] };
export const GETH_STORAGE: StorageLayout = { prefixHex: "6f", keyLength: 65, group: [1, 32], id: [[1, 32]] };
export const NETHERMIND_STORAGE: StorageLayout = {
  prefixHex: "",
  keyLength: 52,
  group: [0, 4],
  id: [
    [0, 4],
    [36, 16],
  ],
};

export interface StorageLocation {
  /** Instance path relative to the root, and the column family's raw name as hex. */
  instance: string;
  cfNameHex: string;
  layout: StorageLayout;
  /** "instance/displayName" (+ " prefix 0x6f" for geth). */
  location: string;
  /** What the contract id is: "account hash" (32 bytes) or "account hash, first 20 bytes". */
  idKind: string;
}

/** The storage column family of the recognised client, if its key schema names the contract. */
export function locateStorage(model: DatadirModel): StorageLocation | undefined {
  for (const inst of model.instances) {
    if (!inst.readable) continue;
    for (const cf of inst.columnFamilies) {
      let layout: StorageLayout | undefined;
      if (inst.client === "besu" && cf.nameHex === "08") layout = BESU_STORAGE;
      else if (
        inst.client === "nethermind" &&
        inst.clientDetail?.database === "flat" &&
        cf.name === "Storage"
      )
        layout = NETHERMIND_STORAGE;
      else if (
        inst.client === "geth" &&
        (inst.engine === "leveldb" || inst.engine === "pebble") &&
        cf.name === "default"
      )
        layout = GETH_STORAGE;
      if (!layout) continue;
      const where = cfLabel(inst, cf.displayName);
      return {
        instance: inst.relPath,
        cfNameHex: cf.nameHex,
        layout,
        location: layout.prefixHex ? `${where} prefix 0x${layout.prefixHex}` : where,
        idKind: layout === NETHERMIND_STORAGE ? "account hash, first 20 bytes" : "account hash",
      };
    }
  }
  return undefined;
}
