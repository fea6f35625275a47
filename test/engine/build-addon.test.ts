/**
 * scripts/build-addon.mjs on a machine without librocksdb-dev (simulated with LSMSCOPE_ROCKSDB_HEADER),
 * and what decides whether it builds the block codec helper (scripts/codec-headers.mjs).
 */
import { describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

const script = join(import.meta.dirname, "..", "..", "scripts", "build-addon.mjs");
const env = { ...process.env, LSMSCOPE_ROCKSDB_HEADER: "/nonexistent/rocksdb/db.h" };

describe("build-addon without librocksdb-dev", () => {
  it("--optional (npm install) prints one note and exits 0", () => {
    const r = spawnSync(process.execPath, [script, "--optional"], { env, encoding: "utf8" });
    expect(r.status).toBe(0);
    expect(r.stdout.trim().split("\n")).toHaveLength(1);
    expect(r.stdout).toContain("librocksdb-dev is not installed");
    expect(r.stdout).toContain("sudo apt-get install -y librocksdb-dev && npm run build:addon");
  });

  it("without --optional (npm run build:addon) it fails loudly", () => {
    const r = spawnSync(process.execPath, [script], { env, encoding: "utf8" });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("engine addon build failed");
  });
});

describe("the block codec helper's target", () => {
  // building the addon takes ~15 s: what decides whether the helper is built is held here, the build
  // itself by test/packaging (npm install -g of the package, the helper checked beside the engine)
  const headers = join(import.meta.dirname, "..", "..", "scripts", "codec-headers.mjs");
  const ask = (extra: Record<string, string>) =>
    spawnSync(process.execPath, [headers], { env: { ...process.env, ...extra }, encoding: "utf8" }).stdout;

  it("is built only where libsnappy's and liblz4's headers are (LSMSCOPE_CODEC_HEADERS=0: as if not)", () => {
    const here = existsSync("/usr/include/snappy-c.h") && existsSync("/usr/include/lz4.h");
    expect(ask({})).toBe(here ? "1" : "0");
    expect(ask({ LSMSCOPE_CODEC_HEADERS: "0" })).toBe("0");
    // binding.gyp lists the target under that answer, not among the targets always built
    const gyp = JSON.parse(readFileSync(join(import.meta.dirname, "..", "..", "binding.gyp"), "utf8")) as {
      variables: Record<string, string>;
      targets: { target_name: string }[];
      conditions: [string, { targets: { target_name: string }[] }][];
    };
    expect(gyp.variables["lsmscope_codec%"]).toBe("<!(node scripts/codec-headers.mjs)");
    expect(gyp.targets.map((t) => t.target_name)).not.toContain("lsmscope_codec");
    expect(gyp.conditions).toEqual([
      ["lsmscope_codec==1", { targets: [expect.objectContaining({ target_name: "lsmscope_codec" })] }],
    ]);
  });
});
