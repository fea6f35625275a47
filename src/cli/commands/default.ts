/** The default command, `lsmscope DIR`: the TUI on a terminal, the inspect report otherwise (see tui.ts). */
export { defaultCommand as command } from "./tui.js";
