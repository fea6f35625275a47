/**
 * Value lengths as written: writtenValueLength (a data cursor's value, by its handle's declared length
 * when external) and blobValueLength (a compressed blob's varint length prefix).
 */
import { describe, expect, it } from "vitest";
import { DataCursor, writtenValueLength } from "../../src/format/data_block.js";
import { blobValueLength } from "../../src/format/blob.js";

/** A row data block of `entries` (no shared prefixes, a restart point at each), as RocksDB lays it out. */
function rowBlock(entries: { key: Buffer; value: Buffer }[]): Buffer {
  const parts: Buffer[] = [];
  const restarts: number[] = [];
  let at = 0;
  for (const e of entries) {
    restarts.push(at);
    // shared 0 | non-shared | value length: each one varint byte here (< 128)
    const p = Buffer.concat([Buffer.from([0, e.key.length, e.value.length]), e.key, e.value]);
    parts.push(p);
    at += p.length;
  }
  const tail = Buffer.alloc(4 * (restarts.length + 1));
  restarts.forEach((r, i) => tail.writeUInt32LE(r, 4 * i));
  tail.writeUInt32LE(restarts.length, 4 * restarts.length);
  return Buffer.concat([...parts, tail]);
}

/** An internal key: user key | trailer (seqno << 8 | kind), little-endian. */
const ikey = (user: string, seqno: number, kind: number) => {
  const b = Buffer.alloc(user.length + 8);
  b.write(user, "latin1");
  b.writeBigUInt64LE((BigInt(seqno) << 8n) | BigInt(kind), user.length);
  return b;
};

const ORIGIN = { file: "test", kind: "data", offset: 0 };

function lengths(c: DataCursor, data: Buffer): { written: number; bytes: number }[] {
  c.load(data, ORIGIN);
  const out: { written: number; bytes: number }[] = [];
  while (c.next()) out.push({ written: writtenValueLength(c), bytes: c.valueLength });
  return out;
}

describe("writtenValueLength", () => {
  it("a RocksDB table's value: its bytes (the cursor keeps no declared length for it)", () => {
    const c = new DataCursor();
    const data = rowBlock([{ key: ikey("a", 1, 1), value: Buffer.from("hello") }]);
    expect(lengths(c, data)).toEqual([{ written: 5, bytes: 5 }]);
    expect(c.declaredValueLength).toBe(0);
  });

  it("a Pebble value in place: its bytes; behind a value-block or blob handle: the declared length", () => {
    const c = new DataCursor({ valuePrefix: true });
    c.resolveValues = false;
    const data = rowBlock([
      { key: ikey("a", 3, 1), value: Buffer.from([0x00, 0x68, 0x69]) },
      // value-block handle: length 1000 (varint), block 0, offset 0
      { key: ikey("b", 2, 1), value: Buffer.from([0x80, 0xe8, 0x07, 0, 0]) },
      // blob handle: reference 0, length 70000 (varint), block 0, value id 0
      { key: ikey("c", 1, 1), value: Buffer.from([0x40, 0, 0xf0, 0xa2, 0x04, 0, 0]) },
    ]);
    expect(lengths(c, data)).toEqual([
      { written: 2, bytes: 2 },
      { written: 1000, bytes: 4 },
      { written: 70000, bytes: 6 },
    ]);
  });
});

describe("blobValueLength", () => {
  it("uncompressed: the stored size; compressed: the varint prefix", () => {
    expect(blobValueLength(Buffer.from([0xff]), 0, 42)).toBe(42);
    expect(blobValueLength(Buffer.from([0x05, 0xaa]), 1, 10)).toBe(5);
    expect(blobValueLength(Buffer.from([0xe8, 0x07]), 4, 10)).toBe(1000);
  });

  it("a 5-byte prefix keeps all its bits (no wrap at 2^32)", () => {
    expect(blobValueLength(Buffer.from([0xff, 0xff, 0xff, 0xff, 0x0f]), 1, 100)).toBe(2 ** 32 - 1);
    expect(blobValueLength(Buffer.from([0x80, 0x80, 0x80, 0x80, 0x7f]), 1, 100)).toBe(127 * 2 ** 28);
  });

  it("a prefix cut short, by the buffer or the stored size, or longer than 5 bytes: RangeError", () => {
    expect(() => blobValueLength(Buffer.from([0x80, 0x80]), 1, 100)).toThrow(RangeError);
    expect(() => blobValueLength(Buffer.from([0x80, 0x01]), 1, 1)).toThrow(RangeError);
    expect(() => blobValueLength(Buffer.alloc(0), 1, 0)).toThrow(RangeError);
    expect(() => blobValueLength(Buffer.from([0x80, 0x80, 0x80, 0x80, 0x80, 0x01]), 1, 100)).toThrow(
      RangeError,
    );
  });
});
