/**
 * IndexReader.tallyHandles — deep mode's data-block count, bytes, smallest and largest block and
 * index partitions, read in one loop that hands every unusual entry to the block cursor — gives what
 * the walk it replaced gives (forEachIndexHandle), and fails where the walk fails, with the walk's
 * error. On tables other programs wrote: the db_bench and Pebble fixtures (Pebble's own tables,
 * RocksDB's and LevelDB's Hamlet tables, columnar ones, its damaged ones), every committed sample
 * table, and db_bench tables whose index entries leave the loop for the cursor (separators over 127
 * bytes, delta-encoded entries between restart points). The figures of db_bench's tables are also
 * compared with its own properties in test/format/check.ts (every db_bench case of sst.test.ts).
 * Damage: bytes flipped all over the index blocks of uncompressed tables, read without checksums so
 * that the decoders meet them.
 */
import { afterAll, describe, expect, it } from "vitest";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openTable } from "../../src/format/index.js";
import { HandleTally } from "../../src/format/block.js";
import { REPO, SAMPLES, tableFilesUnder, trackedTempDirs } from "../helpers/index.js";
import { dbBench } from "./oracle.js";

const TAIL = 32 * 1024;
const FIXTURES = join(REPO, "test", "fixtures");

type Figures = { blocks: number; bytes: number; min: number; max: number; partitions: number[] };

function figures(t: HandleTally): Figures {
  return { blocks: t.blocks, bytes: t.bytes, min: t.min, max: t.max, partitions: [...t.partitions] };
}

/** The index's figures by the tally or by the walk, or the error either fails with. */
function read(path: string, how: "tally" | "walk", verifyChecksums = true): Figures | string {
  let t: ReturnType<typeof openTable> | undefined;
  try {
    t = openTable(path, { verifyChecksums, prefetchTail: TAIL });
    const tally = new HandleTally();
    if (how === "tally") t.index.tallyHandles(tally, false);
    else t.forEachIndexHandle((_offset, size, partition) => tally.add(size, partition), false);
    return figures(tally);
  } catch (e) {
    return (e as Error).message;
  } finally {
    t?.close();
  }
}

function expectSame(files: string[]): { tallied: number; failed: number } {
  let tallied = 0;
  let failed = 0;
  for (const f of files) {
    const walked = read(f, "walk");
    expect(read(f, "tally"), f).toEqual(walked);
    if (typeof walked === "string") failed++;
    else tallied += walked.blocks;
  }
  return { tallied, failed };
}

describe("index tally (deep mode)", () => {
  const tmp = trackedTempDirs("lsmscope-index-tally-");
  afterAll(() => tmp.cleanupTemps());

  it("gives the walk's figures on every fixture and sample table, and its errors on the damaged", () => {
    const fixtures = tableFilesUnder(FIXTURES);
    const samples = tableFilesUnder(SAMPLES);
    expect(fixtures.length).toBeGreaterThan(30);
    expect(samples.length).toBeGreaterThan(20);
    const all = expectSame([...fixtures, ...samples]);
    expect(all.tallied).toBeGreaterThan(1000);
    // Pebble's damaged fixtures: at least one of them fails the index read itself
    expect(all.failed).toBeGreaterThan(0);
    const twoLevel = [...fixtures, ...samples].filter((f) => {
      const r = read(f, "walk");
      return typeof r !== "string" && r.partitions.length > 0;
    });
    expect(twoLevel.length).toBeGreaterThan(1);
  });

  it("hands long separators and delta-encoded entries to the cursor, with the same figures", () => {
    // separators of 138 bytes (130-byte user keys, unshortened): every restart entry's length takes
    // two bytes, so the loop stops there; the three entries after each share a prefix and fit it
    const files = dbBench(join(tmp.tempDir(), "long"), [
      "--key_size=130",
      "--value_size=40",
      "--block_size=512",
      "--compression_type=none",
      "--index_shortening_mode=0",
      "--index_block_restart_interval=4",
    ]);
    expect(files.length).toBeGreaterThan(0);
    const { tallied, failed } = expectSame(files);
    expect(failed).toBe(0);
    expect(tallied).toBeGreaterThan(1000);
    for (const f of files) {
      const t = openTable(f);
      expect(t.index.layout.valueDeltaEncoded).toBe(true);
      t.close();
    }
  });

  // format 5: delta-encoded handles, bounded by the block's entries; format 3: whole handles, each
  // bounded by its value's length
  for (const formatVersion of [5, 3]) {
    it(`fails a damaged index block as the walk does, wherever the damage lies (format ${formatVersion})`, () => {
      // uncompressed index blocks, read without checksums: the decoders meet every flipped byte
      const [table] = dbBench(join(tmp.tempDir(), "flip"), [
        "--num=600",
        "--key_size=130",
        "--value_size=40",
        "--block_size=512",
        "--compression_type=none",
        `--format_version=${formatVersion}`,
        "--index_shortening_mode=0",
        "--index_block_restart_interval=4",
      ]);
      const t = openTable(table!);
      const { offset, size } = t.index.handle;
      expect(t.index.layout.valueDeltaEncoded).toBe(formatVersion >= 4);
      t.close();
      const copy = join(tmp.tempDir(), "flipped.sst");
      const original = readFileSync(table!);
      const intact = read(table!, "walk") as Figures;
      let errors = 0;
      let differs = 0;
      // every byte of the first entries and of the last ones with the restart array (lengths, key
      // bytes, handles, a handle running into the restarts), bytes spread over the rest
      const stride = Math.max(1, Math.floor(size / 200));
      for (let at = 0; at < size; at += at < 600 || at >= size - 600 ? 1 : stride) {
        for (const bit of [0x80, 0x01]) {
          const bytes = Buffer.from(original);
          bytes[offset + at]! ^= bit;
          writeFileSync(copy, bytes);
          const walked = read(copy, "walk", false);
          expect(read(copy, "tally", false), `byte ${at} ^ ${bit}`).toEqual(walked);
          if (typeof walked === "string") errors++;
          else if (walked.blocks !== intact.blocks || walked.bytes !== intact.bytes) differs++;
        }
      }
      // the flips reach both ways the reader can go: refused entries, and entries read otherwise
      expect(errors).toBeGreaterThan(10);
      expect(differs).toBeGreaterThan(0);
    });
  }
});
