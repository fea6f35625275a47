/**
 * A scrollable, optionally selectable list of text lines: ↑/↓ (or k/j) move, PgUp/PgDn page, g/G ends.
 * Input is read only while `focused`.
 */
import { useEffect, useState } from "react";
import { Box, Text, useInput } from "ink";
import { clip } from "./text.js";

export interface Cursor {
  index: number;
  offset: number;
}

/** Keep the selected index inside [0, count) and the window [offset, offset+height) around it. */
export function clampCursor(c: Cursor, count: number, height: number): Cursor {
  const h = Math.max(1, height);
  const index = Math.max(0, Math.min(c.index, count - 1));
  let offset = Math.max(0, Math.min(c.offset, Math.max(0, count - h)));
  if (index < offset) offset = index;
  if (index >= offset + h) offset = index - h + 1;
  return { index: Math.max(0, index), offset };
}

/** Selection + scrolling state driven by the keyboard. `selectable=false` scrolls the window only. */
export function useCursor(
  count: number,
  height: number,
  focused: boolean,
  selectable = true,
  resetKey: unknown = undefined,
): [Cursor, (c: Cursor) => void] {
  const [cur, setCur] = useState<Cursor>({ index: 0, offset: 0 });
  useEffect(() => setCur({ index: 0, offset: 0 }), [resetKey]);
  useInput(
    (input, key) => {
      const h = Math.max(1, height);
      let d = 0;
      if (key.upArrow || input === "k") d = -1;
      else if (key.downArrow || input === "j") d = 1;
      else if (key.pageUp) d = -h;
      else if (key.pageDown || input === " ") d = h;
      else if (input === "g") d = -Infinity;
      else if (input === "G") d = Infinity;
      else return;
      setCur((c) => {
        if (selectable) {
          const i = d === -Infinity ? 0 : d === Infinity ? count - 1 : c.index + d;
          return clampCursor({ index: i, offset: c.offset }, count, h);
        }
        const maxOff = Math.max(0, count - h);
        const o = d === -Infinity ? 0 : d === Infinity ? maxOff : Math.max(0, Math.min(maxOff, c.offset + d));
        return { index: o, offset: o };
      });
    },
    { isActive: focused },
  );
  return [clampCursor(cur, count, height), setCur];
}

export interface ScrollTextProps {
  lines: string[];
  width: number;
  height: number;
  focused: boolean;
  /** Changing it scrolls back to the top. */
  resetKey?: unknown;
}

/** Read-only scrolling text (reports, WAL and blob listings); the last row says when more follows. */
export function ScrollText({ lines, width, height, focused, resetKey }: ScrollTextProps) {
  const h = Math.max(1, height);
  // ←/→ shift wide lines sideways, 8 cells at a time
  const [shift, setShift] = useState(0);
  const widest = lines.reduce((m, l) => Math.max(m, l.length), 0);
  useEffect(() => setShift(0), [resetKey]);
  useInput(
    (_input, key) => {
      if (key.rightArrow) setShift((s) => Math.min(Math.max(0, widest - width), s + 8));
      else if (key.leftArrow) setShift((s) => Math.max(0, s - 8));
    },
    { isActive: focused && widest > width },
  );
  const more = lines.length > h;
  const body = more ? h - 1 : h;
  const [cur] = useCursor(lines.length, body, focused, false, resetKey);
  const shown = lines.slice(cur.offset, cur.offset + body);
  const status = `── ${cur.offset + 1}-${Math.min(lines.length, cur.offset + body)} of ${lines.length} lines${
    focused ? ` (↑↓ PgUp PgDn${widest > width ? " ←→" : ""})` : " (Tab to scroll)"
  }`;
  return (
    <Box flexDirection="column" width={width} height={h}>
      {shown.map((l, i) => (
        <Text key={i} wrap="truncate">
          {clip(l.slice(shift), width)}
        </Text>
      ))}
      {more ? (
        <Text dimColor wrap="truncate">
          {clip(status, width)}
        </Text>
      ) : null}
    </Box>
  );
}
