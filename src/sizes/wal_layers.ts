/**
 * The WAL layers of the planned column families: each instance's live WALs replayed once for every
 * planned column family of it (datadir/memtable.ts loadMemLayers). The column families of a store
 * share its WALs (a Besu store's dozen), and each column family's layer replayed them whole for its
 * own writes: six column families of a 460 MB WAL read and decoded it six times.
 */
import { existsSync } from "node:fs";
import { loadMemLayers, type MemLayer } from "../datadir/memtable.js";
import { noteGone } from "../lsm/gone.js";
import type { CfPlan } from "./plan.js";

export class PlanWalLayers {
  private readonly layers = new Map<string, MemLayer>();

  /** `plans`: the planned column families by key, read when a layer is first asked for. */
  constructor(private readonly plans: ReadonlyMap<string, CfPlan>) {}

  /**
   * `plan`'s layer, with those of the other planned column families of its instance not loaded yet
   * (one pass over the instance's WALs). A WAL deleted since the version was read was flushed into a
   * table by then: noted, skipped.
   */
  of(plan: CfPlan): MemLayer {
    const have = this.layers.get(plan.key);
    if (have) return have;
    const group = [...this.plans.values()].filter(
      (p) => p.instance === plan.instance && !this.layers.has(p.key),
    );
    if (!group.includes(plan)) group.push(plan);
    const cfs = group.map((p) => ({
      id: p.cf.id,
      wants: (w: { path: string }) => p.walPaths.includes(w.path),
    }));
    // in the model's order of the WALs (log number)
    const wals = plan.instance.wal.filter(
      (w) => cfs.some((c) => c.wants(w)) && (existsSync(w.path) || (noteGone(w.path), false)),
    );
    const loaded = loadMemLayers(wals, cfs, { pebble: plan.instance.engine === "pebble" });
    for (const p of group) this.layers.set(p.key, loaded.get(p.cf.id)!);
    return this.layers.get(plan.key)!;
  }
}
