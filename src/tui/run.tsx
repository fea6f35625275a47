/** Start the TUI: full screen (the terminal's alternate screen), until q or Ctrl-C. */
import "./interactive_env.js"; // must stay before ink's import
import { useEffect, useSyncExternalStore } from "react";
import { render, useApp } from "ink";
import { App } from "./app.js";
import type { LiveResult } from "./live.js";

const ENTER_ALT_SCREEN = "\x1b[?1049h\x1b[H";
const LEAVE_ALT_SCREEN = "\x1b[?1049l";

/** The app over a result that is still being read: redrawn as it fills in; closed if reading fails. */
function LiveApp({ live }: { live: LiveResult }) {
  const { exit } = useApp();
  const state = useSyncExternalStore(live.subscribe, live.get);
  useEffect(() => {
    if (state.error) exit(state.error);
  }, [state.error, exit]);
  return <App result={state.result} reading={state.reading} />;
}

/** Show `live` until q or Ctrl-C; `onDrawn` once the first screen is on the terminal. */
export async function runTui(live: LiveResult, onDrawn?: () => void): Promise<void> {
  const out = process.stdout;
  out.write(ENTER_ALT_SCREEN);
  const restore = () => out.write(LEAVE_ALT_SCREEN);
  process.once("exit", restore);
  try {
    const app = render(<LiveApp live={live} />, { exitOnCtrlC: true });
    // Ink writes its first frame as it renders; a timer's turn later it is on the terminal
    if (onDrawn) setTimeout(onDrawn, 0);
    await app.waitUntilExit();
  } finally {
    process.off("exit", restore);
    restore();
  }
}
