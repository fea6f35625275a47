/**
 * Keccak-256 (the pre-standard SHA-3 Ethereum uses) and the hashes every client store refers to.
 */
import { createRequire } from "node:module";
import { WasmHasher } from "../util/wasm_hasher.js";

// @noble/hashes (and the node:crypto it pulls in, ~10 ms) loads with the first hash, not with every
// command that can show Ethereum views
const require = createRequire(import.meta.url);
let keccak: typeof import("@noble/hashes/sha3").keccak_256 | undefined;

/** hash-wasm's Keccak-256 on this thread, once prepareKeccak() has loaded it. */
const wasmKeccak = new WasmHasher(() =>
  (require("hash-wasm/dist/keccak.umd.min.js") as typeof import("hash-wasm")).createKeccak(256),
);

/**
 * Load hash-wasm's WebAssembly Keccak-256 on this thread (~8 ms): keccak256() uses it from then on.
 * For work that hashes much: here it took 0.62 us for a 32-byte key and 28 us for 10 KB of code
 * where @noble/hashes took 8.9 and 560 us (18 MB/s), and `sizes --full` hashes every contract's
 * code where a store keys code by account hash (Besu). Never rejects: without WebAssembly the
 * hashes stay @noble/hashes' (the same digests).
 */
export function prepareKeccak(): Promise<void> {
  return wasmKeccak.prepare();
}

/** Which Keccak-256 keccak256() runs on this thread now: hash-wasm's (prepareKeccak) or noble's. */
export function keccakImplementation(): "wasm" | "js" {
  return wasmKeccak.hasher === undefined ? "js" : "wasm";
}

/** keccak256(data) as a Buffer of 32 bytes. */
export function keccak256(data: Uint8Array): Buffer {
  const w = wasmKeccak.hasher;
  let h: Uint8Array;
  if (w !== undefined) {
    w.init();
    w.update(data);
    h = w.digest("binary"); // a new array each call
  } else {
    keccak ??= (require("@noble/hashes/sha3") as typeof import("@noble/hashes/sha3")).keccak_256;
    h = keccak(data);
  }
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
