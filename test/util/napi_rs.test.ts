/**
 * util/napi_rs.ts: a napi-rs package's binding, from its glibc platform package's binary straight away
 * where that is installed, else through require() of the platform package, else through the package's
 * own loader; a working binding every way.
 */
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { napiRsBinding } from "../../src/util/napi_rs.js";

const require = createRequire(import.meta.url);
type Crc32 = typeof import("@node-rs/crc32");
const glibcX64 = process.platform === "linux" && process.arch === "x64";
const nodeFilesRequired = () => Object.keys(require.cache).filter((f) => f.endsWith(".node"));

describe("napiRsBinding", () => {
  it("loads the platform package's binary without require() where it is installed (glibc Linux)", () => {
    const before = new Set(nodeFilesRequired());
    const b = napiRsBinding<Crc32>("@node-rs/crc32", "crc32");
    expect(b.crc32c(Buffer.from("123456789")) >>> 0).toBe(0xe3069283); // CRC-32C's check value
    // require() would have resolved the package and cached the binary under its path
    if (glibcX64) expect(nodeFilesRequired().filter((f) => !before.has(f))).toEqual([]);
  });

  it("requires the platform package when its binary is not where the name says", () => {
    const b = napiRsBinding<Crc32>("@node-rs/crc32", "no-such-binary");
    expect(b.crc32c(Buffer.from("123456789")) >>> 0).toBe(0xe3069283);
    if (glibcX64) expect(b).toBe(require("@node-rs/crc32-linux-x64-gnu"));
  });

  it("falls back on the package's loader when no platform package answers to the prefix", () => {
    const b = napiRsBinding<Crc32>("@node-rs/crc32", "crc32", "@lsmscope-test/no-such-package");
    expect(b.crc32c(Buffer.from("123456789")) >>> 0).toBe(0xe3069283);
    expect(b).toBe(require("@node-rs/crc32"));
  });

  it("names lz4-napi's and snappy's platform packages by their own prefixes", () => {
    const lz4 = napiRsBinding<typeof import("lz4-napi")>("lz4-napi", "lz4-napi", "@antoniomuso/lz4-napi");
    const snappy = napiRsBinding<typeof import("snappy")>("snappy", "snappy", "@napi-rs/snappy");
    const text = Buffer.from("lsmscope ".repeat(50));
    expect(Buffer.from(lz4.uncompressSync(require("lz4-napi").compressSync(text)))).toEqual(text);
    expect(Buffer.from(snappy.uncompressSync(require("snappy").compressSync(text)) as Buffer)).toEqual(text);
  });
});
