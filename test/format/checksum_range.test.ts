/**
 * computeChecksumRange (the scan's block check, on a range of a larger buffer, XXH3 through
 * hash-wasm once prepareChecksums() has loaded it) gives what computeChecksum gives on a copy of the
 * range, for every checksum type, around XXH3's length classes (0-16, 17-128, 129-240, longer, past
 * one 1 KiB stripe block) and at unaligned offsets. The WASM XXH3 is checked against the native
 * binding here; tables RocksDB checksummed with XXH3 are read through it by the sizes and damage
 * tests (sizes --full loads it before scanning).
 */
import { describe, expect, it } from "vitest";
import { randomBytes } from "node:crypto";
import { computeChecksum, computeChecksumRange, prepareChecksums } from "../../src/format/checksum.js";
import { ChecksumType } from "../../src/base/checksum_type.js";

const LENGTHS = [0, 1, 3, 4, 8, 9, 16, 17, 128, 129, 240, 241, 1024, 1025, 4096, 4101, 16389, 65536];
const TYPES = [ChecksumType.CRC32c, ChecksumType.XXHash, ChecksumType.XXHash64, ChecksumType.XXH3];

function check(): void {
  for (const type of TYPES)
    for (const n of LENGTHS) {
      const buf = randomBytes(n + 13);
      const start = 5 + (n % 7);
      const copy = Buffer.from(buf.subarray(start, start + n));
      expect(computeChecksumRange(type, buf, start, start + n), `type ${type}, ${n} bytes`).toBe(
        computeChecksum(type, copy),
      );
    }
}

describe("computeChecksumRange", () => {
  it("matches computeChecksum on a copy (native XXH3)", () => check());

  it("matches computeChecksum on a copy, and the native binding's XXH3, with the WASM XXH3 loaded", async () => {
    const native = LENGTHS.map((n) => {
      const b = Buffer.alloc(n + 1, 0xa5);
      return computeChecksum(ChecksumType.XXH3, b);
    });
    await prepareChecksums();
    check();
    expect(LENGTHS.map((n) => computeChecksum(ChecksumType.XXH3, Buffer.alloc(n + 1, 0xa5)))).toEqual(native);
  });
});
