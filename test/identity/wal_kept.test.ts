/**
 * The chain head's reads take the writes the model's WAL scan kept (datadir/wal_kept.ts) instead of
 * replaying the WAL a second time: the Besu sample, whose head is only in its WAL (a copy without it
 * is at an older head: identity.test.ts). The same layer and identity as a replay gives; a WAL changed
 * since the scan is replayed; a store whose client has no head keys of its own keeps nothing.
 */
import { afterAll, describe, expect, it } from "vitest";
import { existsSync, readFileSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { inspectDatadir } from "../../src/datadir/inspect.js";
import { memCount, memKey } from "../../src/datadir/memtable.js";
import { BESU_HEAD_KEYS, besuHeadColumnFamilies } from "../../src/datadir/head_keys.js";
import { keptWalWrites } from "../../src/datadir/wal_kept.js";
import { readIdentity } from "../../src/identity/index.js";
import { WalLayers } from "../../src/lsm/wal_layers.js";
import { SAMPLES, copyInto, trackedTempDirs } from "../helpers/index.js";

const { tempDir, cleanupTemps } = trackedTempDirs("lsmscope-wal-kept-");
afterAll(cleanupTemps);

/** Bytes this thread's read calls have returned (rchar). */
const io = "/proc/thread-self/io";
const rchar = () => (existsSync(io) ? Number(/^rchar: (\d+)$/m.exec(readFileSync(io, "latin1"))![1]) : NaN);
const truth = JSON.parse(readFileSync(join(SAMPLES, "besu-snapshot.truth.json"), "utf8")).identity;

describe("the head's reads and the writes the WAL scan kept", () => {
  it("besu-snapshot: the head from the kept writes, no WAL read again; a touched WAL is replayed", async () => {
    const copy = copyInto(join(SAMPLES, "besu-snapshot"), tempDir());
    const model = await inspectDatadir(copy);
    const inst = model.instances[0]!;
    const walBytes = inst.wal.reduce((a, w) => a + w.size, 0);
    expect(walBytes).toBeGreaterThan(20_000);
    const head = besuHeadColumnFamilies(inst).map((c) => c.id);
    expect(head).toHaveLength(2);
    expect(inst.wal.every((w) => keptWalWrites(w, BESU_HEAD_KEYS, false, head) !== undefined)).toBe(true);
    // the head's column families' writes alone: a replay for another column family reads the WAL
    const other = inst.columnFamilies.find((c) => !head.includes(c.id))!.id;
    expect(inst.wal.some((w) => keptWalWrites(w, BESU_HEAD_KEYS, false, [other]) !== undefined)).toBe(false);

    // the head read twice: from the kept writes, and from a model whose WAL objects had nothing kept
    const bare = { ...inst, wal: inst.wal.map((w) => ({ ...w })) };
    readIdentity({ ...model, instances: [bare] }); // what a first read loads (codecs' modules) loaded
    let before = rchar();
    const id = readIdentity(model);
    const kept = rchar() - before;
    before = rchar();
    const fromReplay = readIdentity({ ...model, instances: [bare] });
    const replay = rchar() - before;
    for (const x of [id, fromReplay])
      expect({ chainHead: x.chainHead, stateRoot: x.stateRoot }).toEqual({
        chainHead: truth.chainHead,
        stateRoot: truth.stateRoot,
      });
    // the replay read the WAL, the kept writes' read did not (the tables' blocks for the head alike)
    if (!Number.isNaN(kept)) expect(replay - kept).toBeGreaterThanOrEqual(walBytes);

    // the same layers from the kept writes as from a replay (WAL objects the scan kept nothing for)
    const cfs = besuHeadColumnFamilies(inst);
    const fromKept = new WalLayers({ keys: BESU_HEAD_KEYS, together: cfs });
    const replayed = new WalLayers({ keys: BESU_HEAD_KEYS, together: cfs });
    for (const cf of cfs) {
      const a = fromKept.of(inst, cf).entries;
      const b = replayed.of(bare, cf).entries;
      expect(memCount(a)).toBe(memCount(b));
      for (let i = 0; i < memCount(a); i++) expect(memKey(a, i).equals(memKey(b, i))).toBe(true);
    }
    expect(
      memCount(fromKept.of(inst, cfs[0]!).entries) + memCount(fromKept.of(inst, cfs[1]!).entries),
    ).toBeGreaterThan(0);

    // a WAL modified since the scan (its mtime here): its writes are read from it again
    for (const w of inst.wal) utimesSync(w.path, new Date(), new Date(Date.now() + 5000));
    expect(inst.wal.some((w) => keptWalWrites(w, BESU_HEAD_KEYS, false, head) !== undefined)).toBe(false);
    before = rchar();
    const again = readIdentity(model);
    if (!Number.isNaN(kept)) expect(rchar() - before - kept).toBeGreaterThanOrEqual(walBytes);
    expect(again.chainHead).toEqual(truth.chainHead);
  });

  it("nethermind (no head keys of its own shape): its scan keeps nothing", async () => {
    const model = await inspectDatadir(join(SAMPLES, "nethermind"));
    for (const inst of model.instances)
      for (const w of inst.wal) expect(keptWalWrites(w, BESU_HEAD_KEYS, false, [0])).toBeUndefined();
  });
});
