/**
 * One zstd stream decoded piece by piece, as RocksDB reads a compressed WAL (db/log_reader.cc with
 * util/compression.h ZSTDStreamingUncompress): after a SetCompressionType record every record's bytes
 * are the next piece of one zstd stream per log file, compressed with a flush at each record's end, so
 * each physical fragment decodes, in order, into the fragment's share of the record. zstd-napi's
 * ZSTD_decompressStream binding does the decoding (loaded on the first compressed WAL).
 */
import { createRequire } from "node:module";
import { LIMITS } from "../util/limits.js";
import { grownKeeping } from "../util/grow.js";

const require = createRequire(import.meta.url);

/** zstd-napi's ZSTD_DCtx: decompressStream returns [ZSTD's return value, bytes written, bytes read]. */
interface DCtx {
  decompressStream(dst: Uint8Array, src: Uint8Array): [number, number, number];
}

export class ZstdStreamDecoder {
  private readonly dctx: DCtx;
  private out = Buffer.allocUnsafeSlow(64 * 1024);

  constructor() {
    const binding = require("zstd-napi/binding") as { DCtx: new () => DCtx };
    this.dctx = new binding.DCtx();
  }

  /**
   * The bytes `piece` decodes to (valid until the next call). Throws on bytes that are not the stream's
   * next piece (zstd's error) and on output past LIMITS.maxLogRecordBytes.
   */
  next(piece: Uint8Array): Uint8Array {
    let produced = 0;
    let consumed = 0;
    for (;;) {
      if (produced === this.out.length) {
        if (produced >= LIMITS.maxLogRecordBytes)
          throw new Error(`a compressed WAL fragment decodes to more than ${LIMITS.maxLogRecordBytes} bytes`);
        this.out = grownKeeping(this.out, produced, Math.min(2 * produced, LIMITS.maxLogRecordBytes));
      }
      const [, wrote, read] = this.dctx.decompressStream(
        this.out.subarray(produced),
        piece.subarray(consumed),
      );
      produced += wrote;
      consumed += read;
      // all input read, and room left in the output or nothing more written into it: everything this
      // piece holds has been flushed (a full buffer only says there may be more)
      if (consumed === piece.length && (produced < this.out.length || wrote === 0))
        return this.out.subarray(0, produced);
      if (wrote === 0 && read === 0) throw new Error("the compressed WAL stream makes no progress");
    }
  }
}
