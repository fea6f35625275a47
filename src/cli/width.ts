/**
 * The width every command's text is fitted to: the terminal's columns when stdout is one, else 80
 * (a pipe or file gets what the project promises: lines within an 80-column terminal).
 */
import { DEFAULT_WIDTH } from "../util/words.js";

export function outputWidth(stream: NodeJS.WriteStream = process.stdout): number {
  return stream.isTTY && stream.columns ? stream.columns : DEFAULT_WIDTH;
}
