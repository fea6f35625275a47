/**
 * Fuzz: mutate real sample tables a few thousand times (byte flips, overwritten runs, truncations) and
 * run every reader operation over each. The only acceptable outcomes are a clean read or one
 * LsmscopeError naming the file; no other exception, no hang (bounded by a time budget).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openTable } from "../../src/format/index.js";
import { dbBench, makeTempDir, removeDir, tablesIn } from "./oracle.js";
import { exercise } from "./mutate.js";
import { writeWithClassicLevel, writeWithNxtedition } from "./writers.js";

/** Mutants read; the test's name states this count and the loop runs every one of them. */
const ITERATIONS = 1500;

let root: string;
const samples: { name: string; bytes: Buffer; keys: Buffer[] }[] = [];

function addSample(name: string, file: string): void {
  const t = openTable(file);
  const keys: Buffer[] = [];
  t.scan((e) => {
    if (keys.length < 4 && e.blockHandle) keys.push(e.userKeyCopy());
  });
  t.close();
  samples.push({ name, bytes: readFileSync(file), keys });
}

beforeAll(async () => {
  root = makeTempDir("fuzz");
  const small = ["--num=800", "--block_size=1024"];
  addSample(
    "lz4-bloom",
    dbBench(join(root, "a"), [...small, "--compression_type=lz4", "--bloom_bits=10"])[0]!,
  );
  addSample(
    "zstd-partitioned",
    dbBench(join(root, "b"), [
      ...small,
      "--compression_type=zstd",
      "--partition_index_and_filters=1",
      "--bloom_bits=10",
      "--metadata_block_size=256",
    ])[0]!,
  );
  addSample(
    "snappy-f2-crc",
    dbBench(join(root, "c"), [
      ...small,
      "--compression_type=snappy",
      "--format_version=2",
      "--checksum_type=1",
      "--bloom_bits=10",
    ])[0]!,
  );
  await writeWithClassicLevel(join(root, "ldb"), 800);
  addSample("leveldb", tablesIn(join(root, "ldb"), ".ldb")[0]!);
  await writeWithNxtedition(join(root, "nx"), 800, { filterPolicy: "ribbonfilter:10:-1" });
  addSample("format6-ribbon", tablesIn(join(root, "nx"))[0]!);
}, 120_000);
afterAll(() => removeDir(root));

/** xorshift32: deterministic, so a failure can be replayed. */
function rng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x / 4294967296;
  };
}

function mutate(src: Buffer, r: () => number): Buffer {
  const b = Buffer.from(src);
  const n = b.length;
  // half the mutations hit the last ~2 KiB: footer, metaindex, properties, index
  const pos = () =>
    r() < 0.5 ? Math.max(0, n - 1 - Math.floor(r() * Math.min(n, 2048))) : Math.floor(r() * n);
  const kind = r();
  if (kind < 0.1) return b.subarray(0, Math.floor(r() * n));
  if (kind < 0.2) {
    const p = pos();
    b.fill(Math.floor(r() * 256), p, Math.min(n, p + 1 + Math.floor(r() * 16)));
    return b;
  }
  const flips = 1 + Math.floor(r() * 4);
  for (let i = 0; i < flips; i++) b[pos()]! ^= 1 << Math.floor(r() * 8);
  return b;
}

describe("fuzz", () => {
  it(`${ITERATIONS} mutated tables: clean read or one LsmscopeError, never anything else`, () => {
    expect(samples.length).toBe(5);
    const r = rng(0x5eed);
    const file = join(root, "mutant.sst");
    const outcomes = { ok: 0, error: 0 };
    let i = 0;
    for (; i < ITERATIONS; i++) {
      const s = samples[i % samples.length]!;
      writeFileSync(file, mutate(s.bytes, r));
      const verify = r() < 0.3;
      let o;
      try {
        o = exercise(file, verify, s.keys);
      } catch (err) {
        throw new Error(`iteration ${i} (${s.name}, verify=${verify}): ${(err as Error).stack}`);
      }
      if (o.ok) outcomes.ok++;
      else {
        outcomes.error++;
        expect(o.error.file).toBe(file);
      }
    }
    expect(i).toBe(ITERATIONS);
    expect(outcomes.error).toBeGreaterThan(0);
    console.log(
      `fuzz: ${i} mutants, ${outcomes.ok} read cleanly, ${outcomes.error} refused with a clear error`,
    );
  }, 60_000);
});
