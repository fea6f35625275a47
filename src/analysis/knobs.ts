/**
 * Knobs: the table options a column family is **configured** with (its newest OPTIONS file) beside the
 * knobs its SST files actually **carry** (footer, properties and filter metadata read by the SST reader),
 * aggregated per level, and every disagreement between the two with a stable id and the numbers behind it.
 *
 * Pure functions over the datadir model (src/datadir/model.ts): no I/O. Per-file knobs come from
 * `SstFileModel.details`, which `inspectDatadir(dir, { tableDetails: "cheap" })` fills; without details the
 * carried side is empty and a `details-missing` note says so.
 *
 * The analysis is split by concern: the types (knob_types.ts), the configured side from each engine's
 * configuration (configured.ts), the carried side from the files (carried.ts), the comparison rules
 * (knob_rules.ts) and the comparison of two column families (knob_compare.ts).
 */
import type { ColumnFamilyModel, InstanceModel } from "../datadir/model.js";
import { carriedKnobs } from "./carried.js";
import { configuredKnobsOf } from "./configured.js";
import { blobNotes, compareConfiguredToCarried } from "./knob_rules.js";
import type { CfKnobs } from "./knob_types.js";

export * from "./knob_types.js";
export * from "./configured.js";
export * from "./carried.js";
export * from "./knob_rules.js";
export * from "./knob_compare.js";

/** Knobs of one CF: configured, carried, disagreements and notes. */
export function analyzeCfKnobs(instance: InstanceModel, cf: ColumnFamilyModel): CfKnobs {
  const configured = configuredKnobsOf(instance, cf);
  const carried = carriedKnobs(cf);
  const r = configured ? compareConfiguredToCarried(configured, carried) : { disagreements: [], notes: [] };
  return {
    instance: instance.relPath,
    cf: cf.name,
    displayName: cf.displayName,
    configured,
    carried,
    disagreements: [...r.disagreements, ...blobNotes(cf, configured).filter((f) => f.severity !== "info")],
    notes: [...r.notes, ...blobNotes(cf, configured).filter((f) => f.severity === "info")],
  };
}

/** Knobs of every CF of every readable instance. */
export function analyzeKnobs(model: { instances: InstanceModel[] }): CfKnobs[] {
  const out: CfKnobs[] = [];
  for (const inst of model.instances)
    for (const cf of inst.columnFamilies) out.push(analyzeCfKnobs(inst, cf));
  return out;
}
