/**
 * Damage at the table level: every block read verifies its checksum (scan, lookups, index and filter
 * reads), a failure names file, block offset and block kind, and `sst --verify` reports damage in its
 * JSON (checksums, key order, totals against the properties) and exits 2.
 *
 * Oracles: RocksDB's `sst_dump --command=scan --verify_checksum` fails over the flipped data block. Its
 * `--command=verify` does not (it reports "verified" over the same file: it checks the index and meta
 * blocks, not the data blocks), so it is not used here. No RocksDB tool checks key order; the
 * out-of-order table is built by swapping two entries of a real db_bench table and re-sealing the
 * block's checksum (crc32c computed here independently), and sst_dump reads it with checksums verified.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { crc32c } from "@node-rs/crc32";
import { BlockCorruptionError, openTable } from "../../src/format/index.js";
import { dbBench, makeTempDir, removeDir } from "./oracle.js";

const bin = new URL("../../bin/lsmscope.js", import.meta.url).pathname;
let root: string;
let file: string;
let firstBlock: { offset: number; size: number };
let secondBlock: { offset: number; size: number };
let keyInSecond: Buffer;

function lsmscope(...args: string[]) {
  return spawnSync(process.execPath, [bin, ...args], { encoding: "utf8" });
}

function sstDump(...args: string[]) {
  return spawnSync("sst_dump", args, { encoding: "latin1", maxBuffer: 64 << 20 });
}

/** LevelDB/RocksDB crc32c mask (util/crc32c.h), written out here rather than taken from src/. */
function maskedCrc(data: Buffer): number {
  const c = crc32c(data) >>> 0;
  return ((((c >>> 15) | (c << 17)) >>> 0) + 0xa282ead8) >>> 0;
}

beforeAll(() => {
  root = makeTempDir("verify");
  // uncompressed, crc32c, every entry a restart point: entries can be swapped by plain byte moves
  [file] = dbBench(join(root, "db"), [
    "--num=3000",
    "--compression_type=none",
    "--checksum_type=1",
    "--format_version=5",
    "--block_restart_interval=1",
    "--bloom_bits=10",
  ]) as [string];
  const t = openTable(file);
  const [first, second] = t.indexEntries();
  firstBlock = first!.handle;
  secondBlock = second!.handle;
  keyInSecond = [...t.readDataBlock(secondBlock)][1]!.userKey;
  t.close();
});
afterAll(() => removeDir(root));

function variant(name: string, edit: (b: Buffer) => void): string {
  const b = readFileSync(file);
  edit(b);
  const p = join(root, name + ".sst");
  writeFileSync(p, b);
  return p;
}

describe("a flipped data block", () => {
  let bad: string;
  beforeAll(() => {
    bad = variant("flipped", (b) => {
      for (let i = 0; i < 4; i++) b[secondBlock.offset + 40 + i]! ^= 0x5a;
    });
  });

  it("fails RocksDB's own checksum-verifying scan (the oracle)", () => {
    const r = sstDump(`--file=${bad}`, "--command=scan", "--verify_checksum");
    expect(`${r.stdout}${r.stderr}`).toMatch(/Corruption|checksum mismatch/i);
    expect(sstDump(`--file=${file}`, "--command=scan", "--verify_checksum").stdout).not.toMatch(/Corruption/);
  });

  it("fails every read path by default, naming file, block offset and kind", () => {
    const t = openTable(bad);
    try {
      let err: unknown;
      try {
        t.scan();
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(BlockCorruptionError);
      const e = err as BlockCorruptionError;
      expect(e.file).toBe(bad);
      expect(e.blockOffset).toBe(secondBlock.offset);
      expect(e.blockKind).toBe("data");
      expect(e.detail).toMatch(/crc32c checksum mismatch/);
      expect(() => t.get(keyInSecond)).toThrow(BlockCorruptionError);
      expect(() => t.readDataBlock(secondBlock)).toThrow(/data block: crc32c checksum mismatch/);
      // the first block is intact and still reads
      expect([...t.readDataBlock(firstBlock)].length).toBeGreaterThan(0);
    } finally {
      t.close();
    }
  });

  it("sst --scan exits 2 with one located line", () => {
    const r = lsmscope("sst", bad, "--scan");
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toContain(`${bad} @ offset ${secondBlock.offset}: data block: crc32c checksum mismatch`);
  });

  it("sst --verify --json prints the whole report with the error and exits 2", () => {
    const r = lsmscope("sst", bad, "--verify", "--json");
    expect(r.status).toBe(2);
    const j = JSON.parse(r.stdout);
    expect(j.verify.ok).toBe(false);
    expect(j.verify.errors).toHaveLength(1);
    expect(j.verify.errors[0]).toMatchObject({ offset: secondBlock.offset, kind: "data" });
    expect(j.verify.errors[0].message).toMatch(/^crc32c checksum mismatch/);
    expect(j.filter.kind).toBe("fastbloom");
    const text = lsmscope("sst", bad, "--verify");
    expect(text.status).toBe(2);
    expect(text.stdout).toMatch(/verify: FAILED, 1 problem/);
    expect(text.stdout).toContain(`data block @ ${secondBlock.offset}: crc32c checksum mismatch`);
  });

  it("a damaged footer is still reported as verify JSON, exit 2", () => {
    const f = variant("footer", (b) => {
      b[b.length - 1]! ^= 0x40;
    });
    const r = lsmscope("sst", f, "--verify", "--json");
    expect(r.status).toBe(2);
    const j = JSON.parse(r.stdout);
    expect(j.verify.ok).toBe(false);
    expect(j.verify.errors[0].kind).toBe("footer");
    expect(j.verify.errors[0].message).toMatch(/magic number/);
  });
});

describe("keys out of order", () => {
  let swapped: string;
  let entryOffsets: number[];
  beforeAll(() => {
    swapped = variant("swapped", (b) => {
      // entries of the first block: shared=0 | non_shared | value_length | key | value (all varints < 128)
      const start = firstBlock.offset;
      const entries: { at: number; len: number }[] = [];
      let p = start;
      for (let i = 0; i < 4; i++) {
        expect(b[p]).toBe(0);
        const len = 3 + b[p + 1]! + b[p + 2]!;
        entries.push({ at: p, len });
        p += len;
      }
      expect(entries[1]!.len).toBe(entries[2]!.len);
      const e1 = Buffer.from(b.subarray(entries[1]!.at, entries[1]!.at + entries[1]!.len));
      b.copy(b, entries[1]!.at, entries[2]!.at, entries[2]!.at + entries[2]!.len);
      e1.copy(b, entries[2]!.at);
      entryOffsets = entries.map((e) => e.at - start);
      // re-seal the block: masked crc32c over block bytes + type byte
      const end = start + firstBlock.size;
      b.writeUInt32LE(maskedCrc(b.subarray(start, end + 1)), end + 1);
    });
  });

  it("sst_dump reads the edited table with checksums verified (the block is re-sealed correctly)", () => {
    const r = sstDump(`--file=${swapped}`, "--command=scan", "--verify_checksum");
    expect(`${r.stdout}${r.stderr}`).not.toMatch(/Corruption/i);
    expect(r.status).toBe(0);
  });

  it("sst --verify flags the key, exit 2; the intact table verifies ok with key order checked", () => {
    const r = lsmscope("sst", swapped, "--verify", "--json");
    expect(r.status).toBe(2);
    const j = JSON.parse(r.stdout);
    expect(j.verify.ok).toBe(false);
    expect(j.verify.keyOrderChecked).toBe(true);
    expect(j.verify.errors).toHaveLength(1);
    expect(j.verify.errors[0]).toMatchObject({ offset: firstBlock.offset, kind: "data" });
    expect(j.verify.errors[0].message).toBe(
      `key out of order (not after the previous key) (at byte ${entryOffsets[2]} of the block)`,
    );
    const ok = lsmscope("sst", file, "--verify", "--json");
    expect(ok.status).toBe(0);
    const v = JSON.parse(ok.stdout).verify;
    expect(v).toMatchObject({ ok: true, checksums: true, keyOrderChecked: true, errors: [] });
  });
});

describe("sst --verify counts stored bytes", () => {
  it("bytes checked are the blocks and trailers, each once: less than the file, more than its data", () => {
    const j = JSON.parse(lsmscope("sst", file, "--verify", "--scan", "--json").stdout);
    const size = readFileSync(file).length;
    expect(j.verify.bytesVerified).toBeLessThan(size);
    // everything but the 53-byte footer is a block or a trailer in a db_bench table
    expect(j.verify.bytesVerified).toBe(size - 53);
    expect(j.verify.blocksVerified).toBe(j.scan.dataBlocks + j.metaBlocks.length + 2);
  });
});

describe("sst --verify on deletions, merges and range tombstones", () => {
  it("scan totals equal every property that states one", () => {
    const [t] = dbBench(join(root, "tombstones"), [
      "--benchmarks=fillrandom,deleterandom,mergerandom",
      "--merge_operator=put",
      "--deletes=3000",
      "--writes_per_range_tombstone=200",
      "--max_num_range_tombstones=30",
      "--range_tombstone_width=20",
    ]) as [string];
    const r = lsmscope("sst", t, "--verify", "--scan", "--json");
    expect(r.status).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j.verify.errors).toEqual([]);
    expect(j.scan.rangeDeletions).toBeGreaterThan(0);
    expect(j.properties["rocksdb.num.range-deletions"]).toBe(j.scan.rangeDeletions);
    expect(j.properties["rocksdb.deleted.keys"]).toBe(j.scan.deletions);
    expect(j.properties["rocksdb.merge.operands"]).toBe(j.scan.mergeOperands);
  });
});
