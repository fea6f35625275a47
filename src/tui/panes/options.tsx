/** Options in force beside what the files carry, level table and flags: the inspect report for one CF. */
import { Text } from "ink";
import { renderCf } from "../../report/render.js";
import { ScrollText } from "../scroll.js";
import type { PaneProps, TuiPane } from "./types.js";

export function OptionsPane({ cf, width, height, focused }: PaneProps) {
  if (!cf) return <Text>no column family selected</Text>;
  // lines lose their 2-column indent here: fit the knob table to the pane plus that indent
  const lines = renderCf(cf, { width: width + 2 }).map((l) => l.replace(/^ {2}/, ""));
  return <ScrollText lines={lines} width={width} height={height} focused={focused} resetKey={cf} />;
}

export const optionsPane: TuiPane = {
  id: "options",
  title: "Options",
  key: "o",
  order: 30,
  help: "↑↓ PgUp PgDn scroll",
  Component: OptionsPane,
};
