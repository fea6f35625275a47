/**
 * Keccak-256 (the pre-standard SHA-3 Ethereum uses) and the hashes every client store refers to.
 */
import { createRequire } from "node:module";

// @noble/hashes (and the node:crypto it pulls in, ~10 ms) loads with the first hash, not with every
// command that can show Ethereum views
const require = createRequire(import.meta.url);
let keccak: typeof import("@noble/hashes/sha3").keccak_256 | undefined;

/** keccak256(data) as a Buffer of 32 bytes. */
export function keccak256(data: Uint8Array): Buffer {
  keccak ??= (require("@noble/hashes/sha3") as typeof import("@noble/hashes/sha3")).keccak_256;
  const h = keccak(data);
  return Buffer.from(h.buffer, h.byteOffset, h.byteLength);
}

/** keccak256("") — the code hash of an account without code. */
export const EMPTY_CODE_HASH: Buffer = Buffer.from(
  "c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470",
  "hex",
);

/** keccak256(rlp("")) — the storage root of an account without storage (the empty trie). */
export const EMPTY_TRIE_ROOT: Buffer = Buffer.from(
  "56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421",
  "hex",
);
