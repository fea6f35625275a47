/**
 * scripts/setup.sh prints one line per step, keeps everything the steps print in setup.log, names that
 * log when a step fails, and builds the addon once (through npm's install script, not a second build).
 * Run on a copy of the script in an empty directory, with stand-ins for `npm` and `dpkg` on PATH that
 * print what the real ones print (node-gyp's `gyp info` lines) and record how they were called.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { chmodSync, cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { REPO, removeDir, tempDir } from "../helpers/index.js";

let root: string;

/** A repository-shaped directory holding the script, and a bin/ of stand-ins; `failBuild` fails tsc. */
function stage(name: string, failBuild: boolean): { dir: string; path: string; calls: string } {
  const dir = join(root, name);
  mkdirSync(join(dir, "scripts"), { recursive: true });
  cpSync(join(REPO, "scripts", "setup.sh"), join(dir, "scripts", "setup.sh"));
  mkdirSync(join(dir, "build", "Release"), { recursive: true });
  writeFileSync(join(dir, "build", "Release", "lsmscope_engine.node"), "");
  const bin = join(dir, "fakebin");
  mkdirSync(bin);
  const calls = join(dir, "calls.txt");
  const gyp = Array.from({ length: 32 }, (_, i) => `echo "gyp info it worked if it ends with ok ${i}"`).join(
    "\n",
  );
  writeFileSync(
    join(bin, "npm"),
    `#!/bin/sh\necho "npm $*" >> ${JSON.stringify(calls)}\n` +
      `case "$1" in\n  ci) ${gyp.replace(/\n/g, "; ")}; echo "lsmscope: engine addon built"; exit 0 ;;\n` +
      `  run) echo "> tsc -p tsconfig.json"; ${failBuild ? 'echo "src/x.ts(1,1): error TS1005"; exit 2' : "exit 0"} ;;\nesac\n`,
  );
  // every system package counts as installed: the script never reaches apt-get here
  writeFileSync(join(bin, "dpkg"), "#!/bin/sh\nexit 0\n");
  chmodSync(join(bin, "npm"), 0o755);
  chmodSync(join(bin, "dpkg"), 0o755);
  return { dir, path: `${bin}:${process.env.PATH}`, calls };
}

beforeAll(() => {
  root = tempDir("lsmscope-setup-");
});
afterAll(() => removeDir(root));

describe("scripts/setup.sh", () => {
  it("one line per step, the steps' output in setup.log, npm ci once and no second addon build", () => {
    const s = stage("ok", false);
    const r = spawnSync("bash", [join(s.dir, "scripts", "setup.sh")], {
      encoding: "utf8",
      env: { ...process.env, PATH: s.path },
    });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.trim().split("\n")).toEqual([
      "setup: npm dependencies and the engine addon (npm ci)",
      "setup: engine addon built",
      "setup: TypeScript build (npm run build)",
      `setup: done (log: ${join(s.dir, "setup.log")})`,
    ]);
    expect(r.stdout + r.stderr).not.toMatch(/gyp info/);
    expect(readFileSync(join(s.dir, "setup.log"), "utf8").match(/gyp info/g)).toHaveLength(32);
    expect(readFileSync(s.calls, "utf8").trim().split("\n")).toEqual([
      "npm ci --no-audit --no-fund --foreground-scripts",
      "npm run build",
    ]);
  });

  it("a failing step names itself and the full log, with its last lines; exit 1", () => {
    const s = stage("fail", true);
    const r = spawnSync("bash", [join(s.dir, "scripts", "setup.sh")], {
      encoding: "utf8",
      env: { ...process.env, PATH: s.path },
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("setup: TypeScript build (npm run build) failed; the last lines of the log:");
    expect(r.stderr).toContain("error TS1005");
    expect(r.stderr.trim().split("\n").at(-1)).toBe(`setup: full log: ${join(s.dir, "setup.log")}`);
    expect(r.stdout).not.toMatch(/gyp info/);
  });
});
