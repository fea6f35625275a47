/** The datadir identity as text lines (inspect, the summary), each within 80 columns. */
import { escapeText } from "../util/bytes.js";
import { int } from "../util/words.js";
import type { DatadirIdentity } from "./index.js";

export function identityLines(id: DatadirIdentity): string[] {
  const out: string[] = [];
  if (id.chainHead) {
    out.push(`chain head: #${int(id.chainHead.number)}`);
    out.push(`  hash       ${id.chainHead.hash}`);
    if (id.stateRoot) out.push(`  state root ${id.stateRoot}`);
  } else out.push(`chain head: - (${escapeText(id.note ?? "not read")})`);
  if (id.writtenBy) out.push(`written by: ${escapeText(id.writtenBy)}`);
  return out;
}
