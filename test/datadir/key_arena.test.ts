/**
 * The MANIFEST replay's boundary keys live in shared chunks (key_arena.ts): each key must read back as
 * written whatever happened to the record it came from, and a long history of files compacted away must
 * not keep its chunks alive through the few keys that survive in each.
 */
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { replayManifest } from "../../src/datadir/manifest.js";
import { decodeVersionEdit } from "../../src/datadir/version_edit.js";
import { removeDir, tempDir } from "./helpers.js";
import { encodeEdit, encodeLog, internalKey, type SynthFile } from "./synth.js";

let dir: string;
beforeAll(() => {
  dir = tempDir();
});
afterAll(() => removeDir(dir));

/** A 1 KiB user key naming file n and which bound it is. */
const userKey = (n: number, bound: "a" | "z") =>
  Buffer.from(`${bound}${String(n).padStart(8, "0")}`.padEnd(1024, "."));

const file = (n: number, level: number): SynthFile => ({
  level,
  number: n,
  size: 1000 + n,
  smallest: internalKey(userKey(n, "a"), n, 1),
  largest: internalKey(userKey(n, "z"), n + 1, 0),
  smallestSeqno: n,
  largestSeqno: n + 1,
});

describe("MANIFEST boundary keys in shared chunks", () => {
  it("a decoded key keeps its bytes when the record's buffer is reused", () => {
    const rec = encodeEdit({ added: [file(7, 1)] });
    const edit = decodeVersionEdit(rec);
    rec.fill(0xee);
    const f = edit.newFiles[0]!;
    expect(Buffer.from(f.smallest.userKey).equals(userKey(7, "a"))).toBe(true);
    expect(Buffer.from(f.largest.userKey).equals(userKey(7, "z"))).toBe(true);
    expect([f.smallest.seqno, f.smallest.type, f.largest.seqno, f.largest.type]).toEqual([7, 1, 8, 0]);
  });

  it("a long history keeps only about its live keys' bytes, each key as written", () => {
    // 80 compactions of 100 files each; each deletes the previous one's files but every 25th
    const edits = [{ comparator: "leveldb.BytewiseComparator", logNumber: 1, nextFile: 100_000, lastSeq: 1 }];
    const live = new Set<number>();
    let prev: number[] = [];
    for (let e = 0; e < 80; e++) {
      const added = Array.from({ length: 100 }, (_, i) => file(e * 100 + i + 10, 1 + (e % 5)));
      // survivors spread over the chunks the previous compaction's keys filled
      const deleted = prev
        .filter((_, i) => i % 25 !== 0)
        .map((n) => ({ level: 1 + ((e - 1) % 5), number: n }));
      for (const d of deleted) live.delete(d.number);
      for (const f of added) live.add(f.number);
      edits.push({ added, deleted } as never);
      prev = added.map((f) => f.number);
    }
    writeFileSync(join(dir, "MANIFEST-000001"), encodeLog(edits.map(encodeEdit)));
    const r = replayManifest(join(dir, "MANIFEST-000001"), "MANIFEST-000001");
    expect(r.complete).toBe(true);
    const files = r.columnFamilies[0]!.files;
    expect([...files.keys()].sort((a, b) => a - b)).toEqual([...live].sort((a, b) => a - b));
    const buffers = new Set<ArrayBufferLike>();
    let liveBytes = 0;
    for (const f of files.values()) {
      expect(Buffer.from(f.smallest.userKey).equals(userKey(f.fileNumber, "a"))).toBe(true);
      expect(Buffer.from(f.largest.userKey).equals(userKey(f.fileNumber, "z"))).toBe(true);
      expect([f.smallest.seqno, f.smallest.type]).toEqual([f.fileNumber, 1]);
      expect([f.largest.seqno, f.largest.type]).toEqual([f.fileNumber + 1, 0]);
      for (const k of [f.smallest, f.largest]) {
        buffers.add(k.userKey.buffer);
        liveBytes += k.userKey.byteLength + 8;
      }
    }
    // ~16 MiB of keys were decoded; unpacked, each compaction's survivors would hold
    // every chunk its keys filled.
    // Packed: the live keys' bytes twice over, the 4 MiB allowed between packings, a chunk.
    const held = [...buffers].reduce((sum, b) => sum + b.byteLength, 0);
    expect(liveBytes).toBeGreaterThan(0);
    expect(held).toBeLessThanOrEqual(3 * liveBytes + 4 * 2 ** 20 + 64 * 1024);
  });
});
