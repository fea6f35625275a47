import { crc32c } from "@node-rs/crc32";
import { describe, expect, it } from "vitest";
import { maskCrc32c, maskedCrc32c, unmaskCrc32c } from "../../src/base/crc.js";
import {
  decodeInternalKey,
  isTombstone,
  parseInternalKey,
  valueTypeName,
  ValueType,
  VALUE_TYPE_NAMES,
} from "../../src/base/internal_key.js";
import {
  CompressionType,
  compressionName,
  compressionNameFromOptions,
} from "../../src/base/compression_type.js";
import { CHECKSUM_NAMES, ChecksumType, checksumNameFromOptions } from "../../src/base/checksum_type.js";
import { indexTypeName, indexTypeNameFromOptions } from "../../src/base/index_type.js";
import { BYTEWISE_COMPARATOR, compareBytewise, isBytewiseComparator } from "../../src/base/comparator.js";
import { wrapDecodeError } from "../../src/format/errors.js";
import { CorruptionError } from "../../src/util/errors.js";

describe("crc mask", () => {
  it("matches LevelDB's crc32c vectors and round-trips (util/crc32c_test.cc)", () => {
    // crc32c of 32 zero bytes and of 0..31 (LevelDB's StandardResults)
    expect(crc32c(Buffer.alloc(32)) >>> 0).toBe(0x8a9136aa);
    const inc = Buffer.from(Array.from({ length: 32 }, (_, i) => i));
    expect(crc32c(inc) >>> 0).toBe(0x46dd794e);
    for (const c of [0, 1, 0x8a9136aa, 0x46dd794e, 0xffffffff]) {
      expect(unmaskCrc32c(maskCrc32c(c))).toBe(c);
      expect(unmaskCrc32c(unmaskCrc32c(maskCrc32c(maskCrc32c(c))))).toBe(c);
    }
    expect(maskCrc32c(0x8a9136aa)).not.toBe(0x8a9136aa);
    // the stored form of a crc, as the block trailers and records hold it
    expect(maskedCrc32c(Buffer.alloc(32))).toBe(maskCrc32c(0x8a9136aa));
    expect(unmaskCrc32c(maskedCrc32c(inc))).toBe(0x46dd794e);
  });
});

describe("internal keys", () => {
  it("splits user key, sequence number and type the same way in both decoders", () => {
    const seq = 0x123456789ab; // above 2^32
    const trailer = Buffer.alloc(8);
    trailer.writeBigUInt64LE((BigInt(seq) << 8n) | BigInt(ValueType.BlobIndex));
    const key = Buffer.concat([Buffer.from("user"), trailer]);
    expect(decodeInternalKey(key)).toEqual({ userKey: key.subarray(0, 4), seqno: seq, type: 0x11 });
    expect(parseInternalKey(key)).toEqual({ userKey: Buffer.from("user"), seqno: seq, type: 0x11 });
    expect(parseInternalKey(Buffer.alloc(7))).toBeUndefined();
    expect(() => decodeInternalKey(Buffer.alloc(7))).toThrow(RangeError);
  });

  it("one tombstone test: Deletion, SingleDeletion and DeletionWithTimestamp", () => {
    const tomb = Object.keys(VALUE_TYPE_NAMES)
      .map(Number)
      .filter((t) => isTombstone(t));
    expect(tomb).toEqual([ValueType.Deletion, ValueType.SingleDeletion, ValueType.DeletionWithTimestamp]);
  });

  it("names every type byte once", () => {
    expect(valueTypeName(0x14)).toBe("deletion-with-timestamp");
    expect(valueTypeName(0x3)).toBe("log-data");
    expect(valueTypeName(0x42)).toBe("type-0x42");
  });
});

describe("table option enums", () => {
  it("compression: OPTIONS spelling and the trailer byte give the same display name", () => {
    const pairs: [string, CompressionType][] = [
      ["kNoCompression", CompressionType.None],
      ["kSnappyCompression", CompressionType.Snappy],
      ["kZlibCompression", CompressionType.Zlib],
      ["kBZip2Compression", CompressionType.BZip2],
      ["kLZ4Compression", CompressionType.LZ4],
      ["kLZ4HCCompression", CompressionType.LZ4HC],
      ["kXpressCompression", CompressionType.Xpress],
      ["kZSTD", CompressionType.ZSTD],
      ["kZSTDNotFinalCompression", CompressionType.ZSTDNotFinal],
    ];
    for (const [o, t] of pairs) expect(compressionNameFromOptions(o)).toBe(compressionName(t));
    expect(compressionName(CompressionType.LZ4)).toBe("LZ4");
    expect(compressionName(9)).toBe("Unknown(0x09)");
    expect(compressionNameFromOptions("kDisableCompressionOption")).toBeUndefined();
  });

  it("checksum and index type: OPTIONS spelling → display name", () => {
    expect(checksumNameFromOptions("kXXH3")).toBe(CHECKSUM_NAMES[ChecksumType.XXH3]);
    expect(checksumNameFromOptions("kxxHash64")).toBe("xxhash64");
    expect(checksumNameFromOptions("kNoChecksum")).toBe("none");
    expect(indexTypeNameFromOptions("kTwoLevelIndexSearch")).toBe(indexTypeName(2));
    expect(indexTypeNameFromOptions("kBinarySearchWithFirstKey")).toBe("binary-search-with-first-key");
    expect(indexTypeName(4)).toBeUndefined();
  });
});

describe("format/errors.ts", () => {
  it("turns a decoder's RangeError into a CorruptionError naming the block, and leaves a TypeError (our bug) alone", () => {
    const range = () => wrapDecodeError(new RangeError("varint runs past end"), "/x/1.sst", "index", 12);
    expect(range).toThrow(CorruptionError);
    expect(range).toThrow(/index block: varint runs past end/);
    const bug = new TypeError("cannot read properties of undefined");
    expect(() => wrapDecodeError(bug, "/x/1.sst", "index", 12)).toThrow(bug);
  });
});

describe("comparator names", () => {
  it("bytewise: the engines' default name, its alias, or none given; nothing else", () => {
    for (const n of [BYTEWISE_COMPARATOR, "rocksdb.BytewiseComparator", "", undefined])
      expect(isBytewiseComparator(n), String(n)).toBe(true);
    for (const n of [
      "rocksdb.ReverseBytewiseComparator",
      "leveldb.BytewiseComparator.u64ts",
      "cockroach_comparator",
    ])
      expect(isBytewiseComparator(n), n).toBe(false);
  });
});

describe("compareBytewise", () => {
  it("orders byte ranges as Buffer.compare does (memcmp, then the shorter first), offsets on both sides", () => {
    // short keys over a small alphabet, so that equal prefixes, prefixes of each other and equal keys
    // all occur often
    let seed = 12345;
    const next = (n: number) => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % n;
    const pool = Buffer.from(Array.from({ length: 4096 }, () => [0, 1, 127, 128, 255][next(5)]!));
    const view = new Uint8Array(pool.buffer, pool.byteOffset, pool.length);
    const seen = { less: 0, equal: 0, greater: 0 };
    for (let t = 0; t < 20_000; t++) {
      const aStart = next(4000);
      const aEnd = aStart + next(7);
      const bStart = next(4000);
      const bEnd = bStart + next(7);
      const want = Math.sign(pool.compare(pool, bStart, bEnd, aStart, aEnd));
      const got = Math.sign(compareBytewise(pool, aStart, aEnd, view, bStart, bEnd));
      expect(got, `${aStart}-${aEnd} against ${bStart}-${bEnd}`).toBe(want);
      if (got < 0) seen.less++;
      else if (got === 0) seen.equal++;
      else seen.greater++;
    }
    expect(Math.min(seen.less, seen.equal, seen.greater)).toBeGreaterThan(500);
  });
});
