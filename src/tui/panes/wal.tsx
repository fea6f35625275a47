/** WAL files of the selected instance: size, records, sequence range, liveness, unflushed writes per CF. */
import { Text } from "ink";
import { formatBytes } from "../../util/bytes.js";
import { ScrollText } from "../scroll.js";
import type { PaneProps, TuiPane } from "./types.js";
import { plural } from "../../util/words.js";

export function walLines(p: PaneProps): string[] {
  const inst = p.instance?.instance;
  if (!inst) return ["no store"];
  if (inst.wal.length === 0) return ["no WAL files"];
  const out: string[] = [];
  for (const w of inst.wal) {
    out.push(
      `${w.file}  ${formatBytes(w.size)}  ${plural(w.records, "record")}${w.firstSeq !== undefined ? `  seq ${w.firstSeq}..${w.lastSeq}` : ""}  ${w.livenessUnknown ? "liveness unknown" : w.live ? "live" : "not needed for recovery"}${w.recyclable ? "  recyclable" : ""}`,
    );
    out.push(`  ${w.summary}`);
    const o = w.ops;
    out.push(
      `  ops: put ${o.put}, delete ${o.delete}, single delete ${o.singleDelete}, range delete ${o.deleteRange}, merge ${o.merge}, blob index ${o.blobIndex}, other ${o.other}`,
    );
    for (const c of w.perColumnFamily)
      out.push(
        `  cf ${c.columnFamilyId} ${c.name ?? "?"}: ${plural(c.writes, "write")}, keys ${formatBytes(c.keyBytes)}, values ${formatBytes(c.valueBytes)}${c.unflushed ? ", UNFLUSHED" : ""}`,
      );
    if (w.tail)
      out.push(`  tail: ${w.tail.kind}, ${w.tail.bytes} bytes at ${w.tail.offset}: ${w.tail.message}`);
    if (w.compressionType !== undefined)
      out.push(`  compressed WAL (type ${w.compressionType}): records not decoded`);
    out.push("");
  }
  return out;
}

export function WalPane(p: PaneProps) {
  if (!p.instance) return <Text>no store</Text>;
  return (
    <ScrollText
      lines={walLines(p)}
      width={p.width}
      height={p.height}
      focused={p.focused}
      resetKey={p.instance}
    />
  );
}

export const walPane: TuiPane = {
  id: "wal",
  title: "WAL",
  key: "w",
  order: 40,
  help: "↑↓ scroll",
  Component: WalPane,
};
