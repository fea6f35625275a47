/**
 * The outline first (InspectOptions.onOutline, what the TUI opens on): every store's outline is handed
 * over before any table is read, the tables are then read into the same model, and the model returned
 * at the end is the one read without the outline, on the committed samples (RocksDB written by Besu and
 * Nethermind, LevelDB by geth) and on an L0 pile-up db_bench wrote. Stopping through the signal stops
 * the table reads part-way.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { inspectDatadir } from "../../src/datadir/inspect.js";
import type { DatadirModel, SstFileModel } from "../../src/datadir/model.js";
import { runInspect, type InspectResult } from "../../src/report/deep.js";
import { buildInspectReport } from "../../src/report/build.js";
import { dbBench, removeDir, SAMPLES, tempDir } from "../helpers/index.js";
import { ONE_TABLE_PER_MEMTABLE, TINY_L0_PILEUP } from "./helpers.js";

const files = (m: DatadirModel): SstFileModel[] =>
  m.instances.flatMap((i) => i.columnFamilies.flatMap((c) => c.levels.flatMap((l) => l.files)));
const withoutTime = (m: DatadirModel) => ({ ...m, elapsedMs: 0 });

describe("inspectDatadir with onOutline", () => {
  for (const sample of ["besu-snapshot", "nethermind", "geth-leveldb", "modern"]) {
    const dir = join(SAMPLES, sample);
    it.skipIf(!existsSync(dir))(
      `${sample}: the outline has no table details; the end model is unchanged`,
      async () => {
        const plain = await inspectDatadir(dir, { tableDetails: "cheap" });
        let outline: DatadirModel | undefined;
        let snapshot: (() => DatadirModel) | undefined;
        const model = await inspectDatadir(dir, {
          tableDetails: "cheap",
          onOutline: (snap) => {
            snapshot = snap;
            outline = structuredClone(snap());
          },
        });
        expect(withoutTime(model)).toEqual(withoutTime(plain));
        expect(outline).toBeDefined();
        // the same tables, none of them read yet
        expect(files(outline!).map((f) => f.path)).toEqual(files(plain).map((f) => f.path));
        expect(files(outline!).some((f) => f.details)).toBe(false);
        expect(
          files(plain)
            .filter((f) => f.present)
            .every((f) => f.details),
        ).toBe(true);
        // the snapshot follows the reads: at the end it is the model returned
        expect(withoutTime(snapshot!())).toEqual(withoutTime(model));
      },
    );
  }

  const besu = join(SAMPLES, "besu-snapshot");
  it.skipIf(!existsSync(besu))("deep mode: the same result with the outline as without", async () => {
    const plain = await runInspect(besu, { mode: "deep" });
    let outline: InspectResult | undefined;
    const r = await runInspect(besu, {
      mode: "deep",
      onOutline: (snap) => {
        outline = snap();
        expect(files(outline.model).some((f) => f.details)).toBe(false);
      },
    });
    expect(outline).toBeDefined();
    expect(withoutTime(r.model)).toEqual(withoutTime(plain.model));
    expect([...r.deep!.entries()]).toEqual([...plain.deep!.entries()]);
  });

  it.skipIf(!existsSync(besu))(
    "a report over tables still being read does not call them unreadable",
    async () => {
      const r = await runInspect(besu);
      const f = files(r.model).find((x) => x.present)!;
      delete f.details; // as in an outline whose reads have not reached this table
      const ids = (pending: boolean) =>
        buildInspectReport(r.model, r.mode, undefined, { tablesPending: pending }).instances.flatMap((i) =>
          i.cfs.flatMap((c) => c.flags.map((x) => x.id)),
        );
      expect(ids(false)).toContain("files-unread");
      expect(ids(true)).not.toContain("files-unread");
    },
  );
});

const hasDbBench = spawnSync("db_bench", ["--help"]).status !== null;

describe.skipIf(!hasDbBench)("onOutline on an L0 pile-up (db_bench)", () => {
  let root: string;
  let db: string;
  beforeAll(() => {
    root = tempDir("lsmscope-outline-");
    db = join(root, "db");
    // every 24 KiB memtable flushes to its own L0 table: ~300 tables whatever the load (the test needs
    // more than 2 x 64, the tables between two yields)
    dbBench(db, [...TINY_L0_PILEUP, ...ONE_TABLE_PER_MEMTABLE, "--num=300000"]);
  }, 120_000);
  afterAll(() => removeDir(root));

  it("the snapshot fills in as the tables are read, and aborting stops the reads part-way", async () => {
    const plain = await inspectDatadir(db, { tableDetails: "cheap" });
    const total = files(plain).filter((f) => f.present).length;
    expect(total).toBeGreaterThan(128);

    let snapshot: (() => DatadirModel) | undefined;
    const seen: number[] = [];
    const model = await inspectDatadir(db, {
      tableDetails: "cheap",
      onOutline: (snap) => void (snapshot = snap),
      onProgress: (done) => {
        if (done === 64 || done === 128) seen.push(files(snapshot!()).filter((f) => f.details).length);
      },
    });
    expect(seen).toEqual([64, 128]);
    expect(withoutTime(model)).toEqual(withoutTime(plain));

    const abort = new AbortController();
    let stopped: (() => DatadirModel) | undefined;
    const reason = new Error("closed");
    await expect(
      inspectDatadir(db, {
        tableDetails: "cheap",
        signal: abort.signal,
        onOutline: (snap) => void (stopped = snap),
        onProgress: (done) => {
          if (done === 64) abort.abort(reason);
        },
      }),
    ).rejects.toBe(reason);
    const read = files(stopped!()).filter((f) => f.details).length;
    expect(read).toBeGreaterThanOrEqual(64);
    expect(read).toBeLessThan(total);
  }, 60_000);
});
