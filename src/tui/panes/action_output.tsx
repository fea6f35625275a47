/**
 * The body shared by the on-demand panes (distributions, probe): the key line and, while unfocused, how
 * to focus, above the output of the last run, scrolled and reset when the column family changes.
 */
import { Text } from "ink";
import { ScrollText } from "../scroll.js";
import type { PaneProps } from "./types.js";

export function ActionOutput(props: { pane: PaneProps; keys: string; focusHint: string; lines: string[] }) {
  const p = props.pane;
  const cf = p.cf?.cf;
  if (!p.instance?.instance || !cf) return <Text>no column family selected</Text>;
  const head = [props.keys, p.focused ? "" : props.focusHint];
  return (
    <ScrollText
      lines={[...head, ...props.lines]}
      width={p.width}
      height={p.height}
      focused={p.focused}
      resetKey={cf}
    />
  );
}
