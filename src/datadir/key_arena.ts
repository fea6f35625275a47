/**
 * Where the MANIFEST's boundary keys live. Each key copied into an ArrayBuffer of its own costs V8 an
 * ArrayBuffer, a backing store and its bookkeeping besides the key's few dozen bytes (~0.5 KiB of peak
 * RSS per table for its two keys, measured on 43,733 tables); keys copied into shared chunks cost a
 * small object each, which makes its user key's view when asked (ArenaKey). A chunk stays alive while any key in it does, so a replay that keeps a few keys of many
 * chunks (a long MANIFEST whose files were mostly compacted away) repacks its live keys into one buffer
 * from time to time (packKeys), which bounds what dead keys hold to about twice the live keys' bytes.
 */
import {
  decodeInternalKey,
  INTERNAL_KEY_TRAILER,
  internalKeySeqno,
  internalKeyType,
  type InternalKey,
} from "../base/internal_key.js";

const CHUNK_BYTES = 64 * 1024;
/** A key longer than this gets a buffer of its own, not a chunk's tail. */
const OWN_BUFFER_BYTES = CHUNK_BYTES / 8;

class KeyArena {
  private chunk = new Uint8Array(0);
  private used = 0;
  /** Bytes handed out since the count was last reset (the replay's repacking reads it). */
  handedOut = 0;

  /**
   * The internal key in src[start, end), copied (the caller's buffer may be reused: a log reader's
   * record); its user key is a view of the copy, followed there by its trailer, as decodeInternalKey's.
   */
  copyInternalKey(src: Uint8Array, start: number, end: number): InternalKey {
    const len = end - start;
    // decodeInternalKey names what is wrong with a key too short to hold a trailer
    if (len < INTERNAL_KEY_TRAILER || len > OWN_BUFFER_BYTES)
      return decodeInternalKey(Uint8Array.prototype.slice.call(src, start, end));
    this.handedOut += len;
    if (this.used + len > this.chunk.length) {
      this.chunk = new Uint8Array(CHUNK_BYTES);
      this.used = 0;
    }
    const at = this.used;
    this.chunk.set(src.subarray(start, end), at);
    this.used += len;
    return keyAt(this.chunk, at, at + len);
  }
}

/**
 * An internal key in buf[start, end) (at least a trailer long). Its user key is a view made when asked
 * for (a caller reads it once or twice): a view kept per key would cost ~100 bytes, more than most keys.
 */
class ArenaKey implements InternalKey {
  readonly seqno: number;
  readonly type: number;

  constructor(
    private readonly buf: Uint8Array,
    private readonly start: number,
    private readonly end: number,
  ) {
    // both read the 8 bytes before `end`
    this.seqno = internalKeySeqno(buf, end);
    this.type = internalKeyType(buf, end);
  }

  get userKey(): Uint8Array {
    return this.buf.subarray(this.start, this.end - INTERNAL_KEY_TRAILER);
  }
}

const keyAt = (buf: Uint8Array, start: number, end: number): InternalKey => new ArenaKey(buf, start, end);

/** The arena every VersionEdit decoder copies its internal keys into (decoding is synchronous). */
export const EDIT_KEYS = new KeyArena();

/** The whole internal key (user key ‖ trailer) a decoded key views: decodeInternalKey's user key is its prefix. */
function wholeKey(k: InternalKey): Uint8Array {
  const u = k.userKey;
  return new Uint8Array(u.buffer, u.byteOffset, u.byteLength + INTERNAL_KEY_TRAILER);
}

/**
 * The given keys copied into one buffer of their exact size, each returned in place of its old one
 * (same bytes, sequence number and type), so the chunks their old copies lived in can go.
 */
export function packKeys(keys: InternalKey[]): InternalKey[] {
  let total = 0;
  for (const k of keys) total += k.userKey.byteLength + INTERNAL_KEY_TRAILER;
  const buf = new Uint8Array(total);
  let at = 0;
  return keys.map((k) => {
    const len = k.userKey.byteLength + INTERNAL_KEY_TRAILER;
    buf.set(wholeKey(k), at);
    at += len;
    return keyAt(buf, at - len, at);
  });
}
