/**
 * How each client keys accounts, storage and code in its stores (see shared/reference/clients.md).
 * All inputs are raw bytes: addresses 20 B, hashes 32 B.
 *
 * | client            | account key                 | storage key                                  | code key        |
 * |-------------------|-----------------------------|----------------------------------------------|-----------------|
 * | Besu (Bonsai)     | cf06: keccak(addr)          | cf08: accHash ‖ slotHash (64 B)              | cf07: codeHash  |
 * | Nethermind (flat) | Account: keccak(addr)[0:20] | Storage: accHash[0:4] ‖ slotHash ‖ accHash[4:20] (52 B) | code DB: codeHash |
 * | geth (snapshot)   | "a" ‖ accHash               | "o" ‖ accHash ‖ slotHash                      | "c" ‖ codeHash  |
 */
import { keccak256 } from "./keccak.js";

function need(b: Uint8Array, len: number, what: string): void {
  if (b.length !== len) throw new RangeError(`${what} must be ${len} bytes, got ${b.length}`);
}

/** keccak(address): the account hash all clients key by. */
export function accountHash(address: Uint8Array): Buffer {
  need(address, 20, "address");
  return keccak256(address);
}

/** keccak(slot): the slot hash (slot as its 32-byte big-endian key). */
export function slotHash(slot: Uint8Array): Buffer {
  need(slot, 32, "slot");
  return keccak256(slot);
}

/** Besu cf06 key: keccak(address), 32 B. */
export function besuAccountKey(accHash: Uint8Array): Buffer {
  need(accHash, 32, "account hash");
  return Buffer.from(accHash);
}

/** Besu cf08 key: accountHash ‖ slotHash, 64 B. */
export function besuStorageKey(accHash: Uint8Array, slotH: Uint8Array): Buffer {
  need(accHash, 32, "account hash");
  need(slotH, 32, "slot hash");
  return Buffer.concat([accHash, slotH]);
}

/** Nethermind flat Account key: keccak(address)[0:20]. */
export function nethermindAccountKey(accHash: Uint8Array): Buffer {
  need(accHash, 32, "account hash");
  return Buffer.from(accHash.subarray(0, 20));
}

/** Nethermind flat Storage key: accHash[0:4] ‖ slotHash ‖ accHash[4:20], 52 B. */
export function nethermindStorageKey(accHash: Uint8Array, slotH: Uint8Array): Buffer {
  need(accHash, 32, "account hash");
  need(slotH, 32, "slot hash");
  return Buffer.concat([accHash.subarray(0, 4), slotH, accHash.subarray(4, 20)]);
}

/** geth snapshot account key: "a" ‖ accountHash. */
export function gethAccountKey(accHash: Uint8Array): Buffer {
  need(accHash, 32, "account hash");
  return Buffer.concat([Buffer.from("a"), accHash]);
}

/** geth snapshot storage key: "o" ‖ accountHash ‖ slotHash. */
export function gethStorageKey(accHash: Uint8Array, slotH: Uint8Array): Buffer {
  need(accHash, 32, "account hash");
  need(slotH, 32, "slot hash");
  return Buffer.concat([Buffer.from("o"), accHash, slotH]);
}

/** geth code key: "c" ‖ codeHash. */
export function gethCodeKey(codeHash: Uint8Array): Buffer {
  need(codeHash, 32, "code hash");
  return Buffer.concat([Buffer.from("c"), codeHash]);
}
