/**
 * The block checksums through each implementation lsmscope has: the checksum helper (native/checksum.c,
 * over ISA-L and xxHash, where it is built), the npm bindings (@node-rs/crc32, @node-rs/xxhash) and
 * hash-wasm's XXH3 (loaded by prepareChecksums() where the helper is not built). computeChecksumRange
 * (the scan's block check, on a range of a larger buffer) gives what computeChecksum gives on a copy of
 * the range, for every checksum type, around XXH3's length classes (0-16, 17-128, 129-240, longer, past
 * one 1 KiB stripe block) and at unaligned offsets; the three implementations give the same values,
 * and the published test vectors. Tables RocksDB and LevelDB checksummed are read through them by
 * the sizes and damage tests.
 */
import { afterAll, describe, expect, it } from "vitest";
import { randomBytes } from "node:crypto";
import { computeChecksum, computeChecksumRange, prepareChecksums } from "../../src/format/checksum.js";
import { ChecksumType } from "../../src/base/checksum_type.js";
import { checksumHelper, useChecksumHelper } from "../../src/base/checksum_helper.js";
import { crc32c, crc32cRange } from "../../src/base/crc.js";

const LENGTHS = [0, 1, 3, 4, 8, 9, 16, 17, 128, 129, 240, 241, 1024, 1025, 4096, 4101, 16389, 65536, 1 << 20];
const TYPES = [ChecksumType.CRC32c, ChecksumType.XXHash, ChecksumType.XXHash64, ChecksumType.XXH3];

/** Random buffers with a range of each length at an unaligned offset. */
const CASES = LENGTHS.map((n) => ({ n, buf: randomBytes(n + 13), start: 5 + (n % 7) }));

function check(): void {
  for (const type of TYPES)
    for (const { n, buf, start } of CASES) {
      const copy = Buffer.from(buf.subarray(start, start + n));
      expect(computeChecksumRange(type, buf, start, start + n), `type ${type}, ${n} bytes`).toBe(
        computeChecksum(type, copy),
      );
    }
}

/** Every type's checksum of every case, through what is in use now. */
const all = () =>
  TYPES.flatMap((type) =>
    CASES.map(({ n, buf, start }) => computeChecksumRange(type, buf, start, start + n)),
  );

// where the helper is built (CI's set-up installs its libraries), the npm bindings' run is the other
const helperBuilt = useChecksumHelper(true);
afterAll(() => useChecksumHelper(true));

describe("computeChecksumRange", () => {
  it("matches computeChecksum on a copy, with the helper where it is built", () => check());

  it("matches computeChecksum on a copy through the npm bindings (native XXH3)", () => {
    useChecksumHelper(false);
    check();
    useChecksumHelper(true);
  });

  it("matches computeChecksum on a copy, and the native binding's XXH3, with the WASM XXH3 loaded", async () => {
    useChecksumHelper(false);
    const native = LENGTHS.map((n) => computeChecksum(ChecksumType.XXH3, Buffer.alloc(n + 1, 0xa5)));
    await prepareChecksums();
    check();
    expect(LENGTHS.map((n) => computeChecksum(ChecksumType.XXH3, Buffer.alloc(n + 1, 0xa5)))).toEqual(native);
    useChecksumHelper(true);
  });
});

describe("the checksum helper", () => {
  it.runIf(helperBuilt)("gives the npm bindings' values for every type, length and offset", () => {
    const helper = all();
    useChecksumHelper(false);
    const bindings = all();
    useChecksumHelper(true);
    expect(helper).toEqual(bindings);
  });

  it("gives the published test vectors (crc32c, XXH32, XXH64, XXH3-64), helper and bindings alike", () => {
    for (const on of helperBuilt ? [true, false] : [false]) {
      useChecksumHelper(on);
      // crc32c("123456789") = 0xE3069283 (RFC 3720's check value)
      expect(crc32c(Buffer.from("123456789")) >>> 0, `helper ${on}`).toBe(0xe3069283);
      expect(crc32cRange(Buffer.from("xx123456789y"), 2, 11) >>> 0).toBe(0xe3069283);
      // of no bytes, seed 0: XXH32 0x02CC5D05, XXH64 0xEF46DB3751D8E999, XXH3-64 0x2D06800538D394C2
      // (xxHash's own tests); the block checksums take their low 32 bits, XXH3 over all but the
      // last byte (here one byte, 0: its modifier is 0)
      expect(computeChecksum(ChecksumType.XXHash, Buffer.alloc(0))).toBe(0x02cc5d05);
      expect(computeChecksum(ChecksumType.XXHash64, Buffer.alloc(0))).toBe(0x51d8e999);
      expect(computeChecksum(ChecksumType.XXH3, Buffer.alloc(1))).toBe(0x38d394c2);
    }
    useChecksumHelper(true);
  });

  it("refuses a range outside its array (a RangeError, as a view would: the readers locate it) and what is not a Uint8Array (a TypeError)", () => {
    const b = Buffer.alloc(8);
    for (const on of helperBuilt ? [true, false] : [false]) {
      useChecksumHelper(on);
      expect(() => crc32cRange(b, 0, 9), `helper ${on}`).toThrow(RangeError);
      expect(() => crc32cRange(b, 5, 4)).toThrow(RangeError);
      expect(() => crc32cRange(b, -1, 4)).toThrow(RangeError);
    }
    useChecksumHelper(true);
    if (!helperBuilt) return;
    const h = checksumHelper()!;
    expect(() => h.xxh3Low32(b, 5, 4)).toThrow(RangeError);
    expect(() => h.xxh32(b, 0, 9)).toThrow(RangeError);
    expect(() => h.xxh64Low32(b, 0.5, 4)).toThrow(RangeError);
    expect(() => h.crc32c(new Uint16Array(4) as unknown as Uint8Array, 0, 2)).toThrow(TypeError);
    expect(() => (h.crc32c as unknown as (b: Uint8Array) => number)(b)).toThrow(TypeError);
    // a view: its own offset counts, not its buffer's start
    const view = Buffer.from("xx123456789").subarray(2);
    expect(h.crc32c(view, 0, view.length)).toBe(0xe3069283);
  });
});
