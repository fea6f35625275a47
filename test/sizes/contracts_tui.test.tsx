/**
 * Storage per contract in the TUI: the sizes pane's full scan of Besu's ACCOUNT_STORAGE_STORAGE shows it
 * (ink-testing-library at 80 columns), the same totals as `sizes` prints.
 */
import { afterEach, describe, expect, it } from "vitest";
import { cleanup, render } from "ink-testing-library";
import { join } from "node:path";
import { App } from "../../src/tui/app.js";
import { runInspect } from "../../src/report/deep.js";
import { SAMPLES } from "../helpers/index.js";
import { waitForFrame } from "../helpers/ink.js";

const tick = (ms = 150) => new Promise((r) => setTimeout(r, ms));
afterEach(() => cleanup());

describe("TUI sizes pane on the storage column family", () => {
  it("r shows storage per contract", async () => {
    const result = await runInspect(join(SAMPLES, "besu-snapshot"));
    const { lastFrame, stdin } = render(<App result={result} width={80} height={40} />);
    await tick();
    for (let i = 0; i < 10 && !lastFrame()!.includes("› cf08"); i++) {
      stdin.write("\u001B[B");
      await tick();
    }
    expect(lastFrame()).toContain("› cf08 ACCOUNT_STORAGE_STORAGE");
    stdin.write("d");
    await tick();
    stdin.write("\t");
    await tick();
    stdin.write("r");
    const f = await waitForFrame(lastFrame, /live slots of/);
    expect(f).toContain("storage per contract (database/cf08");
    expect(f).toMatch(/12,434 live slots of 545 contracts/);
    expect(f.split("\n").every((l) => [...l].length <= 80)).toBe(true);
  });
});
