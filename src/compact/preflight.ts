/**
 * The reader-side pre-flight of `compact --yes`: right before the engine opens the store, replay the
 * MANIFEST again and read every block of every live table and every record of every live blob file
 * with checksums verified (lsm/verify.ts, in parallel). RocksDB reads every input of a compaction and
 * fails on the first bad block, part-way through the column families, with some already rewritten;
 * damage found here is refused instead, before a byte is written.
 */
import { inspectDatadir } from "../datadir/inspect.js";
import { noReadableStoreError, unreadableStoreReason } from "../datadir/outcome.js";
import { verifyStore, type VerifyOptions, type VerifyReport } from "../lsm/verify.js";
import type { Refusal } from "./guards.js";
import { damageRefusals, type CompactPlan } from "./plan.js";

export interface Preflight {
  refusals: Refusal[];
  verify?: VerifyReport;
}

export async function preflight(plan: CompactPlan, opts: VerifyOptions = {}): Promise<Preflight> {
  const model = await inspectDatadir(plan.store, { tableDetails: "none", readWal: true });
  const inst = model.instances.find((i) => i.path === plan.store) ?? model.instances[0];
  // the same reason as every command gives for a store it cannot read (datadir/outcome.ts)
  if (!inst || !inst.readable)
    return {
      refusals: [
        {
          code: "store-damaged",
          message: inst ? unreadableStoreReason(inst) : noReadableStoreError(model, "RocksDB store").message,
        },
      ],
    };
  // verifyStore adds its failures to the instance's findings, which damageRefusals reads
  const verify = await verifyStore({ ...model, instances: [inst], findings: [] }, opts);
  return { refusals: damageRefusals(inst), verify };
}
