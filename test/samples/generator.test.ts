/**
 * The generator itself: same seed → same logical content (truth files and `ldb scan` / LevelDB dumps
 * of every store compared between two runs), a different seed → different content, the committed
 * truth files match what the generator at HEAD writes, and it never writes into a directory it did
 * not create.
 */
import { afterAll, describe, expect, it } from "vitest";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ClassicLevel } from "classic-level";
import { engineAvailable } from "../../src/engine/index.js";
import { MARKER_FILE } from "../../src/samples/marker.js";
import {
  DEFAULT_ACCOUNTS,
  DEFAULT_SEED,
  SAMPLE_NAMES,
  generateSample,
  type SampleName,
} from "../../src/samples/samples.js";
import type { SampleTruth } from "../../src/samples/truth.js";
import { LsmscopeError } from "../../src/util/errors.js";
import { SAMPLES, cleanupTemps, haveRocksTools, ldbScan, tempDir } from "./helpers.js";

afterAll(cleanupTemps);

const needsEngine = (n: SampleName) => n.startsWith("besu") || n === "nethermind";
const runnable = SAMPLE_NAMES.filter((n) => engineAvailable() || !needsEngine(n));

async function generateAll(
  root: string,
  seed: string,
  accounts: number,
): Promise<Record<string, SampleTruth>> {
  const out: Record<string, SampleTruth> = {};
  for (const n of runnable) out[n] = await generateSample(n, join(root, n), { seed, accounts });
  return out;
}

/** Every RocksDB instance and CF of a generated sample, as `ldb scan --hex` rows. */
function rocksDumps(root: string, truth: Record<string, SampleTruth>): Record<string, string> {
  const dumps: Record<string, string> = {};
  for (const [name, t] of Object.entries(truth)) {
    if (name === "geth-leveldb" || name === "modern") continue;
    for (const [inst, { columnFamilies }] of Object.entries(t.instances))
      for (const [label, cf] of Object.entries(columnFamilies)) {
        const cfName = Buffer.from(cf.nameHex, "hex").toString("latin1");
        dumps[`${name}/${inst}/${label}`] = ldbScan(join(root, name, inst), cfName)
          .map(([k, v]) => `${k.toString("hex")}=${v.toString("hex")}`)
          .join("\n");
      }
  }
  return dumps;
}

async function levelDump(dir: string): Promise<string> {
  const db = new ClassicLevel<Buffer, Buffer>(dir, { keyEncoding: "buffer", valueEncoding: "buffer" });
  await db.open({ createIfMissing: false });
  const rows: string[] = [];
  for await (const [k, v] of db.iterator()) rows.push(`${k.toString("hex")}=${v.toString("hex")}`);
  await db.close();
  return rows.join("\n");
}

/** The truth without `filesPerLevel` (the tables' levels, chosen by background compactions). */
function withoutLayout(truth: unknown): unknown {
  return JSON.parse(JSON.stringify(truth, (k, v: unknown) => (k === "filesPerLevel" ? undefined : v)));
}

describe("sample generator", () => {
  it("is deterministic: the same seed gives the same stores, another seed different ones", async () => {
    const a = tempDir();
    const b = tempDir();
    const c = tempDir();
    const ta = await generateAll(a, "determinism", 300);
    const tb = await generateAll(b, "determinism", 300);
    expect(tb).toEqual(ta);
    expect(ta["geth-leveldb"]!.accounts.total).toBe(300);
    if (haveRocksTools) expect(rocksDumps(b, tb)).toEqual(rocksDumps(a, ta));
    // LevelDB dumps after the log is recovered (on the generated copies, which are ours to open)
    expect(await levelDump(join(b, "geth-leveldb", "geth/chaindata"))).toBe(
      await levelDump(join(a, "geth-leveldb", "geth/chaindata")),
    );
    // only geth-leveldb is compared for another seed, so it alone is written at that seed (the other
    // four samples would take ~1.5 s to build, unread)
    const tc = await generateSample("geth-leveldb", join(c, "geth-leveldb"), {
      seed: "another seed",
      accounts: 300,
    });
    expect(tc.code.distinctSizes).not.toEqual(ta["geth-leveldb"]!.code.distinctSizes);
  });

  it("reproduces the committed ground truth at the default seed and scale", async () => {
    const root = tempDir();
    for (const n of runnable) {
      const t = await generateSample(n, join(root, n), { seed: DEFAULT_SEED, accounts: DEFAULT_ACCOUNTS });
      const committed = JSON.parse(readFileSync(join(SAMPLES, `${n}.truth.json`), "utf8"));
      // which level a table ends in is RocksDB's background compactions' choice, which varies from run
      // to run (nethermind's state: L5 1 / L6 5 in one run, L5 2 / L6 4 in another): the logical truth
      // must match, the physical layout only where it was recorded
      expect(withoutLayout(JSON.parse(JSON.stringify(t))), n).toEqual(withoutLayout(committed));
    }
  });

  it("refuses a directory it did not create and replaces only its own", async () => {
    const root = tempDir();
    const foreign = join(root, "geth-leveldb");
    mkdirSync(foreign);
    writeFileSync(join(foreign, "precious"), "user data");
    await expect(generateSample("geth-leveldb", foreign, { seed: "x", accounts: 60 })).rejects.toThrow(
      LsmscopeError,
    );
    await expect(generateSample("geth-leveldb", foreign, { seed: "x", accounts: 60 })).rejects.toThrow(
      /not created by the sample generator/,
    );
    expect(readFileSync(join(foreign, "precious"), "utf8")).toBe("user data");
    expect(existsSync(join(foreign, MARKER_FILE))).toBe(false);

    const own = join(root, "own");
    await generateSample("geth-leveldb", own, { seed: "x", accounts: 60 });
    writeFileSync(join(own, "stale"), "left over");
    await generateSample("geth-leveldb", own, { seed: "x", accounts: 60 });
    expect(existsSync(join(own, MARKER_FILE))).toBe(true);
    expect(existsSync(join(own, "stale"))).toBe(false);
  });

  it.skipIf(engineAvailable())("names the missing engine when it cannot write Besu samples", async () => {
    await expect(
      generateSample("besu-snapshot", join(tempDir(), "b"), { seed: "x", accounts: 60 }),
    ).rejects.toThrow(/librocksdb|engine/);
  });
});
