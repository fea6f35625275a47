/**
 * The views beside a datadir's stores, added to its model: which chain it holds (src/identity/) and
 * geth's freezer files (src/freezer/, a finding per damaged table). Shared by inspect, the TUI and the
 * HTML report.
 */
import type { DatadirModel } from "../datadir/model.js";
import { attachIdentity } from "../identity/index.js";
import { findFreezers } from "../freezer/index.js";

export function addDatadirViews(model: DatadirModel): DatadirModel {
  attachIdentity(model);
  model.freezers = findFreezers(model.root);
  for (const f of model.freezers)
    for (const t of f.tables)
      if (t.error)
        model.findings.push({
          severity: "warn",
          code: "freezer-table",
          file: f.path,
          message: `freezer table ${t.name}: ${t.error}`,
        });
  return model;
}
