/**
 * What the TUI shows while a datadir is read: the result as read so far and how far the table reads
 * are, replaced as they go on (React subscribes through useSyncExternalStore). A store of thousands of
 * tables shows its outline (levels, files, options, WAL: the MANIFEST's picture) at once and fills each
 * table's details in as they are read, instead of a blank terminal until the last table is read.
 */
import type { InspectResult } from "../report/deep.js";

export interface LiveState {
  result: InspectResult;
  /** While the tables are read: how many of how many; undefined once the result is whole. */
  reading?: { done: number; total: number };
  /** The reading failed after the screen was up: the TUI closes and the error is reported. */
  error?: Error;
}

export class LiveResult {
  private listeners = new Set<() => void>();

  constructor(private state: LiveState) {}

  /** The current state (the same object until set() replaces it). */
  readonly get = (): LiveState => this.state;

  set(state: LiveState): void {
    this.state = state;
    for (const l of this.listeners) l();
  }

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };
}
