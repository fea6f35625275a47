/**
 * Cell-width helpers for the TUI. Every string drawn comes through `clip`, which escapes control bytes
 * (nothing from a file reaches the terminal raw) and cuts to the cell width.
 */
import { escapeText } from "../util/bytes.js";

/** Escape control characters and cut to `width` cells (… marks the cut). */
export function clip(s: string, width: number): string {
  const t = escapeText(s);
  if (width <= 0) return "";
  if (t.length <= width) return t;
  return width === 1 ? "…" : t.slice(0, width - 1) + "…";
}

export function pad(s: string, width: number): string {
  const t = clip(s, width);
  return t + " ".repeat(Math.max(0, width - t.length));
}

export function padLeft(s: string, width: number): string {
  const t = clip(s, width);
  return " ".repeat(Math.max(0, width - t.length)) + t;
}

/** A horizontal bar of `width` cells filled to `fraction`, with eighth-block resolution. */
export function bar(fraction: number, width: number): string {
  if (width <= 0) return "";
  const f = Math.max(0, Math.min(1, Number.isFinite(fraction) ? fraction : 0));
  const eighths = Math.round(f * width * 8);
  const full = Math.floor(eighths / 8);
  const rest = eighths % 8;
  const parts = ["", "▏", "▎", "▍", "▌", "▋", "▊", "▉"];
  let s = "█".repeat(full);
  if (rest > 0 && full < width) s += parts[rest];
  if (f > 0 && s.length === 0) s = "▏";
  return s + " ".repeat(Math.max(0, width - s.length));
}

/** Seconds → "3d", "5h", "12m", "40s" (age of a file). */
export function age(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return "-";
  if (seconds >= 86400) return `${Math.floor(seconds / 86400)}d`;
  if (seconds >= 3600) return `${Math.floor(seconds / 3600)}h`;
  if (seconds >= 60) return `${Math.floor(seconds / 60)}m`;
  return `${Math.floor(seconds)}s`;
}
