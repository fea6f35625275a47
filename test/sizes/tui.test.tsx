/**
 * The distributions pane inside the real TUI app (ink-testing-library) on besu-snapshot: the hotkey
 * shows it, r runs a full scan of the selected column family, and the result fits 80 columns.
 */
import { afterEach, describe, expect, it } from "vitest";
import { cleanup, render } from "ink-testing-library";
import { join } from "node:path";
import { App } from "../../src/tui/app.js";
import { runInspect } from "../../src/report/deep.js";
import { histogramRows } from "../../src/tui/panes/distributions.js";
import { waitForFrame } from "../helpers/ink.js";
import { SAMPLES } from "./helpers.js";

const tick = (ms = 150) => new Promise((r) => setTimeout(r, ms));
afterEach(() => cleanup());

describe("TUI distributions pane", () => {
  it("shows key/value distributions of the selected column family after r", async () => {
    const result = await runInspect(join(SAMPLES, "besu-snapshot"));
    const { lastFrame, stdin } = render(<App result={result} width={80} height={24} />);
    await tick();
    // at 80 columns the tab bar names only the active pane; the others show their keys
    expect(lastFrame()).toContain(" 6d ");
    stdin.write("d");
    await tick();
    expect(lastFrame()).toContain("[6d Sizes]");
    expect(lastFrame()).toContain("r: full scan");
    stdin.write("\t");
    await tick();
    stdin.write("r");
    const f = await waitForFrame(lastFrame, /live keys 1,317/);
    expect(f).toContain("live keys 1,317");
    expect(f.split("\n").every((l) => [...l].length <= 80)).toBe(true);
  });

  it("draws one bar row per log2 bucket, longest for the largest count", () => {
    const rows = histogramRows(
      "value bytes",
      [
        { le: 0, count: 0 },
        { le: 1, count: 2 },
        { le: 2, count: 8 },
      ],
      40,
    );
    expect(rows).toHaveLength(3);
    expect(rows[2]!).toMatch(/█{16} 8$/);
  });
});
