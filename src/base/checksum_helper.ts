/**
 * The checksum helper (build/Release/lsmscope_checksum.node, native/checksum.c): crc32c through Intel's
 * ISA-L and XXH32, XXH64 and XXH3 through xxHash, the system's libraries (libisal-dev, libxxhash-dev).
 * Where it is built the formats' checksums go through it, else through the npm bindings
 * (@node-rs/crc32, @node-rs/xxhash; base/crc.ts and format/checksum.ts), which give the same values:
 * loading those two costs ~4 ms of every run that checks a block, against ~0.8 ms for the helper, and
 * their XXH3 returns a BigInt (1.9 us a 4 KiB block here, the helper's 0.11 us; its crc32c 0.13 us
 * against 0.78). Each call checks src[start, end) of a Uint8Array: no view made per block.
 */
import { nativeHelper } from "../util/package_root.js";

export interface ChecksumHelper {
  /** crc32c (Castagnoli) of src[start, end), unmasked, as a uint32. */
  crc32c(src: Uint8Array, start: number, end: number): number;
  /** XXH32 (seed 0). */
  xxh32(src: Uint8Array, start: number, end: number): number;
  /** The low 32 bits of XXH64 (seed 0). */
  xxh64Low32(src: Uint8Array, start: number, end: number): number;
  /** The low 32 bits of XXH3-64 (seed 0). */
  xxh3Low32(src: Uint8Array, start: number, end: number): number;
}

/** The helper once looked for (null: not built, not loadable here, or LSMSCOPE_NATIVE_CHECKSUM=0). */
let helper: ChecksumHelper | null | undefined;

function load(): ChecksumHelper | null {
  if (process.env.LSMSCOPE_NATIVE_CHECKSUM === "0") return null;
  // not built, or built for another Node or machine: the npm bindings check, as without it
  const m = nativeHelper("lsmscope_checksum");
  const calls = ["crc32c", "xxh32", "xxh64Low32", "xxh3Low32"];
  return m && calls.every((c) => typeof m[c] === "function") ? (m as unknown as ChecksumHelper) : null;
}

/** The checksum helper, or null where the npm bindings check. */
export function checksumHelper(): ChecksumHelper | null {
  if (helper === undefined) helper = load();
  return helper;
}

/**
 * Check through the helper where it is built (true, the default) or through the npm bindings alone
 * (false): for the tests that hold the two to the same values. Returns whether the helper is in use.
 */
export function useChecksumHelper(on: boolean): boolean {
  helper = on ? load() : null;
  return helper !== null;
}
