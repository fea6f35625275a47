/**
 * Writers for synthetic MANIFEST/WAL logs in tests (the format of db/log_writer.cc and
 * VersionEdit::EncodeTo). Whatever they write is also fed to `ldb manifest_dump`, so the encoder is
 * checked by RocksDB itself, not only by our reader.
 */
import { crc32c } from "@node-rs/crc32";
import { putVarint32, putVarint64 } from "../../src/util/coding.js";

const BLOCK = 32768;

function mask(crc: number): number {
  return ((((crc >>> 15) | (crc << 17)) >>> 0) + 0xa282ead8) >>> 0;
}

/** Encode logical records into the log format, fragmenting across 32 KiB blocks like log::Writer. */
export function encodeLog(records: Uint8Array[], opts: { recycleLogNumber?: number } = {}): Buffer {
  const recyclable = opts.recycleLogNumber !== undefined;
  const headerSize = recyclable ? 11 : 7;
  const chunks: Buffer[] = [];
  let blockOffset = 0;
  for (const rec of records) {
    let left = rec.length;
    let p = 0;
    let begin = true;
    do {
      const leftover = BLOCK - blockOffset;
      if (leftover < headerSize) {
        if (leftover > 0) chunks.push(Buffer.alloc(leftover));
        blockOffset = 0;
      }
      const avail = BLOCK - blockOffset - headerSize;
      const frag = Math.min(left, avail);
      const end = frag === left;
      let type = begin && end ? 1 : begin ? 2 : end ? 4 : 3;
      if (recyclable) type += 4;
      const h = Buffer.alloc(headerSize);
      h.writeUInt16LE(frag, 4);
      h[6] = type;
      if (recyclable) h.writeUInt32LE(opts.recycleLogNumber! % 2 ** 32, 7);
      const payload = Buffer.from(rec.subarray(p, p + frag));
      const crc = crc32c(Buffer.concat([h.subarray(6), payload])) >>> 0;
      h.writeUInt32LE(mask(crc), 0);
      chunks.push(h, payload);
      blockOffset += headerSize + frag;
      p += frag;
      left -= frag;
      begin = false;
    } while (left > 0);
  }
  return Buffer.concat(chunks);
}

function lenPrefixed(out: number[], b: Uint8Array): void {
  putVarint32(out, b.length);
  for (const x of b) out.push(x);
}

export function internalKey(user: Uint8Array, seq: number, type: number): Buffer {
  const t = Buffer.alloc(8);
  t.writeBigUInt64LE((BigInt(seq) << 8n) | BigInt(type));
  return Buffer.concat([Buffer.from(user), t]);
}

export interface SynthFile {
  level: number;
  number: number;
  size: number;
  smallest: Buffer;
  largest: Buffer;
  smallestSeqno: number;
  largestSeqno: number;
  epoch?: number;
  oldestBlob?: number;
}

export interface SynthEdit {
  comparator?: string;
  logNumber?: number;
  nextFile?: number;
  lastSeq?: number;
  cf?: number;
  cfAdd?: Uint8Array;
  cfDrop?: boolean;
  maxCf?: number;
  atomicRemaining?: number;
  deleted?: { level: number; number: number }[];
  added?: SynthFile[];
  /** WalAddition2 (tag 8199): log number and synced size. */
  walAdded?: { number: number; synced: number }[];
}

/**
 * Bytes of varints (pushed into `o`) and whole buffers, kept as parts: pushing 1 KiB keys byte by byte
 * into one array took seconds for a MANIFEST of thousands of them (key_arena.test.ts). The bytes are
 * those one array gave.
 */
class Out {
  private parts: Buffer[] = [];
  private cur: number[] = [];
  /** Where the next varint goes (a new array after each buffer). */
  get o(): number[] {
    return this.cur;
  }
  lenPrefixed(b: Uint8Array): void {
    putVarint32(this.cur, b.length);
    this.flush();
    this.parts.push(Buffer.from(b));
  }
  done(): Buffer {
    this.flush();
    return Buffer.concat(this.parts);
  }
  private flush(): void {
    if (this.cur.length > 0) this.parts.push(Buffer.from(this.cur));
    this.cur = [];
  }
}

/** VersionEdit::EncodeTo for the tags used in tests. */
export function encodeEdit(e: SynthEdit): Buffer {
  const w = new Out();
  if (e.comparator !== undefined) {
    putVarint32(w.o, 1);
    w.lenPrefixed(Buffer.from(e.comparator));
  }
  if (e.logNumber !== undefined) {
    putVarint32(w.o, 2);
    putVarint64(w.o, BigInt(e.logNumber));
  }
  if (e.nextFile !== undefined) {
    putVarint32(w.o, 3);
    putVarint64(w.o, BigInt(e.nextFile));
  }
  if (e.lastSeq !== undefined) {
    putVarint32(w.o, 4);
    putVarint64(w.o, BigInt(e.lastSeq));
  }
  if (e.maxCf !== undefined) {
    putVarint32(w.o, 203);
    putVarint32(w.o, e.maxCf);
  }
  for (const d of e.deleted ?? []) {
    putVarint32(w.o, 6);
    putVarint32(w.o, d.level);
    putVarint64(w.o, BigInt(d.number));
  }
  for (const f of e.added ?? []) {
    putVarint32(w.o, 103);
    putVarint32(w.o, f.level);
    putVarint64(w.o, BigInt(f.number));
    putVarint64(w.o, BigInt(f.size));
    w.lenPrefixed(f.smallest);
    w.lenPrefixed(f.largest);
    putVarint64(w.o, BigInt(f.smallestSeqno));
    putVarint64(w.o, BigInt(f.largestSeqno));
    if (f.oldestBlob !== undefined) {
      putVarint32(w.o, 4);
      const v: number[] = [];
      putVarint64(v, BigInt(f.oldestBlob));
      w.lenPrefixed(Buffer.from(v));
    }
    if (f.epoch !== undefined) {
      putVarint32(w.o, 13);
      const v: number[] = [];
      putVarint64(v, BigInt(f.epoch));
      w.lenPrefixed(Buffer.from(v));
    }
    putVarint32(w.o, 1);
  }
  if (e.cf !== undefined && e.cf !== 0) {
    putVarint32(w.o, 200);
    putVarint32(w.o, e.cf);
  }
  if (e.cfAdd !== undefined) {
    putVarint32(w.o, 201);
    w.lenPrefixed(e.cfAdd);
  }
  if (e.cfDrop) putVarint32(w.o, 202);
  for (const wal of e.walAdded ?? []) {
    const body: number[] = [];
    putVarint64(body, BigInt(wal.number));
    putVarint32(body, 2); // kSyncedSize
    putVarint64(body, BigInt(wal.synced));
    putVarint32(body, 1); // kTerminate
    putVarint32(w.o, 8199);
    w.lenPrefixed(Buffer.from(body));
  }
  if (e.atomicRemaining !== undefined) {
    putVarint32(w.o, 300);
    putVarint32(w.o, e.atomicRemaining);
  }
  return w.done();
}

/** A put-only WriteBatch: sequence, then (cf, key, value) records. */
export function encodeBatch(seq: number, ops: { cf: number; key: Buffer; value: Buffer }[]): Buffer {
  const o: number[] = [];
  const h = Buffer.alloc(12);
  h.writeBigUInt64LE(BigInt(seq), 0);
  h.writeUInt32LE(ops.length, 8);
  for (const op of ops) {
    if (op.cf === 0) o.push(0x01);
    else {
      o.push(0x05);
      putVarint32(o, op.cf);
    }
    lenPrefixed(o, op.key);
    lenPrefixed(o, op.value);
  }
  return Buffer.concat([h, Buffer.from(o)]);
}
