import { describe, it, expect } from "vitest";
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const bin = new URL("../bin/lsmscope.js", import.meta.url).pathname;

function run(...args: string[]) {
  return spawnSync(process.execPath, [bin, ...args], { encoding: "utf8" });
}

/** One line on stderr, no stack trace. */
function expectOneLineError(stderr: string): void {
  expect(stderr.trim().split("\n")).toHaveLength(1);
  expect(stderr).not.toMatch(/\n\s+at /);
}

describe("cli", () => {
  it("prints its version", () => {
    const out = execFileSync(process.execPath, [bin, "--version"], { encoding: "utf8" });
    expect(out.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it("lists every command in --help", () => {
    const r = run("--help");
    expect(r.status).toBe(0);
    for (const c of ["sst", "inspect", "tui", "sizes", "probe", "check", "compact"]) {
      expect(r.stdout).toContain(`lsmscope ${c} `);
    }
  });

  it("rejects an unknown option with exit 2 and no stack", () => {
    const r = run("inspect", "samples/besu-snapshot", "--no-such-option");
    expect(r.status).toBe(2);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it("names the path when a directory is given where a table is expected", () => {
    const dir = mkdtempSync(join(tmpdir(), "lsmscope-cli-"));
    try {
      const r = run("sst", dir);
      expect(r.status).toBe(2);
      expectOneLineError(r.stderr);
      expect(r.stderr).toContain(dir);
      expect(r.stderr).toContain("not a regular file");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("sizes on a directory without a store says so and exits 2", () => {
    const dir = mkdtempSync(join(tmpdir(), "lsmscope-cli-"));
    try {
      const r = run("sizes", dir);
      expect(r.status).toBe(2);
      expectOneLineError(r.stderr);
      expect(r.stderr).toMatch(/no [A-Za-z, ]*store found/);
      expect(r.stdout).toBe("");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
