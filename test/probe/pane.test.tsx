/** The probe pane in the TUI (ink-testing-library) on the committed besu-snapshot sample. */
import { afterEach, describe, expect, it } from "vitest";
import { render, cleanup } from "ink-testing-library";
import { join } from "node:path";
import { App } from "../../src/tui/app.js";
import { runInspect } from "../../src/report/deep.js";
import { getPane } from "../../src/tui/panes/index.js";
import { waitForFrame } from "../helpers/ink.js";
import { SAMPLES } from "./helpers.js";

const tick = (ms = 30) => new Promise((r) => setTimeout(r, ms));
afterEach(() => cleanup());

describe("probe pane", () => {
  it("is registered with hotkey p", () => {
    expect(getPane("probe")?.key).toBe("p");
  });

  it("runs an absent-key probe on the selected column family at 80×24", async () => {
    const result = await runInspect(join(SAMPLES, "besu-snapshot"));
    const { lastFrame, stdin } = render(<App result={result} width={80} height={24} initialPane="probe" />);
    await tick();
    expect(lastFrame()).toContain("Probe]");
    expect(lastFrame()).toContain("a: absent keys");
    // focus the pane, then start an absent-key probe (keys are retried: under load Ink may not have
    // switched the pane's input on yet when the first key arrives)
    stdin.write("\t");
    let f = "";
    for (let i = 0; i < 20 && !/running|reader\s+no/.test(f); i++) {
      await tick(200);
      if (!/Tab focus: list \[pane\]/.test(lastFrame() ?? "")) stdin.write("\t");
      else stdin.write("a");
      await tick(100);
      f = lastFrame() ?? "";
    }
    f = await waitForFrame(lastFrame, /1000\s+reader\s+no\s+0\/1000/);
    expect(f).toMatch(/1000\s+reader\s+no\s+0\/1000/);
    expect(f).toContain("keys: absent");
    expect(f.split("\n").every((l) => [...l].length <= 80)).toBe(true);
  });
});
