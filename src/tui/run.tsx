/** Start the TUI: full screen (the terminal's alternate screen), until q or Ctrl-C. */
import "./interactive_env.js"; // must stay before ink's import
import { render } from "ink";
import { App } from "./app.js";
import type { InspectResult } from "../report/deep.js";

const ENTER_ALT_SCREEN = "\x1b[?1049h\x1b[H";
const LEAVE_ALT_SCREEN = "\x1b[?1049l";

export async function runTui(result: InspectResult): Promise<void> {
  const out = process.stdout;
  out.write(ENTER_ALT_SCREEN);
  const restore = () => out.write(LEAVE_ALT_SCREEN);
  process.once("exit", restore);
  try {
    const app = render(<App result={result} />, { exitOnCtrlC: true });
    await app.waitUntilExit();
  } finally {
    process.off("exit", restore);
    restore();
  }
}
