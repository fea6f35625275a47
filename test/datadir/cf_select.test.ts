/**
 * One spelling of `--cf` for every command (src/datadir/cf_select.ts): the names a Besu and a Nethermind
 * datadir give their column families, matched the same way by the matcher and by the commands' own
 * resolvers (probe's resolveColumnFamily, sizes' selectCfs, compact's plan refusing an ambiguous name).
 * Before, `sizes` and `probe` did not take a Besu segment's name, and no command took "STORE/cf06".
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { join } from "node:path";
import { inspectDatadir } from "../../src/datadir/inspect.js";
import type { ColumnFamilyModel, DatadirModel, InstanceModel } from "../../src/datadir/model.js";
import { cfSelected, cfsSelected } from "../../src/datadir/cf_select.js";
import { resolveColumnFamily } from "../../src/probe/probe.js";
import { selectCfs } from "../../src/sizes/plan.js";
import { planCompaction } from "../../src/compact/plan.js";
import * as engine from "../../src/engine/index.js";
import { SAMPLES, snapshotTree } from "../helpers/index.js";
import { cleanupTemps, tempDir } from "../compact/helpers.js";

let besu: DatadirModel;
let nethermind: DatadirModel;

beforeAll(async () => {
  besu = await inspectDatadir(join(SAMPLES, "besu-snapshot"), { tableDetails: "none" });
  nethermind = await inspectDatadir(join(SAMPLES, "nethermind"), { tableDetails: "none" });
});

const named = (inst: InstanceModel, selector: string) =>
  cfsSelected(inst, selector).map((c) => c.displayName);

describe("cfSelected", () => {
  it("names a Besu column family by hex, segment number, segment name, display name, with its store", () => {
    const inst = besu.instances[0]!;
    expect(inst.relPath).toBe("database");
    for (const s of [
      "06",
      "0x06",
      "0X06",
      "cf06",
      "CF06",
      "ACCOUNT_INFO_STATE",
      "account_info_state",
      "cf06 ACCOUNT_INFO_STATE",
      "database/cf06",
      "database/ACCOUNT_INFO_STATE",
      "DATABASE/06",
    ])
      expect(named(inst, s), s).toEqual(["cf06 ACCOUNT_INFO_STATE"]);
    for (const s of ["6", "cf6", "ACCOUNT", "INFO_STATE", "other/cf06", "database/", "/cf06", ""])
      expect(named(inst, s), s).toEqual([]);
    expect(named(inst, "default")).toEqual(["default"]);
  });

  it("names a Nethermind column family by its name, display name, or database and name", () => {
    const flat = nethermind.instances.find((i) => i.clientDetail?.database === "flat")!;
    const state = nethermind.instances.find((i) => i.clientDetail?.database === "state")!;
    for (const s of ["Account", "account", "flat/Account", "FLAT/account", "mainnet/flat/Account"])
      expect(named(flat, s), s).toEqual(["flat/Account"]);
    expect(named(state, "state/default")).toEqual(["state"]);
    // a store's name alone is not its column family's
    const account = flat.columnFamilies.find((c) => c.name === "Account")!;
    expect(cfSelected(account, "state/Account", flat)).toBe(false);
    // without the store, only what the column family itself is called
    expect(cfSelected(account, "flat/Account")).toBe(true);
    expect(cfSelected(account, "mainnet/flat/Account")).toBe(false);
  });
});

describe("the commands take the same spellings", () => {
  const cfOf = (r: { cf: ColumnFamilyModel }) => r.cf.displayName;

  it("probe's resolver", () => {
    for (const s of ["ACCOUNT_INFO_STATE", "cf06", "0x06", "database/cf06"])
      expect(cfOf(resolveColumnFamily(besu.instances, s)), s).toBe("cf06 ACCOUNT_INFO_STATE");
  });

  it("sizes' selection", () => {
    for (const s of ["ACCOUNT_INFO_STATE", "cf06", "0x06", "database/cf06"])
      expect(selectCfs(besu, { cf: [s] }).map(cfOf), s).toEqual(["cf06 ACCOUNT_INFO_STATE"]);
    expect(() => selectCfs(besu, { cf: ["NO_SUCH_SEGMENT"] })).toThrow(/no column family matches/);
  });
});

describe("compact refuses a --cf that names several column families", () => {
  afterAll(cleanupTemps);

  // written by RocksDB (the engine addon): two column families whose names differ only in case
  it.skipIf(!engine.engineAvailable())("State and state: refused by name, taken by hex", async () => {
    const store = join(tempDir(), "cases");
    const db = engine.openDb(store, {
      createIfMissing: true,
      columnFamilies: [
        { name: "State", options: "" },
        { name: "state", options: "" },
      ],
    });
    for (const cf of ["State", "state"]) {
      db.put(cf, Buffer.from("k"), Buffer.from("v"));
      db.flush(cf);
    }
    db.close();
    const before = snapshotTree(store);
    await expect(planCompaction(store, { cfs: ["state"] })).rejects.toThrow(
      /--cf "state" names 2 column families \(State, state\): give one by its hex name/,
    );
    const plan = await planCompaction(store, { cfs: [Buffer.from("state").toString("hex")] });
    expect(plan.columnFamilies.map((c) => c.displayName)).toEqual(["state"]);
    expect(snapshotTree(store)).toEqual(before);
  });
});
