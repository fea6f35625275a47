/**
 * How `sizes --full` hands its tasks to the pool when phase A (code) and phase B (the rest) run as one
 * batch (compute.ts runFull): the costliest first, and the account ranges' delegated accounts told
 * apart once phase A's delegation hashes are known.
 */
import { settleDelegations } from "./eth_acc.js";
import type { CfPlan } from "./plan.js";
import type { ScanPool } from "./pool.js";
import type { PartialResult, ScanTask } from "./scan.js";

/**
 * The column families' tasks in the order the pool should claim them: the costliest first (entries,
 * and stored bytes), so that the last to finish is a short one; the head start's range first (below).
 * `plans`: the column families' plans, `groups` in the order their tasks were cut.
 */
export function costliestFirst(
  groups: readonly { key: string; tasks: ScanTask[] }[],
  plans: ReadonlyMap<string, CfPlan>,
): ScanTask[] {
  const cost = new Map<number, number>();
  for (const p of groups) {
    const cf = plans.get(p.key);
    if (!cf) continue;
    // an entry costs about what 100 stored bytes do (the Besu pile-up: storage's 900,000 entries of
    // 85 MB took 1.5 s, code's 60,000 of 106 MB 0.5 s)
    const each = ((cf.entries ?? 0) + cf.dataBytes / 100) / Math.max(1, p.tasks.length);
    for (const t of p.tasks) cost.set(t.id, each);
  }
  const order = groups.flatMap((p) => p.tasks).sort((a, b) => (cost.get(b.id) ?? 0) - (cost.get(a.id) ?? 0));
  // a column family cut into ranges gave its first the planning thread's head start (plan.ts
  // FIRST_RANGE_HEAD_START): that thread claims it at once, while a worker is still starting
  const head = groups[0] && groups[0].tasks.length > 1 ? groups[0].tasks[0]! : undefined;
  if (head) order.unshift(...order.splice(order.indexOf(head), 1));
  return order;
}

/**
 * Phase B's results, each account range's delegated accounts told apart by the delegation hashes
 * phase A found after it ran (settleDelegations); a range whose code hashes are no longer counted
 * one by one runs again with them.
 */
export async function settleAccounts(
  tasks: ScanTask[],
  results: PartialResult[],
  delegationHashes: ReadonlySet<number>,
  pool: ScanPool,
): Promise<PartialResult[]> {
  const again: number[] = [];
  const out = results.map((r, i) => {
    if (!r.accounts) return r;
    const accounts = settleDelegations(r.accounts, delegationHashes);
    if (accounts === undefined) again.push(i);
    return { ...r, accounts };
  });
  if (again.length > 0) {
    // their bytes were counted by the first run
    const rerun = await pool.run(
      again.map((i) => tasks[i]!),
      () => {},
    );
    again.forEach((i, k) => (out[i] = rerun[k]!));
  }
  return out;
}
