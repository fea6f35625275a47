/**
 * Pairing the two arms: instances by their path relative to the arm's root, column families by raw
 * name (then by client-aware display name).
 */
import type { ColumnFamilyModel, DatadirModel, InstanceModel } from "../datadir/model.js";
import type { CfRef } from "./types.js";

export interface CfPair {
  /** Instance path relative to the roots (same in both arms). */
  instance: string;
  cf: string;
  subject?: CfRef;
  reference?: CfRef;
}

/** Every column family of one model, with its instance. */
export function allCfs(model: DatadirModel): CfRef[] {
  return model.instances.flatMap((instance) => instance.columnFamilies.map((cf) => ({ instance, cf })));
}

/**
 * Pairs of column families across the arms; one side is absent when the other arm lacks it. Two arms of
 * one store each pair their stores whatever their paths (a datadir against a bare store directory).
 */
export function pairCfs(subject: DatadirModel, reference: DatadirModel): CfPair[] {
  const out: CfPair[] = [];
  const single = subject.instances.length === 1 && reference.instances.length === 1;
  const refInstances = new Map(
    reference.instances.map((i) => [single ? subject.instances[0]!.relPath : i.relPath, i]),
  );
  const seen = new Set<InstanceModel>();
  for (const si of subject.instances) {
    const ri = refInstances.get(si.relPath);
    if (ri) seen.add(ri);
    const used = new Set<ColumnFamilyModel>();
    for (const cf of si.columnFamilies) {
      const rcf =
        ri?.columnFamilies.find((c) => c.nameHex === cf.nameHex && !used.has(c)) ??
        ri?.columnFamilies.find((c) => c.displayName === cf.displayName && !used.has(c));
      if (rcf) used.add(rcf);
      out.push({
        instance: si.relPath,
        cf: cf.displayName,
        subject: { instance: si, cf },
        reference: rcf && ri ? { instance: ri, cf: rcf } : undefined,
      });
    }
    for (const rcf of ri?.columnFamilies ?? [])
      if (!used.has(rcf))
        out.push({ instance: si.relPath, cf: rcf.displayName, reference: { instance: ri!, cf: rcf } });
  }
  for (const ri of reference.instances)
    if (!seen.has(ri))
      for (const cf of ri.columnFamilies)
        out.push({ instance: ri.relPath, cf: cf.displayName, reference: { instance: ri, cf } });
  return out;
}
