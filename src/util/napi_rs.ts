/**
 * A napi-rs package's native binding (@node-rs/crc32, @node-rs/xxhash, lz4-napi, snappy). Each such
 * package's own loader (its index.js) reads /usr/bin/ldd to tell glibc from musl, tries a file beside
 * itself (a failed require: an exception with its stack), requires the platform package and then
 * that package's package.json: ~2-4 ms per package, on every run that loads one, against ~1-3 ms for
 * the binding itself (`inspect` of ten tables with XXH3 checksums loads two, in a run of ~0.1 s). On
 * glibc Linux the platform package's binary, in the first of require()'s lookup directories that
 * holds the platform package, is loaded straight away (process.dlopen, what require() does for a .node file); anywhere
 * else, or when that fails (on musl its binary does not load), require() resolves the platform package
 * and then the package's loader decides.
 *
 * Why not require() the platform package: Node's resolution of a bare name from the bundle stats each
 * node_modules on the way up, reads the package's package.json for its `main` and takes the real path
 * of the result component by component: 0.4-0.6 ms of the ~1.5 ms a binding took in `inspect`'s run
 * (crc32c, XXH3, LZ4 in `--deep`: ~1.5 ms of a ~75 ms run on ten realistic tables).
 */
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";

const require = createRequire(import.meta.url);

/** Architectures napi-rs publishes glibc Linux builds for under `<package>-linux-<arch>-gnu`. */
const GNU_ARCHES = new Set(["x64", "arm64"]);

/**
 * The directory of package `name` in the first of require()'s lookup directories that holds it (Node's
 * own list: node_modules up from here, then NODE_PATH and the global folders).
 */
function packageDir(name: string): string | undefined {
  for (const dir of require.resolve.paths(name) ?? []) {
    const candidate = join(dir, name);
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}

/** The binary at `file`, loaded as require() loads a .node file; undefined when it is not there or fails. */
function loadBinary<T>(file: string): T | undefined {
  if (!existsSync(file)) return undefined;
  const module = { exports: {} as T };
  try {
    process.dlopen(module, file);
  } catch {
    return undefined; // another libc, a damaged file: require() and the package's loader decide
  }
  return module.exports;
}

/**
 * The binding `pkg` exports. `binary`: its binaries' base name (`crc32` for crc32.linux-x64-gnu.node);
 * `platformPrefix`: the name its platform packages start with, when not the package's own (lz4-napi's
 * are `@antoniomuso/lz4-napi-…`, snappy's `@napi-rs/snappy-…`).
 */
export function napiRsBinding<T>(pkg: string, binary: string, platformPrefix: string = pkg): T {
  if (process.platform === "linux" && GNU_ARCHES.has(process.arch)) {
    const platformPkg = `${platformPrefix}-linux-${process.arch}-gnu`;
    const dir = packageDir(platformPkg);
    const loaded = dir && loadBinary<T>(join(dir, `${binary}.linux-${process.arch}-gnu.node`));
    if (loaded) return loaded;
    try {
      return require(platformPkg) as T;
    } catch {
      // not installed here, or not a glibc system: the package's loader knows
    }
  }
  return require(pkg) as T;
}
