/**
 * The WAL layers of the planned column families (lsm/wal_layers.ts): each instance's live WALs replayed
 * once for every planned column family of it, each taking the WALs its plan chose (none without the
 * WAL, none that is empty). A WAL deleted since the version was read was flushed into a table by then:
 * noted, skipped. An undecodable batch ends its record's writes and is counted (sizes reports it).
 */
import type { ColumnFamilyModel } from "../datadir/model.js";
import type { MemLayer } from "../datadir/memtable.js";
import { WalLayers } from "../lsm/wal_layers.js";
import type { CfPlan } from "./plan.js";

export class PlanWalLayers {
  private readonly walPaths = new Map<ColumnFamilyModel, readonly string[]>();
  private readonly layers = new WalLayers({
    wants: (cf, w) => this.walPaths.get(cf)?.includes(w.path) ?? false,
    onUndecodable: "keep",
    noteGoneWals: true,
  });

  /** `plans`: the planned column families by key, read as layers are asked for (more may be planned). */
  constructor(private readonly plans: ReadonlyMap<string, CfPlan>) {}

  /** `plan`'s layer, with those of the other planned column families of its instance not loaded yet. */
  of(plan: CfPlan): MemLayer {
    for (const p of [...this.plans.values(), plan])
      if (!this.walPaths.has(p.cf)) {
        this.walPaths.set(p.cf, p.walPaths);
        this.layers.expect(p.cf);
      }
    return this.layers.of(plan.instance, plan.cf);
  }
}
