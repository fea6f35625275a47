/**
 * Per-table details for the datadir model through the SST reader (src/format/, another module): a
 * cheap footer + properties read per file. Loaded lazily so the model works without that module.
 */
import type { Finding, TableDetails } from "./model.js";

export type TableDetailsReader = (path: string) => TableDetails;

export async function loadTableDetailsReader(
  findings: Finding[],
  root: string,
): Promise<TableDetailsReader | undefined> {
  findings.push({
    severity: "info",
    code: "table-details-unavailable",
    file: root,
    message: "the SST reader is not available yet: per-table details skipped",
  });
  return undefined;
}
