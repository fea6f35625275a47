/**
 * The contract between the TUI shell (app.tsx) and its panes. A pane is a React component that draws the
 * body area for the selected instance/column family; it reads keys itself with Ink's `useInput`, active
 * only while `focused` is true. The shell owns the global keys (see GLOBAL_KEYS) and never passes them on.
 */
import type { ComponentType } from "react";
import type { InspectResult } from "../../report/deep.js";
import type { CfReport, InspectReport, InstanceReport } from "../../report/build.js";

export interface PaneProps {
  /** The model (and deep measurements) the TUI was started with. */
  result: InspectResult;
  /** The same report `inspect` prints, as data. */
  report: InspectReport;
  /** Selected instance; undefined on an empty datadir. */
  instance?: InstanceReport;
  /** Selected column family; undefined when the instance has none (unreadable). */
  cf?: CfReport;
  /** Size of the pane body in terminal cells. */
  width: number;
  height: number;
  /** The pane has the keyboard (Tab moves focus between the list and the pane). */
  focused: boolean;
}

export interface TuiPane {
  /** Stable id ("layout", "files", "options", "wal", "blob"; later "distributions", "probe"). */
  id: string;
  /** Tab title. */
  title: string;
  /** One-character hotkey that shows this pane (must not be a global key or another pane's). */
  key: string;
  /** Keys this pane handles while focused, for the help line, e.g. "↑↓ select · s sort · ⏎ detail". */
  help?: string;
  /** Order in the tab bar (lower first); built-ins use 10, 20, ... */
  order?: number;
  Component: ComponentType<PaneProps>;
}

/** Keys the shell keeps for itself: quit, focus, help, column-family navigation. */
export const GLOBAL_KEYS = new Set(["q", "?", "[", "]"]);
