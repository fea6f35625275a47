/** The datadir identity as text lines (inspect, the summary), each within 80 columns. */
import { escapeText } from "../util/bytes.js";
import { fitLine, int } from "../util/words.js";
import type { DatadirIdentity } from "./index.js";

/**
 * `width` (the TUI's pane): lines wider than it wrap, a hash continuing under its own start; without it
 * the lines are as inspect and the summary print them.
 */
export function identityLines(id: DatadirIdentity, width?: number): string[] {
  const out: string[] = [];
  const fit = (l: string) => (width === undefined ? [l] : fitLine(l, width, 2, true));
  const hash = (label: string, h: string) => {
    const lead = `  ${label.padEnd(10)} `;
    if (width === undefined || lead.length + h.length <= width) return [lead + h];
    const room = Math.max(16, width - lead.length);
    const pieces: string[] = [];
    for (let k = 0; k < h.length; k += room)
      pieces.push((k === 0 ? lead : " ".repeat(lead.length)) + h.slice(k, k + room));
    return pieces;
  };
  if (id.chainHead) {
    out.push(...fit(`chain head: #${int(id.chainHead.number)}`));
    out.push(...hash("hash", id.chainHead.hash));
    if (id.stateRoot) out.push(...hash("state root", id.stateRoot));
  } else out.push(...fit(`chain head: - (${escapeText(id.note ?? "not read")})`));
  if (id.writtenBy) out.push(...fit(`written by: ${escapeText(id.writtenBy)}`));
  return out;
}
