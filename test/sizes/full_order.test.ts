/**
 * `sizes --full` runs phase A (code) and phase B (the rest) as one batch where code is a column family
 * of its own (compute.ts runFull, full_order.ts): account ranges scanned before the delegation hashes
 * were known are told apart afterwards. Here: an account range settled afterwards equals the same
 * range scanned with the hashes (AccountAcc over real account records), a range counted past the exact
 * cap (HyperLogLog) is scanned again, and the costliest tasks go first. The samples' `sizes --full`
 * snapshots (test/snapshots: 160 delegated accounts of 4,000) hold the whole path.
 */
import { describe, expect, it } from "vitest";
import { randomBytes } from "node:crypto";
import { AccountAcc, hash53, Hll, settleDelegations, type AccountAccData } from "../../src/sizes/eth_acc.js";
import { costliestFirst, settleAccounts } from "../../src/sizes/full_order.js";
import { rlpEncode } from "../../src/eth/rlp.js";
import type { CfPlan } from "../../src/sizes/plan.js";
import type { ScanPool } from "../../src/sizes/pool.js";
import type { PartialResult, ScanTask } from "../../src/sizes/scan.js";

/** An account record [nonce, balance, storageRoot, codeHash] with this code hash. */
const account = (codeHash: Uint8Array) =>
  rlpEncode([Uint8Array.of(1), Uint8Array.of(2), randomBytes(32), codeHash]);

describe("delegated accounts told apart after the scan", () => {
  it("settling a range scanned without the hashes gives what scanning with them gives", () => {
    const designators = Array.from({ length: 5 }, () => randomBytes(32));
    const contracts = Array.from({ length: 40 }, () => randomBytes(32));
    const records = Array.from({ length: 2000 }, (_, i) =>
      account(i % 7 === 0 ? designators[i % 5]! : contracts[i % 40]!),
    );
    const hashes = new Set(designators.map((d) => hash53(d, 0)));
    const withHashes = new AccountAcc(hashes);
    const without = new AccountAcc(new Set());
    for (const r of records) {
      withHashes.add(r, 0, r.length);
      without.add(r, 0, r.length);
    }
    const expected = withHashes.data();
    expect(expected.delegated).toBeGreaterThan(0);
    const settled = settleDelegations(without.data(), hashes)!;
    expect(settled.delegated).toBe(expected.delegated);
    expect(settled.contract).toBe(expected.contract);
    const pairs = (d: AccountAccData) => {
      const m = new Map<number, number>();
      for (let i = 0; i < d.codeHashCounts!.length; i += 2)
        m.set(d.codeHashCounts![i]!, d.codeHashCounts![i + 1]!);
      return m;
    };
    expect(pairs(settled)).toEqual(pairs(expected));
    // no delegation found: the data as it is
    const d = without.data();
    expect(settleDelegations(d, new Set())).toBe(d);
  });

  it("a range counted past the exact cap (HyperLogLog) cannot be settled: it runs again with the hashes", async () => {
    const hll: AccountAccData = {
      total: 3,
      eoa: 1,
      delegated: 0,
      contract: 2,
      undecodable: 0,
      codeHashCounts: null,
      hll: new Hll().regs,
    };
    expect(settleDelegations(hll, new Set([7]))).toBeUndefined();
    const exact: AccountAccData = { ...hll, codeHashCounts: [7, 1, 9, 1], hll: null };
    const tasks = [{ id: 10 }, { id: 11 }, { id: 12 }] as ScanTask[];
    const results = [{ id: 10, accounts: hll }, { id: 11, accounts: exact }, { id: 12 }] as PartialResult[];
    const asked: number[][] = [];
    const again = { id: 10, accounts: { ...exact, delegated: 1, contract: 1, codeHashCounts: [9, 1] } };
    const pool = {
      run: async (t: ScanTask[]) => {
        asked.push(t.map((x) => x.id));
        return [again];
      },
    } as unknown as ScanPool;
    const out = await settleAccounts(tasks, results, new Set([7]), pool);
    expect(asked).toEqual([[10]]);
    expect(out[0]).toBe(again);
    expect(out[1]!.accounts).toMatchObject({ delegated: 1, contract: 1, codeHashCounts: [9, 1] });
    expect(out[2]).toBe(results[2]);
  });
});

describe("costliestFirst", () => {
  it("orders the column families' tasks by entries and stored bytes, a column family's share each", () => {
    const plan = (entries: number | undefined, dataBytes: number) => ({ entries, dataBytes }) as CfPlan;
    const plans = new Map([
      ["code", plan(60_000, 106e6)],
      ["accounts", plan(800_000, 95e6)],
      ["storage", plan(900_000, 85e6)],
      ["leveldb", plan(undefined, 300e6)],
    ]);
    const t = (id: number) => ({ id }) as ScanTask;
    const order = costliestFirst(
      [
        { key: "code", tasks: [t(0)] },
        { key: "accounts", tasks: [t(1), t(2)] },
        { key: "storage", tasks: [t(3)] },
        { key: "leveldb", tasks: [t(4)] },
      ],
      plans,
    );
    // storage 1.75 M, leveldb 3 M, code 1.12 M, each accounts range 0.875 M
    expect(order.map((x) => x.id)).toEqual([4, 3, 0, 1, 2]);
    // a first column family cut into ranges: its first range (the head start) is claimed first
    const cut = costliestFirst(
      [
        { key: "accounts", tasks: [t(1), t(2)] },
        { key: "storage", tasks: [t(3)] },
      ],
      plans,
    );
    expect(cut.map((x) => x.id)).toEqual([1, 3, 2]);
  });
});
