/**
 * A napi-rs package's native binding (@node-rs/crc32, @node-rs/xxhash, lz4-napi, snappy). Each such
 * package's own loader (its index.js) reads /usr/bin/ldd to tell glibc from musl, tries a file beside
 * itself (a failed require: an exception with its stack), requires the platform package and then
 * that package's package.json: ~2-4 ms per package, on every run that loads one, against ~1-3 ms for
 * the binding itself (`inspect` of ten tables with XXH3 checksums loads two, in a run of ~0.1 s). On
 * glibc Linux the platform package, when installed beside the package, is required straight away;
 * anywhere else, or when that fails (on musl its binary does not load), the package's loader decides.
 */
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

/** Architectures napi-rs publishes glibc Linux builds for under `<package>-linux-<arch>-gnu`. */
const GNU_ARCHES = new Set(["x64", "arm64"]);

/**
 * The binding `pkg` exports; `platformPrefix`: the name its platform packages start with, when not
 * the package's own (lz4-napi's are `@antoniomuso/lz4-napi-…`, snappy's `@napi-rs/snappy-…`).
 */
export function napiRsBinding<T>(pkg: string, platformPrefix: string = pkg): T {
  if (process.platform === "linux" && GNU_ARCHES.has(process.arch)) {
    try {
      return require(`${platformPrefix}-linux-${process.arch}-gnu`) as T;
    } catch {
      // not installed here, or not a glibc system: the package's loader knows
    }
  }
  return require(pkg) as T;
}
