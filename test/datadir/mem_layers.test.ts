/**
 * The WAL layers of several column families from one pass over the WALs they share (loadMemLayers)
 * against a pass per column family (loadMemLayer), and against `ldb dump_wal` on a copy: a db_bench
 * store of three column families whose writes are all in its WAL (a 64 MiB memtable, closed without a
 * flush). sizes replays a Besu store's WAL once for all its column families this way, and so do
 * compact's digests and diff (the thread's read bytes tell how many times the WAL was read).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { inspectDatadir } from "../../src/datadir/inspect.js";
import type { InstanceModel } from "../../src/datadir/model.js";
import { loadMemLayer, loadMemLayers, memCount, memKey } from "../../src/datadir/memtable.js";
import { WalLayers } from "../../src/lsm/wal_layers.js";
import { digestColumnFamily, digestStore } from "../../src/compact/digest.js";
import { diffDatadirs } from "../../src/diff/index.js";
import { copyInto, dbBench, trackedTempDirs } from "../helpers/index.js";

const { tempDir, cleanupTemps } = trackedTempDirs("lsmscope-mem-layers-");
/** Bytes this thread's read calls have returned (rchar): what a command read of the WAL, here. */
const io = "/proc/thread-self/io";
const rchar = () => Number(/^rchar: (\d+)$/m.exec(readFileSync(io, "latin1"))![1]);
let db: string;
let inst: InstanceModel;

beforeAll(async () => {
  db = join(tempDir(), "db");
  dbBench(db, [
    "--benchmarks=fillrandom,overwrite",
    "--num_column_families=3",
    "--num=6000",
    "--value_size=50",
    "--write_buffer_size=67108864",
  ]);
  inst = (await inspectDatadir(db)).instances[0]!;
}, 120_000);
afterAll(cleanupTemps);

describe("loadMemLayers", () => {
  it("one pass gives each column family the layer a pass of its own gives, and ldb's writes", () => {
    expect(inst.columnFamilies).toHaveLength(3);
    const layers = loadMemLayers(
      inst.wal,
      inst.columnFamilies.map((c) => ({ id: c.id, wants: () => true })),
    );
    // ldb dump_wal on a copy (ldb may open a store read-write): "PUT(cf)" per write
    const copy = copyInto(db, tempDir(), "db");
    const log = readdirSync(copy).find((n) => n.endsWith(".log"))!;
    const dump = spawnSync("ldb", ["dump_wal", `--walfile=${join(copy, log)}`, "--header"], {
      encoding: "utf8",
      maxBuffer: 64 << 20,
    });
    const perCf = new Map<number, number>();
    for (const m of dump.stdout.matchAll(/PUT\((\d+)\)/g))
      perCf.set(Number(m[1]), (perCf.get(Number(m[1])) ?? 0) + 1);
    let total = 0;
    for (const cf of inst.columnFamilies) {
      const one = loadMemLayer(inst.wal, cf.id, { minLogNumber: cf.logNumber });
      const shared = layers.get(cf.id)!;
      expect(memCount(shared.entries)).toBe(memCount(one.entries));
      expect(memCount(shared.entries)).toBe(perCf.get(cf.id) ?? 0);
      for (let i = 0; i < memCount(one.entries); i += 97)
        expect(memKey(shared.entries, i).equals(memKey(one.entries, i))).toBe(true);
      total += memCount(shared.entries);
    }
    // fillrandom and overwrite: 6,000 writes each
    expect(total).toBe(12_000);
  });

  it("WalLayers loads the column families asked for together in one pass", async () => {
    // a copy whose WAL is removed after the first layer is asked for: the others must not read it
    const copy = copyInto(db, tempDir(), "db");
    const model = (await inspectDatadir(copy)).instances[0]!;
    const [a, b, c] = model.columnFamilies;
    const layers = new WalLayers({ together: [b!, c!] });
    const first = memCount(layers.of(model, a!).entries);
    for (const w of model.wal) rmSync(w.path);
    expect(memCount(layers.of(model, b!).entries)).toBe(memCount(loadMemLayer(inst.wal, b!.id).entries));
    expect(memCount(layers.of(model, c!).entries)).toBe(memCount(loadMemLayer(inst.wal, c!.id).entries));
    expect(first).toBe(memCount(loadMemLayer(inst.wal, a!.id).entries));
    expect(first).toBeGreaterThan(0);
  });

  it("compact's digest replays a shared WAL once for the column families it digests, the same digests", async () => {
    // the model's WAL scan reads the WAL once, and the digests' replays once more, not once per
    // column family (three)
    const walBytes = inst.wal.reduce((a, w) => a + w.size, 0);
    expect(walBytes).toBeGreaterThan(500_000);
    const before = existsSync(io) ? rchar() : 0;
    const together = await digestStore(db);
    if (existsSync(io)) expect(rchar() - before).toBeLessThan(2.5 * walBytes);
    expect(together.columnFamilies).toHaveLength(3);
    for (const cf of inst.columnFamilies) {
      const alone = digestColumnFamily(inst, cf);
      const d = together.columnFamilies.find((x) => x.cf === cf.nameHex)!;
      expect(d.sha256).toBe(alone.sha256);
      expect(d.walEntries).toBe(alone.walEntries);
      expect(d.walEntries).toBeGreaterThan(0);
    }
  });

  it("diff replays each side's shared WAL once for its column families", async () => {
    // the two models' WAL scans and one replay a side: four WALs read, where a replay per column
    // family and side made eight
    const walBytes = inst.wal.reduce((a, w) => a + w.size, 0);
    const before = existsSync(io) ? rchar() : 0;
    const d = await diffDatadirs(db, db);
    if (existsSync(io)) expect(rchar() - before).toBeLessThan(5 * walBytes);
    expect(d.identical).toBe(true);
    expect(d.columnFamilies).toHaveLength(3);
    expect(d.totals.same).toBeGreaterThan(1000);
  });
});
