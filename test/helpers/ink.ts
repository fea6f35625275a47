/** Helpers for tests that drive the TUI through ink-testing-library. */

/**
 * Polls the rendered frame until it matches `re` (at most `ms` milliseconds: a cap on the wait, not a
 * timed assertion — the caller asserts on the frame it returns, the last one whatever happened).
 */
export async function waitForFrame(
  frame: () => string | undefined,
  re: RegExp,
  ms = 10_000,
): Promise<string> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    const f = frame() ?? "";
    if (re.test(f)) return f;
    await new Promise((r) => setTimeout(r, 50));
  }
  return frame() ?? "";
}
