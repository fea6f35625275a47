/**
 * The TUI shell: a list of instances and column families on the left, the active pane on the right,
 * a tab bar on top and a help line at the bottom. Works from 80×24 down: below 60 columns the list is
 * hidden ([ and ] still change the column family), below 8 rows only the help line and a notice remain.
 *
 * Keys: q / Ctrl-C quit · Tab moves focus between the list and the pane · ↑↓ in the list pick a column
 * family · [ ] previous/next column family anywhere · 1–9 or a pane's letter show that pane · ? help.
 */
import { useEffect, useMemo, useState } from "react";
import { Box, Text, useApp, useInput, useStdout } from "ink";
import type { InspectResult } from "../report/deep.js";
import {
  buildInspectReport,
  interesting,
  type CfReport,
  type InspectReport,
  type InstanceReport,
} from "../report/build.js";
import { formatBytes } from "../util/bytes.js";
import { listPanes } from "./panes/index.js";
import type { TuiPane } from "./panes/types.js";
import { clip, pad, padLeft } from "./text.js";
import { clampCursor } from "./scroll.js";
import { int, plural } from "../util/words.js";
import { instanceLabel } from "../datadir/names.js";

/** One row of the left list: an instance header, or a column family. */
export interface ListItem {
  kind: "instance" | "cf";
  instance: InstanceReport;
  cf?: CfReport;
  label: string;
  /**
   * Bytes of the CF (SSTs + blob files), shown right-aligned; "unflushed" when it holds only writes in live
   * WALs, "empty" when it holds nothing (the report's test: `interesting`).
   */
  size?: string;
}

export function listItems(report: InspectReport): ListItem[] {
  const out: ListItem[] = [];
  for (const inst of report.instances) {
    const i = inst.instance;
    out.push({
      kind: "instance",
      instance: inst,
      label: `${instanceLabel(i)} [${i.engine}${i.readable ? "" : ", unreadable"}]`,
    });
    for (const cf of inst.cfs) {
      const warn = cf.flags.some((f) => f.severity !== "info") ? "!" : " ";
      out.push({
        kind: "cf",
        instance: inst,
        cf,
        label: `${warn}${cf.cf.displayName}`,
        size: !interesting(cf)
          ? "empty"
          : cf.layout.files || cf.layout.blob.files
            ? formatBytes(cf.layout.bytes + cf.layout.blob.fileBytes)
            : "unflushed",
      });
    }
  }
  return out;
}

/** Index of the selectable row (a CF, or an instance without CFs) nearest to `from` in direction `dir`. */
export function nextSelectable(items: ListItem[], from: number, dir: 1 | -1): number {
  const ok = (it: ListItem) => it.kind === "cf" || it.instance.cfs.length === 0;
  for (let i = from + dir; i >= 0 && i < items.length; i += dir) if (ok(items[i]!)) return i;
  return from;
}

export interface AppProps {
  result: InspectResult;
  /** Fixed size (tests); otherwise the terminal's, following resizes. */
  width?: number;
  height?: number;
  /** Pane shown first (id). */
  initialPane?: string;
  /** While the tables are still read (the result is their outline so far): how many of how many. */
  reading?: { done: number; total: number };
}

function useTerminalSize(w?: number, h?: number): [number, number] {
  const { stdout } = useStdout();
  const [size, setSize] = useState<[number, number]>([stdout.columns || 80, stdout.rows || 24]);
  useEffect(() => {
    const on = () => setSize([stdout.columns || 80, stdout.rows || 24]);
    stdout.on("resize", on);
    return () => {
      stdout.off("resize", on);
    };
  }, [stdout]);
  return [w ?? size[0], h ?? size[1]];
}

export function App({ result, width, height, initialPane, reading }: AppProps) {
  const { exit } = useApp();
  const pending = reading !== undefined;
  const report = useMemo(
    () => buildInspectReport(result.model, result.mode, result.deep, { tablesPending: pending }),
    [result, pending],
  );
  const items = useMemo(() => listItems(report), [report]);
  const panes: TuiPane[] = useMemo(() => listPanes(), []);
  const [cols, rows] = useTerminalSize(width, height);
  const [sel, setSel] = useState(() => nextSelectable(items, -1, 1));
  const [paneIdx, setPaneIdx] = useState(() =>
    Math.max(
      0,
      panes.findIndex((p) => p.id === initialPane),
    ),
  );
  const [focus, setFocus] = useState<"list" | "pane">("list");
  const [help, setHelp] = useState(false);

  const item = items[sel];
  const pane = panes[paneIdx];
  const showList = cols >= 60;
  const listW = showList ? Math.min(32, Math.max(20, Math.floor(cols * 0.3))) : 0;
  const paneW = Math.max(1, cols - listW - (showList ? 1 : 0));
  const bodyH = Math.max(1, rows - 3); // tab bar, status line, help line

  useInput((input, key) => {
    if (input === "q" || (key.ctrl && input === "c")) {
      exit();
      return;
    }
    if (input === "?") return setHelp((h) => !h);
    if (help && key.escape) return setHelp(false);
    if (key.tab) return setFocus((f) => (f === "list" ? "pane" : "list"));
    if (input === "[") return setSel((s) => nextSelectable(items, s, -1));
    if (input === "]") return setSel((s) => nextSelectable(items, s, 1));
    if (/^[1-9]$/.test(input)) {
      const i = Number(input) - 1;
      if (i < panes.length) setPaneIdx(i);
      return;
    }
    const pi = panes.findIndex((p) => p.key === input);
    if (pi >= 0 && !(focus === "pane" && pane?.id === panes[pi]!.id)) {
      setPaneIdx(pi);
      return;
    }
    if (focus === "list") {
      if (key.upArrow || input === "k") setSel((s) => nextSelectable(items, s, -1));
      else if (key.downArrow || input === "j") setSel((s) => nextSelectable(items, s, 1));
      else if (key.return || key.rightArrow) setFocus("pane");
    }
  });

  if (rows < 8 || cols < 20)
    return (
      <Text wrap="truncate">
        {clip(`terminal too small (${cols}×${rows}); enlarge it · q quits`, Math.max(1, cols))}
      </Text>
    );

  const tabsFull = panes
    .map((p, i) => {
      const t = `${i + 1}${p.key} ${p.title}`;
      return i === paneIdx ? `[${t}]` : ` ${t} `;
    })
    .join("");
  // narrow: only the active pane keeps its title, the others show their keys
  const tabs =
    tabsFull.length + 9 <= cols
      ? tabsFull
      : panes
          .map((p, i) => (i === paneIdx ? `[${i + 1}${p.key} ${p.title}]` : ` ${i + 1}${p.key} `))
          .join("");
  const where = item
    ? `${instanceLabel(item.instance.instance)}${item.cf ? ` › ${item.cf.cf.displayName}` : ""}`
    : "no store";
  const helpLine =
    `q quit · Tab focus: ${focus === "list" ? "[list] pane" : "list [pane]"} · [ ] column family · 1-${panes.length} or letter: pane` +
    (focus === "pane" && pane?.help ? ` · ${pane.help}` : focus === "list" ? " · ↑↓ select · ⏎ open" : "") +
    " · ? help";

  // left list window around the selection
  const listH = bodyH;
  const lc = clampCursor({ index: sel, offset: 0 }, items.length, listH);
  const shownItems = items.slice(lc.offset, lc.offset + listH);

  const Pane = pane?.Component;
  const paneProps = {
    result,
    report,
    instance: item?.instance,
    cf: item?.cf,
    width: paneW,
    height: bodyH,
    focused: focus === "pane" && !help,
  };

  return (
    <Box flexDirection="column" width={cols} height={rows}>
      <Text wrap="truncate" bold>
        {clip(`lsmscope ${tabs}`, cols)}
      </Text>
      <Text wrap="truncate" dimColor>
        {clip(
          `${where} · ${plural(report.totals.sstFiles, "SST")} ${formatBytes(report.totals.sstBytes)} · flags ${report.flagCounts.error}E ${report.flagCounts.warn}W ${report.flagCounts.info}I` +
            (reading ? ` · reading tables ${int(reading.done)}/${int(reading.total)}` : ""),
          cols,
        )}
      </Text>
      <Box flexDirection="row" height={bodyH}>
        {showList ? (
          <ItemList
            items={items}
            shown={shownItems}
            offset={lc.offset}
            sel={sel}
            listFocused={focus === "list"}
            width={listW}
            height={bodyH}
          />
        ) : null}
        <Box flexDirection="column" width={paneW} height={bodyH}>
          {help ? (
            <HelpText width={paneW} panes={panes} />
          ) : items.length === 0 ? (
            <Text wrap="truncate">
              {clip(`no RocksDB, LevelDB or Pebble store found under ${report.root}`, paneW)}
            </Text>
          ) : Pane ? (
            <Pane {...paneProps} />
          ) : null}
        </Box>
      </Box>
      <FooterLine text={pad(helpLine, cols)} mark={`[${focus}]`} />
    </Box>
  );
}

/** The left list: stores and their column families, the selection in reverse video (underlined when the pane has focus). */
function ItemList({
  items,
  shown,
  offset,
  sel,
  listFocused,
  width,
  height,
}: {
  items: readonly ListItem[];
  shown: readonly ListItem[];
  offset: number;
  sel: number;
  listFocused: boolean;
  width: number;
  height: number;
}) {
  return (
    <Box flexDirection="column" width={width} height={height} marginRight={1}>
      {items.length === 0 ? <Text wrap="truncate">{clip("no store found", width)}</Text> : null}
      {shown.map((it, i) => {
        const idx = offset + i;
        const selected = idx === sel;
        const sizeW = it.size ? Math.min(9, it.size.length) : 0;
        const text =
          it.kind === "instance"
            ? pad(it.label, width)
            : pad(` ${it.label}`, width - sizeW - 1) + " " + padLeft(it.size ?? "", sizeW);
        return (
          <Text
            key={idx}
            wrap="truncate"
            bold={it.kind === "instance"}
            inverse={selected && listFocused}
            underline={selected && !listFocused}
            color={it.kind === "cf" && it.label.startsWith("!") ? "yellow" : undefined}
          >
            {text}
          </Text>
        );
      })}
    </Box>
  );
}

/** The help line in reverse video, the side that has focus ("[list]" or "[pane]") set off in bold. */
function FooterLine({ text, mark }: { text: string; mark: string }) {
  const at = text.indexOf(mark);
  if (at < 0)
    return (
      <Text wrap="truncate" inverse>
        {text}
      </Text>
    );
  return (
    <Text wrap="truncate">
      <Text inverse>{text.slice(0, at)}</Text>
      <Text bold color="cyan">
        {mark}
      </Text>
      <Text inverse>{text.slice(at + mark.length)}</Text>
    </Text>
  );
}

function HelpText({ width, panes }: { width: number; panes: TuiPane[] }) {
  const lines = [
    "q or Ctrl-C  quit",
    "Tab          move the keyboard between the list and the pane",
    "↑↓ / j k     list: pick a column family · pane: select or scroll",
    "[ ]          previous / next column family",
    "?            this help (Esc or ? closes it)",
    ...panes.map((p, i) => `${i + 1} or ${p.key}       ${p.title}${p.help ? ` — ${p.help}` : ""}`),
  ];
  return (
    <Box flexDirection="column">
      {lines.map((l, i) => (
        <Text key={i} wrap="truncate">
          {clip(l, width)}
        </Text>
      ))}
    </Box>
  );
}
