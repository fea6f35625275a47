/**
 * Damaged Pebble value blocks and blob files: mutants of Pebble's own files (byte flips and overwritten
 * runs, block checksums off so the damage reaches the decoders) read through every path that touches
 * them — a scan resolving every value-block value, whole-table verification, a blob file's footer,
 * index, value blocks and every value. The only acceptable outcomes are a clean read or one
 * LsmscopeError naming the file; no other exception, no hang.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openTable } from "../../src/format/table.js";
import { verifyTable } from "../../src/format/verify.js";
import { PebbleBlobFile } from "../../src/format/pebble_blob_file.js";
import { LsmscopeError } from "../../src/util/errors.js";
import { mulberry32 } from "../../src/util/random.js";
import { trackedTempDirs } from "../helpers/index.js";
import { PEBBLE_FIXTURES } from "./expected.js";

const MUTANTS = 400;
const { tempDir, cleanupTemps } = trackedTempDirs("lsmscope-pebble-mut-");
afterAll(cleanupTemps);

/** Flip a byte or overwrite a short run, within [0, end). */
function mutate(src: Buffer, end: number, rnd: () => number): Buffer {
  const b = Buffer.from(src);
  const at = Math.floor(rnd() * end);
  if (rnd() < 0.5) b[at]! ^= 1 << Math.floor(rnd() * 8);
  else
    for (let i = at; i < Math.min(end, at + 1 + Math.floor(rnd() * 8)); i++) b[i] = Math.floor(rnd() * 256);
  return b;
}

function outcome(read: () => void): "ok" | "error" {
  try {
    read();
    return "ok";
  } catch (err) {
    if (err instanceof LsmscopeError) return "error";
    throw err;
  }
}

/**
 * MUTANTS mutants of `src` (bytes [0, end) mutated, drawn from `seed`), each written to its own file
 * with extension `ext` and read by `read`: every outcome counted, and at least one must be an error.
 */
function readMutants(src: Buffer, end: number, ext: string, seed: number, read: (p: string) => void): void {
  const dir = tempDir();
  const rnd = mulberry32(seed);
  const seen = { ok: 0, error: 0 };
  for (let i = 0; i < MUTANTS; i++) {
    const p = join(dir, `m${i}.${ext}`);
    writeFileSync(p, mutate(src, end, rnd));
    seen[outcome(() => read(p))]++;
  }
  expect(seen.ok + seen.error).toBe(MUTANTS);
  expect(seen.error).toBeGreaterThan(0);
}

describe(`${MUTANTS} mutants each: a clean read or one located error`, () => {
  it("cr-schema-db/000005.sst ((Pebble,v4), a value block): scan with values, verification", () => {
    const src = readFileSync(join(PEBBLE_FIXTURES, "tables", "pebblev4", "cr-schema-db_000005.sst"));
    // the value block and its index lie before the properties (offset 1936; sst's meta blocks)
    readMutants(src, 1936, "sst", 16, (p) => {
      const t = openTable(p, { verifyChecksums: false });
      try {
        t.scan((e) => void e.valueCopy());
        verifyTable(t);
      } finally {
        t.close();
      }
    });
  });

  it("find-val-sep-db/000012.blob: footer, index, every value block and value", () => {
    const src = readFileSync(join(PEBBLE_FIXTURES, "stores", "find-val-sep-db", "000012.blob"));
    // the footer (its last 38 bytes) is checksummed: mutate the blocks before it
    readMutants(src, src.length - 38, "blob", 12, (p) => {
      const f = new PebbleBlobFile(p, { verifyChecksums: false });
      try {
        f.verify();
        for (let b = 0; b < f.blockCount; b++) for (let v = 0; v < f.valueBlock(b).rows; v++) f.value(b, v);
      } finally {
        f.close();
      }
    });
  });
});
