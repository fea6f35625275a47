/**
 * A reader that cycles through more tables than its thread's descriptor budget (lsm/newest_by_hash.ts:
 * every run takes its turn in every sub-range) lends each table's descriptor back as its turn ends
 * (TableFile.rest), so all but one of the budget stay open and only the tables beyond it are opened
 * again. With the least recently read table closing alone, a cycle over more tables than the budget
 * opened every table again at every turn (`sizes --full` on 5,260 L0 tables under a budget of 5,000 a
 * thread: 37,525 opens; 19,346 with rest()). Run in a child process under a descriptor limit of 64:
 * a budget of 16 table descriptors (util/open_files.ts; 32 inside asOnlyTableReader), over ~60 tables
 * db_bench wrote.
 */
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dbBench, REPO, trackedTempDirs } from "../helpers/index.js";
import { ONE_TABLE_PER_MEMTABLE, TINY_L0_PILEUP } from "../datadir/helpers.js";

const { tempDir, cleanupTemps } = trackedTempDirs("lsmscope-rest-");
let tables: string[];

beforeAll(() => {
  const db = join(tempDir(), "db");
  // 24 KiB memtables of 36-byte entries: one L0 table per ~1,000 writes, ~60 tables (45,000 writes
  // gave 44-46 tables, and 36 in a suite run on a loaded machine: too few for half the limit's 32)
  dbBench(db, [...TINY_L0_PILEUP, ...ONE_TABLE_PER_MEMTABLE, "--num=60000"]);
  tables = readdirSync(db)
    .filter((f) => f.endsWith(".sst"))
    .map((f) => join(db, f));
});

afterAll(cleanupTemps);

/**
 * Descriptors opened by a child that opens every table, then reads each table's first bytes in turn,
 * `turns` times over, each table resting after its read when `rest` is set; and the most held at once.
 * `only`: the turns inside asOnlyTableReader (util/open_files.ts), then one more turn outside it
 * without resting, after which `heldAfter` descriptors are held.
 */
function cycle(
  rest: boolean,
  turns: number,
  only = false,
): { opened: number; heldMax: number; heldAfter: number } {
  const dist = (p: string) => new URL(`file://${join(REPO, "dist/src", p)}`).href;
  const script = `
    import { openTable } from ${JSON.stringify(dist("format/table.js"))};
    import { tableDescriptorsOpened, tableDescriptorsInUse } from ${JSON.stringify(dist("format/table_file.js"))};
    import { asOnlyTableReader } from ${JSON.stringify(dist("util/open_files.js"))};
    const [paths, rest, turns, only] = JSON.parse(process.argv[1]);
    const open = paths.map((p) => openTable(p));
    let heldMax = 0;
    const cycle = () => {
      for (let turn = 0; turn < turns; turn++)
        for (const t of open) {
          t.blocks.file.read(0, 64);
          if (rest) t.blocks.file.rest();
          heldMax = Math.max(heldMax, tableDescriptorsInUse());
        }
    };
    let heldAfter = -1;
    if (only) {
      asOnlyTableReader(cycle);
      const opened = tableDescriptorsOpened();
      for (const t of open) t.blocks.file.read(0, 64);
      heldAfter = tableDescriptorsInUse();
      for (const t of open) t.close();
      console.log(JSON.stringify({ opened, heldMax, heldAfter }));
    } else {
      cycle();
      for (const t of open) t.close();
      console.log(JSON.stringify({ opened: tableDescriptorsOpened(), heldMax, heldAfter }));
    }
  `;
  const r = spawnSync(
    "sh",
    [
      "-c",
      'ulimit -n 64 && exec "$0" --input-type=module -e "$1" "$2"',
      process.execPath,
      script,
      JSON.stringify([tables, rest, turns, only]),
    ],
    { encoding: "utf8", timeout: 60_000 },
  );
  if (r.status !== 0) throw new Error(`child failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as { opened: number; heldMax: number; heldAfter: number };
}

describe("TableFile.rest", () => {
  it("keeps all but one of the budget open through a cycle over more tables than it, never more", () => {
    const n = tables.length;
    const budget = 16; // a quarter of the limit of 64
    // more tables than the budget, or the cycle proves nothing
    expect(n).toBeGreaterThan(budget + 4);
    const turns = 5;
    const lru = cycle(false, turns);
    const rested = cycle(true, turns);
    // least recently read closing: every table opened at open, then again at every turn
    expect(lru.opened).toBe(n + turns * n);
    // resting: the tables beyond the budget's first 15 are opened again at each turn
    expect(rested.opened).toBe(n + turns * (n - (budget - 1)));
    expect(lru.heldMax).toBe(budget);
    expect(rested.heldMax).toBeLessThanOrEqual(budget);
  });

  it("gets half the limit on the only thread reading tables, and lends it back after (diff's)", () => {
    const n = tables.length;
    const budget = 32; // half the limit of 64
    expect(n).toBeGreaterThan(budget + 4);
    const turns = 3;
    const only = cycle(true, turns, true);
    // the tables were opened under a quarter (16 kept): the first turn opens the other n - 16 again,
    // each later one those beyond the half's first 31
    expect(only.opened).toBe(n + (n - 16) + (turns - 1) * (n - (budget - 1)));
    expect(only.heldMax).toBe(budget - 1); // counted after each rest
    // outside it, each table read lends the least recently read one back down to a quarter
    expect(only.heldAfter).toBe(16);
  });
});
