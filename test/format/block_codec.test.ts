/**
 * The block codec helper (native/codec.c over the system's libsnappy and liblz4, built beside the
 * engine addon) decompresses Snappy and LZ4 blocks into a buffer the reader chooses instead of the npm
 * bindings' new buffer per block. On tables other programs wrote (db_bench: LZ4 and Snappy; LevelDB
 * through classic-level: Snappy) every block it decompresses, into a buffer of its own, the thread's
 * transient buffer or the table's scratch buffer, holds the bytes the npm bindings give, and the data
 * blocks hold as many entries as sst_dump scans in each table. Damaged blocks (checksums not verified,
 * so that the codecs meet them) fail or decode alike through both. Without the helper (not built, or
 * LSMSCOPE_NATIVE_CODEC=0) the CLI reads through the bindings and reports the same.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFileSync, spawnSync } from "node:child_process";
import { copyFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ClassicLevel } from "classic-level";
import { inspectDatadir } from "../../src/datadir/index.js";
import { openTable } from "../../src/format/index.js";
import type { BlockHandle } from "../../src/format/handle.js";
import type { BlockLifetime } from "../../src/format/table_file.js";
import { useNativeCodec } from "../../src/format/compression.js";
import { dbBench, makeTempDir, removeDir } from "./oracle.js";

const CLI = join(import.meta.dirname, "..", "..", "bin", "lsmscope.js");

let root: string;
/** Tables by the program and codec that wrote them. */
const tables: { name: string; path: string }[] = [];
let leveldbDir: string;
/** Whether the helper is built here (CI builds it with the engine addon). */
const helper = useNativeCodec(true);

/** 20,000 keys of compressible 100-byte values through LevelDB (Snappy, 4 KiB blocks, small memtables). */
async function writeLevelDb(dir: string): Promise<void> {
  const db = new ClassicLevel<Buffer, Buffer>(dir, { keyEncoding: "buffer", valueEncoding: "buffer" });
  await db.open({ createIfMissing: true, compression: true, blockSize: 4096, writeBufferSize: 64 << 10 });
  for (let b = 0; b < 40; b++) {
    const batch = db.batch();
    for (let i = 0; i < 500; i++) {
      const k = b * 500 + i;
      batch.put(Buffer.from(`key-${(k * 7919) % 20_000}`.padEnd(24, "-")), Buffer.alloc(100, `value ${k} `));
    }
    await batch.write();
  }
  await db.close();
}

beforeAll(async () => {
  root = makeTempDir("codec");
  const flags = ["--num=6000", "--compression_ratio=0.5"];
  for (const codec of ["lz4", "snappy"]) {
    const [path] = dbBench(join(root, codec), [...flags, `--compression_type=${codec}`]);
    tables.push({ name: `db_bench ${codec}`, path: path! });
  }
  leveldbDir = join(root, "leveldb");
  await writeLevelDb(leveldbDir);
  // the live tables (LevelDB may leave a table it was writing when closed: not in its MANIFEST)
  const model = await inspectDatadir(leveldbDir, { tableDetails: "none" });
  for (const level of model.instances[0]!.columnFamilies[0]!.levels)
    for (const f of level.files) tables.push({ name: `LevelDB ${f.fileName}`, path: f.path });
}, 120_000);
afterAll(() => {
  useNativeCodec(true);
  removeDir(root);
});

/** Every block the index names (data blocks) and the index block itself. */
function handlesOf(path: string): BlockHandle[] {
  const t = openTable(path);
  try {
    return [t.indexHandle, ...t.indexEntries().map((e) => e.handle)];
  } finally {
    t.close();
  }
}

/**
 * Each block of `path` read with `lifetime`, as base64 (copied out: the reused buffers are overwritten;
 * strings: vitest compares Buffers byte by byte through its generic equality, seconds for these), or
 * the error it met.
 */
function blocksOf(path: string, lifetime: BlockLifetime, verifyChecksums = true): string[] {
  const t = openTable(path, { verifyChecksums });
  try {
    return handlesOf(path).map((h, i) => {
      try {
        return t.blocks.read(h, i === 0 ? "index" : "data", lifetime).toString("base64");
      } catch (e) {
        return `error: ${(e as Error).constructor.name}`;
      }
    });
  } finally {
    t.close();
  }
}

describe("the block codec helper", () => {
  it("every table here holds blocks of the codecs the helper takes over (Snappy, LZ4)", () => {
    expect(tables.length).toBeGreaterThanOrEqual(3);
    for (const { name, path } of tables) {
      const t = openTable(path);
      try {
        t.blocks.read(t.indexEntries()[0]!.handle, "data");
        // Snappy (1) or LZ4 (4): the codec the helper takes over
        expect([1, 4], name).toContain(t.blocks.file.lastBlockType);
      } finally {
        t.close();
      }
    }
  });

  it.skipIf(!helper)(
    "gives the npm bindings' bytes for every block, in each buffer a reader may choose",
    () => {
      for (const { name, path } of tables) {
        useNativeCodec(false);
        const want = blocksOf(path, "owned");
        useNativeCodec(true);
        for (const lifetime of ["owned", "transient", "scratch", "window"] as const)
          expect(blocksOf(path, lifetime), `${name} ${lifetime}`).toEqual(want);
      }
    },
  );

  it.skipIf(!helper)(
    "decompresses transient and scratch reads into a buffer reused from block to block",
    () => {
      const { path } = tables[0]!;
      const t = openTable(path);
      try {
        // two blocks stored compressed (RocksDB stores a block raw when the codec saves too little)
        const [first, second] = handlesOf(path)
          .slice(1)
          .filter((h) => {
            t.blocks.read(h, "data");
            return t.blocks.file.lastBlockType === 4;
          });
        const a = t.blocks.read(first!, "data", "transient");
        const b = t.blocks.read(second!, "data", "transient");
        expect(b.buffer).toBe(a.buffer);
        const c = t.blocks.read(first!, "data", "scratch");
        const d = t.blocks.read(second!, "data", "scratch");
        expect(d.buffer).toBe(c.buffer);
        expect(c.buffer).not.toBe(a.buffer);
        // a buffer of its own for a block the caller keeps
        expect(t.blocks.read(first!, "data", "owned").buffer).not.toBe(t.blocks.read(first!, "data").buffer);
      } finally {
        t.close();
      }
    },
  );

  it.skipIf(!helper)("holds as many entries in each table as sst_dump scans", () => {
    let total = 0;
    for (const { name, path } of tables) {
      // sst_dump refuses the .ldb name ("not a valid SST file"): LevelDB's tables read as a copy
      const copy = join(root, "scan.sst");
      copyFileSync(path, copy);
      const scan = execFileSync("sst_dump", [`--file=${copy}`, "--command=scan"], {
        encoding: "latin1",
        maxBuffer: 64 << 20,
      });
      const want = scan.split("\n").filter((l) => l.includes(" => ")).length;
      const t = openTable(path);
      let got = 0;
      try {
        for (const e of t.indexEntries())
          got += [...t.readDataBlock(e.handle, { lifetime: "transient" })].length;
      } finally {
        t.close();
      }
      expect(got, name).toBe(want);
      total += got;
    }
    expect(total).toBeGreaterThan(20_000);
  });

  it.skipIf(!helper)("fails or decodes a damaged block as the npm bindings do", () => {
    const { path } = tables.find((x) => x.name.startsWith("LevelDB"))!;
    const lz4 = tables[0]!.path;
    for (const source of [path, lz4]) {
      const bytes = readFileSync(source);
      const h = handlesOf(source)[3]!;
      let failed = 0;
      for (const at of [1, 2, 5, Math.floor(h.size / 3), Math.floor(h.size / 2), h.size - 3]) {
        const damaged = Buffer.from(bytes);
        damaged[h.offset + at]! ^= 0x5a;
        const file = join(root, "damaged.sst");
        writeFileSync(file, damaged);
        useNativeCodec(false);
        const want = blocksOf(file, "owned", false);
        useNativeCodec(true);
        const got = blocksOf(file, "transient", false);
        expect(got, `${source} byte ${at}`).toEqual(want);
        if (got[3]!.startsWith("error: ")) failed++;
      }
      // the checks ran into refused blocks, not only into altered bytes
      expect(failed, source).toBeGreaterThan(0);
    }
  });

  it("the CLI reports the same sizes with the helper and without it (LSMSCOPE_NATIVE_CODEC=0)", () => {
    const run = (env: Record<string, string>) => {
      const r = spawnSync(CLI, ["sizes", leveldbDir, "--full", "--json"], {
        encoding: "utf8",
        env: { ...process.env, ...env },
      });
      expect(r.status, r.stderr).toBe(0);
      const d = JSON.parse(r.stdout) as Record<string, unknown>;
      return JSON.stringify(d, (k, v: unknown) =>
        k === "elapsedMs" || k === "entriesPerSecond" ? undefined : v,
      );
    };
    expect(run({ LSMSCOPE_NATIVE_CODEC: "0" })).toBe(run({}));
  });
});
