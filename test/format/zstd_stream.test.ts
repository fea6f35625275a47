/**
 * The WAL's zstd stream decoder against zstd's own streaming compressor (zstd-napi's ZSTD_compressStream2
 * with ZSTD_e_flush after each piece, as RocksDB's ZSTDStreamingCompress ends each record): every piece
 * decodes to exactly what was compressed, including pieces whose output is a multiple of the decoder's
 * 64 KiB buffer (it grows, and must then see that nothing more is left) and empty pieces.
 */
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { ZstdStreamDecoder } from "../../src/format/zstd_stream.js";

const require = createRequire(import.meta.url);
interface CCtx {
  compressStream2(dst: Uint8Array, src: Uint8Array, endOp: number): [number, number, number];
}
const zstd = require("zstd-napi/binding") as { CCtx: new () => CCtx; EndDirective: { flush: number } };

/** One zstd stream, `pieces` compressed one after another with a flush after each: each piece's bytes. */
function compressPieces(pieces: Buffer[]): Buffer[] {
  const cctx = new zstd.CCtx();
  const out: Buffer[] = [];
  const dst = Buffer.alloc(1 << 20);
  for (const p of pieces) {
    const chunks: Buffer[] = [];
    let consumed = 0;
    for (;;) {
      const [left, produced, read] = cctx.compressStream2(dst, p.subarray(consumed), zstd.EndDirective.flush);
      chunks.push(Buffer.from(dst.subarray(0, produced)));
      consumed += read;
      if (left === 0 && consumed === p.length) break;
    }
    out.push(Buffer.concat(chunks));
  }
  return out;
}

describe("ZstdStreamDecoder", () => {
  it("decodes each flushed piece of one stream to what was compressed", () => {
    let seed = 5;
    const rnd = (n: number) => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % n;
    const piece = (n: number) => Buffer.from(Array.from({ length: n }, () => 97 + rnd(4)));
    // sizes around the decoder's 64 KiB output buffer and its doublings, and an empty piece
    const pieces = [10, 65536, 0, 65535, 65537, 131072, 300, 262144, 1].map(piece);
    const d = new ZstdStreamDecoder();
    const compressed = compressPieces(pieces);
    for (let i = 0; i < pieces.length; i++)
      expect(
        Buffer.from(d.next(compressed[i]!)).equals(pieces[i]!),
        `piece ${i} (${pieces[i]!.length} bytes)`,
      ).toBe(true);
  });

  it("throws on bytes that are not the stream's next piece", () => {
    const [a, b] = compressPieces([Buffer.alloc(1000, 1), Buffer.alloc(1000, 2)]);
    const d = new ZstdStreamDecoder();
    d.next(a!);
    const damaged = Buffer.from(b!);
    damaged.fill(0xff, 0, damaged.length);
    expect(() => d.next(damaged)).toThrow();
  });
});
