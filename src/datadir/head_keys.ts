/**
 * The keys a client's chain head is read from, by shape (identity/index.ts reads them): the WAL layers
 * of the head's reads keep those writes alone (a geth node's WAL holds every write to its one
 * keyspace), and the model's WAL scan keeps them, of the head's column families, as it goes
 * (wal_kept.ts), so that the head's reads replay no WAL a second time. Besu: "chainHeadHash"
 * (VARIABLES), 0x01‖"chainHeadHash" and 0x02‖hash (BLOCKCHAIN); geth: "LastBlock", "H"‖hash,
 * "h"‖number‖hash. Nethermind's head keys are 32 and 40 bytes, as most of its keys are: its reads
 * keep every write, and its scan keeps none.
 */
import type { ColumnFamilyModel, InstanceModel } from "./model.js";

export const BESU_HEAD_KEYS = (k: Uint8Array): boolean =>
  k.length === 13 || (k.length === 14 && k[0] === 0x01) || (k.length === 33 && k[0] === 0x02);

export const GETH_HEAD_KEYS = (k: Uint8Array): boolean =>
  k.length === 9 || (k.length === 33 && k[0] === 0x48) || (k.length === 41 && k[0] === 0x68);

/** The column families Besu's head is read from: VARIABLES (0b) and BLOCKCHAIN (01), those present. */
export function besuHeadColumnFamilies(inst: InstanceModel): ColumnFamilyModel[] {
  return ["0b", "01"]
    .map((hex) => inst.columnFamilies.find((c) => c.nameHex === hex))
    .filter((c) => c !== undefined);
}

/** The column family geth's head is read from: its one keyspace (the first, LevelDB's and Pebble's only). */
export function gethHeadColumnFamily(inst: InstanceModel): ColumnFamilyModel | undefined {
  return inst.columnFamilies[0];
}

/** Where the head of the client `inst` is recognised as is read: its keys' shape, its column families. */
export interface HeadWrites {
  keys: (k: Uint8Array) => boolean;
  cfIds: ReadonlySet<number>;
}

/**
 * The head's writes of the client `inst` is recognised as, where its keys have a shape of their own:
 * Besu's (VARIABLES, BLOCKCHAIN), geth's (its one keyspace, the first column family); else undefined.
 */
export function headWritesOf(inst: InstanceModel): HeadWrites | undefined {
  const cfs =
    inst.client === "besu"
      ? besuHeadColumnFamilies(inst)
      : inst.client === "geth"
        ? [gethHeadColumnFamily(inst)].filter((c) => c !== undefined)
        : [];
  if (cfs.length === 0) return undefined;
  return {
    keys: inst.client === "besu" ? BESU_HEAD_KEYS : GETH_HEAD_KEYS,
    cfIds: new Set(cfs.map((c) => c.id)),
  };
}
