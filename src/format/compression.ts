/**
 * Block decompression (util/compression.h in RocksDB; snappy only in LevelDB).
 *
 * The trailer's type byte says how a block is stored:
 *   0x00 none    0x01 Snappy   0x02 zlib (LevelDB >= 1.23: zstd)   0x03 bzip2   0x04 LZ4
 *   0x05 LZ4HC   0x06 XPRESS   0x07 ZSTD   0x40 ZSTD (pre-1.0 "not final" id)
 *
 * Stored payloads (RocksDB "compress_format_version" 2, used from table format_version 2):
 *   Snappy            raw Snappy (carries its own uncompressed length)
 *   zlib              varint32 uncompressed size, then a raw deflate stream (window_bits -14 by
 *                     default; a positive window_bits writes a zlib header, which we also accept)
 *   LZ4 / LZ4HC       varint32 uncompressed size, then one raw LZ4 block (optionally with dictionary)
 *   ZSTD              varint32 uncompressed size, then one zstd frame (optionally with dictionary)
 * compress_format_version 1 (format_version 0/1 tables): zlib without size prefix; LZ4 with an 8-byte
 * header whose first 4 bytes are the uncompressed size.
 *
 * Every codec is a maintained library: Snappy (snappy), LZ4/LZ4HC (lz4-napi), zlib (node:zlib) and
 * ZSTD (zstd-napi, with the dictionary loaded once per table). Where the addon build made the block
 * codec helper (native/codec.c over the system's libsnappy and liblz4), Snappy blocks and LZ4 blocks
 * without a dictionary go through it instead, into a buffer the caller chooses (BlockOutput). Declared
 * sizes are checked against the stored size and LIMITS before anything is decompressed, so a hostile
 * block cannot ask for gigabytes.
 */
import { createRequire } from "node:module";
import type { uncompressSync as Lz4UncompressSync } from "lz4-napi";
import type { uncompressSync as SnappyUncompressSync } from "snappy";
import type { Decompressor } from "zstd-napi";
import { CompressionType, compressionName } from "../base/compression_type.js";
import { LIMITS } from "../util/limits.js";
import { napiRsBinding } from "../util/napi_rs.js";
import { nativeHelper } from "../util/package_root.js";

// The native codecs load on the first block that needs them, not with this module: loading all three
// cost ~25 ms per thread (every worker, every CLI run), and most stores use one codec or none.
const require = createRequire(import.meta.url);
let lz4Fn: typeof Lz4UncompressSync | undefined;
let snappyFn: typeof SnappyUncompressSync | undefined;
let ZstdDecompressor: typeof Decompressor | undefined;
function lz4(): typeof Lz4UncompressSync {
  return (lz4Fn ??= napiRsBinding<typeof import("lz4-napi")>(
    "lz4-napi",
    "lz4-napi",
    "@antoniomuso/lz4-napi",
  ).uncompressSync);
}
// node:zlib too (it loads node's stream modules): only zlib blocks need it
let zlib: typeof import("node:zlib") | undefined;
const inflate = () => (zlib ??= require("node:zlib") as typeof import("node:zlib"));
function snappy(): typeof SnappyUncompressSync {
  return (snappyFn ??= napiRsBinding<typeof import("snappy")>(
    "snappy",
    "snappy",
    "@napi-rs/snappy",
  ).uncompressSync);
}

/**
 * The block codec helper (build/Release/lsmscope_codec.node, native/codec.c): each call decompresses
 * src[start, end) into dst[0, capacity) and returns the bytes written, or -1 (damaged, or too long).
 */
interface NativeCodec {
  snappyInto(src: Uint8Array, start: number, end: number, dst: Uint8Array, capacity: number): number;
  lz4Into(src: Uint8Array, start: number, end: number, dst: Uint8Array, capacity: number): number;
}

/**
 * The helper, once looked for (null: not built, not loadable, or LSMSCOPE_NATIVE_CODEC=0). The npm
 * bindings return a new buffer for every block (their own allocation, a copy into memory V8 owns and
 * a collection later): 5-11 us a 4 KiB Snappy block here against ~1 us into a buffer already touched
 * (README, Performance: the block codec).
 */
let nativeCodec: NativeCodec | null | undefined;

function loadNativeCodec(): NativeCodec | null {
  if (process.env.LSMSCOPE_NATIVE_CODEC === "0") return null;
  // not built, or built for another Node or machine: the npm bindings decompress, as without it
  const m = nativeHelper("lsmscope_codec");
  return typeof m?.snappyInto === "function" && typeof m.lz4Into === "function"
    ? (m as unknown as NativeCodec)
    : null;
}

function native(): NativeCodec | null {
  if (nativeCodec === undefined) nativeCodec = loadNativeCodec();
  return nativeCodec;
}

/**
 * Decompress through the block codec helper where it is built (true, the default) or through the npm
 * bindings alone (false): for the tests that hold the two to the same bytes. Returns whether the
 * helper is in use.
 */
export function useNativeCodec(on: boolean): boolean {
  nativeCodec = on ? loadNativeCodec() : null;
  return nativeCodec !== null;
}

/**
 * Where a block's decompressed bytes go: a buffer of at least `size` bytes, whose first `size` the
 * block then fills (a reader's buffer reused from block to block, for a caller done with each block
 * before it reads the next). Without one, a buffer of the block's own.
 */
export type BlockOutput = (size: number) => Buffer;

/** Spare bytes kept in front of every block buffer so the LZ4 size prefix can be rewritten in place. */
export const BLOCK_HEADROOM = 8;

/** Thrown for a block that cannot be decompressed; the table reader adds file/block/offset. */
export class DecompressError extends Error {}

export interface Codecs {
  /** compress_format_version: 2 for table format_version >= 2, else 1. */
  compressFormatVersion: 1 | 2;
  /** LevelDB tables: type 0x02 is zstd, not zlib. */
  leveldb: boolean;
  /** Raw dictionary from the "rocksdb.compression_dict" meta block, if any. */
  dictionary?: Uint8Array;
  zstd?: Decompressor;
}

export function createCodecs(formatVersion: number, leveldb: boolean): Codecs {
  return { compressFormatVersion: formatVersion >= 2 ? 2 : 1, leveldb };
}

/** Where the payload starts after the last readSizeVarint (no tuple allocated per block). */
let sizeVarintEnd = 0;

/** The varint32 uncompressed size at `start` (its end in sizeVarintEnd). */
function readSizeVarint(buf: Uint8Array, start: number, end: number): number {
  let result = 0;
  let p = start;
  for (let shift = 0; shift <= 28; shift += 7) {
    if (p >= end) throw new DecompressError("uncompressed size prefix runs past the block end");
    const b = buf[p++]!;
    result += (b & 0x7f) * 2 ** shift;
    if (b < 0x80) {
      if (result > LIMITS.maxUncompressedBlockBytes) {
        throw new DecompressError(`declared uncompressed size ${result} exceeds the limit`);
      }
      sizeVarintEnd = p;
      return result;
    }
  }
  throw new DecompressError("bad uncompressed size prefix");
}

function checkLength(got: number, want: number, codec: string): void {
  if (got !== want) throw new DecompressError(`${codec}: decompressed ${got} bytes, block declares ${want}`);
}

function getZstd(codecs: Codecs): Decompressor {
  if (!codecs.zstd) {
    ZstdDecompressor ??= (require("zstd-napi") as typeof import("zstd-napi")).Decompressor;
    const d = new ZstdDecompressor();
    if (codecs.dictionary && codecs.dictionary.length > 0) d.loadDictionary(codecs.dictionary);
    codecs.zstd = d;
  }
  return codecs.zstd;
}

/**
 * Decompress the stored block `buf[start, end)` of compression `type`. Returns the uncompressed
 * contents (a view of `buf` for type none; in `output`'s buffer where the block codec helper
 * decompresses it). `buf` must keep BLOCK_HEADROOM spare bytes before `start`.
 */
export function decompressBlock(
  codecs: Codecs,
  type: number,
  buf: Buffer,
  start: number,
  end: number,
  output?: BlockOutput,
): Buffer {
  switch (type) {
    case CompressionType.None:
      return buf.subarray(start, end);
    case CompressionType.Snappy: {
      // Snappy's own preamble is a varint32 of the uncompressed length
      const size = readSizeVarint(buf, start, end);
      // the densest Snappy element, a 3-byte copy, yields 64 bytes
      if (size > 32 * (end - start) + 1024) {
        throw new DecompressError(`Snappy: declared size ${size} impossible for ${end - start} stored bytes`);
      }
      const helper = native();
      if (helper !== null) return intoOutput(helper.snappyInto, buf, start, end, size, output, "Snappy");
      let out: Buffer;
      try {
        // copied into memory V8 owns: an external buffer (the default) is freed by a finalizer that runs
        // only when the thread returns to the event loop, which a scan does not do between blocks, so
        // every block decompressed stayed allocated until the scan ended (sizes --full of a 1.1 GB
        // store of Snappy tables in Nethermind's layout peaked at 2.3 GB of RSS; 70,000 4 KiB blocks
        // in a loop, 344 MB against 71)
        out = snappy()(buf.subarray(start, end), { asBuffer: true, copyOutputData: true }) as Buffer;
      } catch (err) {
        throw new DecompressError(`Snappy: ${(err as Error).message}`);
      }
      checkLength(out.length, size, "Snappy");
      return out;
    }
    case CompressionType.Zlib: {
      if (codecs.leveldb) return zstdFrame(codecs, buf.subarray(start, end), -1);
      let size = -1;
      let p = start;
      if (codecs.compressFormatVersion === 2) {
        size = readSizeVarint(buf, start, end);
        p = sizeVarintEnd;
      }
      const input = buf.subarray(p, end);
      const maxOutputLength = size >= 0 ? Math.max(size, 1) : LIMITS.maxUncompressedBlockBytes;
      let out: Buffer;
      try {
        out = inflate().inflateRawSync(input, { maxOutputLength });
      } catch {
        try {
          out = inflate().inflateSync(input, { maxOutputLength });
        } catch (err) {
          throw new DecompressError(`zlib: ${(err as Error).message}`);
        }
      }
      if (size >= 0) checkLength(out.length, size, "zlib");
      return out;
    }
    case CompressionType.LZ4:
    case CompressionType.LZ4HC: {
      let size: number;
      let p: number;
      if (codecs.compressFormatVersion === 2) {
        size = readSizeVarint(buf, start, end);
        p = sizeVarintEnd;
      } else {
        if (end - start < 8) throw new DecompressError("LZ4: block shorter than its header");
        size = buf.readUInt32LE(start);
        if (size > LIMITS.maxUncompressedBlockBytes)
          throw new DecompressError("LZ4: declared size too large");
        p = start + 8;
      }
      if (size > 256 * (end - p) + 1024) {
        throw new DecompressError(`LZ4: declared size ${size} impossible for ${end - p} stored bytes`);
      }
      const helper = codecs.dictionary ? null : native();
      if (helper !== null) return intoOutput(helper.lz4Into, buf, p, end, size, output, "LZ4");
      // lz4-napi wants the size as a 4-byte LE prefix: rewrite it in place over the varint (block
      // buffers keep BLOCK_HEADROOM spare bytes in front, so nothing is copied)
      const q = p - 4;
      // (bytewise: Buffer.writeUInt32LE's argument checks showed in the scan's profile)
      buf[q] = size & 0xff;
      buf[q + 1] = (size >>> 8) & 0xff;
      buf[q + 2] = (size >>> 16) & 0xff;
      buf[q + 3] = size >>> 24;
      const dict = codecs.dictionary;
      let out: Buffer;
      try {
        // a plain view, not a Buffer (subarray): one per block
        const input = new Uint8Array(buf.buffer, buf.byteOffset + q, end - q);
        out = dict ? lz4()(input, Buffer.from(dict)) : lz4()(input);
      } catch (err) {
        throw new DecompressError(`LZ4: ${(err as Error).message}`);
      }
      checkLength(out.length, size, "LZ4");
      return out;
    }
    case CompressionType.ZSTD:
    case CompressionType.ZSTDNotFinal: {
      let size = -1;
      let p = start;
      if (codecs.compressFormatVersion === 2) {
        size = readSizeVarint(buf, start, end);
        p = sizeVarintEnd;
      }
      return zstdFrame(codecs, buf.subarray(p, end), size);
    }
    case CompressionType.BZip2:
    case CompressionType.Xpress:
      throw new DecompressError(`${compressionName(type)} compression is not supported by this reader`);
    default:
      throw new DecompressError(`unknown compression type 0x${type.toString(16).padStart(2, "0")}`);
  }
}

/**
 * The block `buf[start, end)` decompressed by the helper's `into` into `output`'s buffer (or one of its
 * own), exactly `size` bytes: a view of them.
 */
function intoOutput(
  into: NativeCodec["snappyInto"],
  buf: Buffer,
  start: number,
  end: number,
  size: number,
  output: BlockOutput | undefined,
  codec: string,
): Buffer {
  const dst = output === undefined ? Buffer.allocUnsafeSlow(size) : output(size);
  const got = into(buf, start, end, dst, size);
  if (got < 0) throw new DecompressError(`${codec}: damaged block (it does not decompress to ${size} bytes)`);
  checkLength(got, size, codec);
  return dst.length === size ? dst : dst.subarray(0, size);
}

/** Content size declared in a zstd frame header (-1 if absent); lets us refuse absurd sizes early. */
function zstdFrameContentSize(input: Uint8Array): number {
  if (input.length < 5) throw new DecompressError("ZSTD: frame too short");
  if (input[0] !== 0x28 || input[1] !== 0xb5 || input[2] !== 0x2f || input[3] !== 0xfd) {
    throw new DecompressError("ZSTD: bad frame magic");
  }
  const fhd = input[4]!;
  const fcsFlag = fhd >> 6;
  const single = (fhd >> 5) & 1;
  const dictIdSize = [0, 1, 2, 4][fhd & 3]!;
  const fcsSize = fcsFlag === 0 ? single : [1, 2, 4, 8][fcsFlag]!;
  if (fcsSize === 0) return -1;
  const p = 5 + (single ? 0 : 1) + dictIdSize;
  if (p + fcsSize > input.length) throw new DecompressError("ZSTD: truncated frame header");
  let v = 0;
  for (let i = fcsSize - 1; i >= 0; i--) v = v * 256 + input[p + i]!;
  return fcsSize === 2 ? v + 256 : v;
}

function zstdFrame(codecs: Codecs, input: Uint8Array, size: number): Buffer {
  const declared = zstdFrameContentSize(input);
  if (declared > LIMITS.maxUncompressedBlockBytes || (size >= 0 && declared >= 0 && declared !== size)) {
    throw new DecompressError(`ZSTD: frame declares ${declared} bytes, block ${size}`);
  }
  let out: Buffer;
  try {
    out = getZstd(codecs).decompress(input);
  } catch (err) {
    throw new DecompressError(`ZSTD: ${(err as Error).message}`);
  }
  if (size >= 0) checkLength(out.length, size, "ZSTD");
  else if (out.length > LIMITS.maxUncompressedBlockBytes) throw new DecompressError("ZSTD: block too large");
  return out;
}

/**
 * Block counts by compression type byte (a Map, or an array indexed by the byte) as compression name ->
 * count, in type order, types with no block left out.
 */
export function compressionCounts(byType: Map<number, number> | ArrayLike<number>): Record<string, number> {
  const entries: [number, number][] =
    byType instanceof Map
      ? [...byType.entries()]
      : Array.from({ length: byType.length }, (_, t) => [t, byType[t]!] as [number, number]);
  const out: Record<string, number> = {};
  for (const [t, n] of entries.sort((a, b) => a[0] - b[0])) if (n > 0) out[compressionName(t)] = n;
  return out;
}
