/** Level layout drawn as bars: bytes and file counts per level, the share above the bottom, flags. */
import { Box, Text } from "ink";
import { formatBytes } from "../../util/bytes.js";
import { bar, clip, pad, padLeft } from "../text.js";
import type { PaneProps, TuiPane } from "./types.js";
import { pct, placementText } from "../../report/render.js";
import { plural } from "../../util/words.js";

export function LayoutPane({ cf, width, height }: PaneProps) {
  if (!cf) return <Text>no column family selected</Text>;
  const L = cf.layout;
  const maxLevel = Math.max(
    L.levels.reduce((m, l) => Math.max(m, l.level), 0),
    (cf.knobs.configured?.numLevels ?? 1) - 1,
  );
  const byLevel = new Map(L.levels.map((l) => [l.level, l]));
  const maxBytes = Math.max(1, ...L.levels.map((l) => l.bytes));
  const maxFiles = Math.max(1, ...L.levels.map((l) => l.files));
  const fixed = 4 + 1 + 20 + 1 + 1 + 8 + 1; // label, bytes text, files text and gaps
  const barW = Math.max(0, Math.floor((width - fixed) / 2));
  const rows: string[] = [];
  for (let lv = 0; lv <= maxLevel; lv++) {
    const l = byLevel.get(lv);
    const bytes = l?.bytes ?? 0;
    const files = l?.files ?? 0;
    const text = l && l.files ? `${formatBytes(bytes)} ${pct(l.shareOfBytes)}` : "-";
    rows.push(
      `${pad(`L${lv}`, 4)} ${bar(bytes / maxBytes, barW)} ${pad(text, 20)}${barW > 0 ? " " : ""}${bar(files / maxFiles, barW)} ${padLeft(files ? String(files) : "-", 8)}`,
    );
  }
  const summary =
    L.files === 0 ? "no SSTs" : `${plural(L.files, "SST")}, ${formatBytes(L.bytes)} · ${placementText(L)}`;
  const head = `${pad("lvl", 4)} ${pad("bytes", barW + 21)}${barW > 0 ? " " : ""}${pad("files", barW + 9)}`;
  const flagsRoom = Math.max(0, height - rows.length - 3);
  const flags = cf.flags.slice(0, flagsRoom);
  return (
    <Box flexDirection="column" width={width} height={height}>
      <Text wrap="truncate" bold>
        {clip(summary, width)}
      </Text>
      <Text wrap="truncate" dimColor>
        {clip(head, width)}
      </Text>
      {rows.slice(0, Math.max(0, height - 2)).map((r, i) => (
        <Text key={i} wrap="truncate" color={byLevel.get(i)?.files ? "cyan" : undefined}>
          {clip(r, width)}
        </Text>
      ))}
      {flags.length > 0 ? <Text> </Text> : null}
      {flags.map((f, i) => (
        <Text
          key={`f${i}`}
          wrap="truncate"
          color={f.severity === "error" ? "red" : f.severity === "warn" ? "yellow" : undefined}
        >
          {clip(`${f.severity === "info" ? "·" : "!"} ${f.id}: ${f.message}`, width)}
        </Text>
      ))}
    </Box>
  );
}

export const layoutPane: TuiPane = {
  id: "layout",
  title: "Layout",
  key: "l",
  order: 10,
  Component: LayoutPane,
};
