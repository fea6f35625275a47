/**
 * A hash-wasm hasher, loaded on a thread when asked for. hash-wasm's WebAssembly hashes run several
 * times faster than what lsmscope otherwise has (format/checksum.ts: XXH3, 3x the native binding;
 * eth/keccak.ts: Keccak-256, 14-20x @noble/hashes), but loading one costs a few milliseconds that
 * most runs need not pay: the work that hashes much asks for it first, and until then, or where
 * WebAssembly is missing, the module hashes as it did without.
 */
import type { IHasher } from "hash-wasm";

export class WasmHasher {
  /** The hasher, once prepare() has loaded it on this thread; undefined before, or if it failed. */
  hasher: IHasher | undefined;
  private loading: Promise<void> | undefined;

  /** `create`: loads hash-wasm's module for the hash and creates its hasher. */
  constructor(private readonly create: () => Promise<IHasher>) {}

  /** Load the hasher (once). Never rejects: failing to load leaves `hasher` undefined. */
  prepare(): Promise<void> {
    return (this.loading ??= (async () => {
      try {
        this.hasher = await this.create();
      } catch {
        // no WebAssembly here: the caller's other implementation hashes
      }
    })());
  }
}
