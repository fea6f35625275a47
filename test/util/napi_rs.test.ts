/**
 * util/napi_rs.ts: a napi-rs package's binding, from its glibc platform package straight away where
 * that is installed, else through the package's own loader; the same binding either way.
 */
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { napiRsBinding } from "../../src/util/napi_rs.js";

const require = createRequire(import.meta.url);
type Crc32 = typeof import("@node-rs/crc32");

describe("napiRsBinding", () => {
  it("gives the platform package's binding where it is installed (glibc Linux)", () => {
    const b = napiRsBinding<Crc32>("@node-rs/crc32");
    expect(b.crc32c(Buffer.from("123456789")) >>> 0).toBe(0xe3069283); // CRC-32C's check value
    if (process.platform === "linux" && process.arch === "x64")
      expect(b).toBe(require("@node-rs/crc32-linux-x64-gnu"));
  });

  it("falls back on the package's loader when no platform package answers to the prefix", () => {
    const b = napiRsBinding<Crc32>("@node-rs/crc32", "@lsmscope-test/no-such-package");
    expect(b.crc32c(Buffer.from("123456789")) >>> 0).toBe(0xe3069283);
    expect(b).toBe(require("@node-rs/crc32"));
  });

  it("names lz4-napi's and snappy's platform packages by their own prefixes", () => {
    const lz4 = napiRsBinding<typeof import("lz4-napi")>("lz4-napi", "@antoniomuso/lz4-napi");
    const snappy = napiRsBinding<typeof import("snappy")>("snappy", "@napi-rs/snappy");
    const text = Buffer.from("lsmscope ".repeat(50));
    expect(Buffer.from(lz4.uncompressSync(require("lz4-napi").compressSync(text)))).toEqual(text);
    expect(Buffer.from(snappy.uncompressSync(require("snappy").compressSync(text)) as Buffer)).toEqual(text);
    if (process.platform === "linux" && process.arch === "x64") {
      expect(lz4).toBe(require("@antoniomuso/lz4-napi-linux-x64-gnu"));
      expect(snappy).toBe(require("@napi-rs/snappy-linux-x64-gnu"));
    }
  });
});
