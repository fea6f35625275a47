import { describe, it, expect } from "vitest";
import { execFileSync, spawnSync } from "node:child_process";

const bin = new URL("../bin/lsmscope.js", import.meta.url).pathname;

describe("cli skeleton", () => {
  it("prints its version", () => {
    const out = execFileSync(process.execPath, [bin, "--version"], { encoding: "utf8" });
    expect(out.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it("rejects an unknown command with one line and exit 2", () => {
    const r = spawnSync(process.execPath, [bin, "no-such-command"], { encoding: "utf8" });
    expect(r.status).toBe(2);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});
