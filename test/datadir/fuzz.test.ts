/**
 * Mutated MANIFESTs, WALs, OPTIONS and blob files never make the model throw: every problem comes out
 * as a finding naming a file. Seeded, so a failure reproduces.
 */
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { cpSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { inspectDatadir } from "../../src/datadir/index.js";
import { mulberry32 } from "../../src/util/random.js";
import { scanWal } from "../../src/datadir/wal.js";
import { dbBench, removeDir, tempDir } from "./helpers.js";

let dir: string;
let base: string;

const prng = mulberry32;

function mutate(buf: Buffer, rnd: () => number): Buffer {
  const out = Buffer.from(buf);
  const kind = Math.floor(rnd() * 4);
  if (kind === 0) {
    // flip a few bytes
    for (let i = 0; i < 1 + Math.floor(rnd() * 4); i++)
      out[Math.floor(rnd() * out.length)]! ^= 1 + Math.floor(rnd() * 255);
    return out;
  }
  if (kind === 1) return out.subarray(0, Math.floor(rnd() * out.length)); // truncate
  if (kind === 2) {
    // zero a run
    const at = Math.floor(rnd() * out.length);
    out.fill(0, at, Math.min(out.length, at + 1 + Math.floor(rnd() * 64)));
    return out;
  }
  // overwrite a run with random bytes
  const at = Math.floor(rnd() * out.length);
  for (let i = at; i < Math.min(out.length, at + 16); i++) out[i] = Math.floor(rnd() * 256);
  return out;
}

beforeAll(() => {
  dir = tempDir();
  base = join(dir, "base");
  dbBench(base, [
    "--benchmarks=fillrandom,deleterandom",
    "--num=3000",
    "--value_size=150",
    "--num_column_families=2",
    "--write_buffer_size=65536",
    "--enable_blob_files=true",
    "--min_blob_size=100",
    "--compression_type=none",
  ]);
});
afterAll(() => removeDir(dir));

describe("fuzzed inputs", () => {
  it("MANIFEST, OPTIONS, blob files: 150 mutations, never a throw, every finding names a file", async () => {
    const rnd = prng(1234);
    const work = join(dir, "work");
    cpSync(base, work, { recursive: true });
    const names = readdirSync(base);
    const manifest = names.find((n) => n.startsWith("MANIFEST-"))!;
    const options = names
      .filter((n) => n.startsWith("OPTIONS-"))
      .sort()
      .pop()!;
    const blob = names.find((n) => n.endsWith(".blob"))!;
    const targets = [manifest, manifest, manifest, options, blob, "CURRENT"];
    for (let i = 0; i < 150; i++) {
      const target = targets[i % targets.length]!;
      const original = readFileSync(join(base, target));
      writeFileSync(join(work, target), mutate(original, rnd));
      const m = await inspectDatadir(work, { readWal: false });
      for (const f of m.findings) {
        expect(typeof f.file).toBe("string");
        expect(f.message.length).toBeGreaterThan(0);
      }
      writeFileSync(join(work, target), original);
    }
  });

  it("WALs: 300 mutations, never a throw, counts never exceed the intact file's", () => {
    const rnd = prng(99);
    const wal = readdirSync(base)
      .filter((n) => n.endsWith(".log"))
      .map((n) => ({ n, size: readFileSync(join(base, n)).length }))
      .sort((a, b) => b.size - a.size)[0]!.n;
    const original = readFileSync(join(base, wal));
    const intact = scanWal(join(base, wal), Number(wal.slice(0, 6)));
    const p = join(dir, wal);
    for (let i = 0; i < 300; i++) {
      writeFileSync(p, mutate(original, rnd));
      const s = scanWal(p, Number(wal.slice(0, 6)));
      expect(s.records).toBeLessThanOrEqual(intact.records + 1);
      for (const f of s.findings) expect(f.file).toBe(p);
    }
  });
});
