/**
 * Every pane the TUI shows. Importing this module registers them. To add a pane: write
 * `src/tui/panes/<name>.tsx` exporting a TuiPane, and call `registerPane()` from a line here (or from
 * your own module imported here).
 */
import "./builtin.js";
import "./probe.js";
import "./distributions.js";
import "./datadir.js";

export { registerPane, unregisterPane, listPanes, getPane } from "./registry.js";
export type { TuiPane, PaneProps } from "./types.js";
export { GLOBAL_KEYS } from "./types.js";
