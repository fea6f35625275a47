/**
 * The keys a client's chain head is read from, by shape (identity/index.ts reads them): the WAL layers
 * of the head's reads keep those writes alone (a geth node's WAL holds every write to its one
 * keyspace), and the model's WAL scan keeps them as it goes (wal_kept.ts), so that the head's reads
 * replay no WAL a second time. Besu: "chainHeadHash" (VARIABLES), 0x01‖"chainHeadHash" and 0x02‖hash
 * (BLOCKCHAIN); geth: "LastBlock", "H"‖hash, "h"‖number‖hash. Nethermind's head keys are 32 and 40
 * bytes, as most of its keys are: its reads keep every write, and its scan keeps none.
 */
import type { InstanceModel } from "./model.js";

export const BESU_HEAD_KEYS = (k: Uint8Array): boolean =>
  k.length === 13 || (k.length === 14 && k[0] === 0x01) || (k.length === 33 && k[0] === 0x02);

export const GETH_HEAD_KEYS = (k: Uint8Array): boolean =>
  k.length === 9 || (k.length === 33 && k[0] === 0x48) || (k.length === 41 && k[0] === 0x68);

/** The head keys of the client `inst` is recognised as, where they have a shape of their own. */
export function headKeysOf(inst: Pick<InstanceModel, "client">): ((k: Uint8Array) => boolean) | undefined {
  return inst.client === "besu" ? BESU_HEAD_KEYS : inst.client === "geth" ? GETH_HEAD_KEYS : undefined;
}
