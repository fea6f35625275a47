/**
 * Pane registry: the TUI shows one tab per registered pane, in `order`. Built-in panes register in
 * builtin.ts; another module adds its own with `registerPane({...})` before the app renders (e.g. the
 * sizes command's "distributions" pane, the probe's "probe" pane), typically from its own module that
 * src/tui/panes/index.ts imports.
 */
import { GLOBAL_KEYS, type TuiPane } from "./types.js";

const panes = new Map<string, TuiPane>();

/** Add (or replace, by id) a pane. Throws when its hotkey is global or taken by another pane. */
export function registerPane(pane: TuiPane): void {
  if (pane.key.length !== 1) throw new Error(`pane ${pane.id}: hotkey must be one character`);
  if (GLOBAL_KEYS.has(pane.key) || /[0-9]/.test(pane.key))
    throw new Error(`pane ${pane.id}: hotkey "${pane.key}" is reserved by the shell`);
  for (const p of panes.values())
    if (p.id !== pane.id && p.key === pane.key)
      throw new Error(`pane ${pane.id}: hotkey "${pane.key}" already belongs to pane ${p.id}`);
  panes.set(pane.id, pane);
}

export function unregisterPane(id: string): void {
  panes.delete(id);
}

/** Registered panes in tab order. */
export function listPanes(): TuiPane[] {
  return [...panes.values()].sort((a, b) => (a.order ?? 100) - (b.order ?? 100) || (a.id < b.id ? -1 : 1));
}

export function getPane(id: string): TuiPane | undefined {
  return panes.get(id);
}
