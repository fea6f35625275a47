/**
 * scripts/build-addon.mjs on a machine without librocksdb-dev (simulated with LSMSCOPE_ROCKSDB_HEADER),
 * and what decides whether it builds the block codec and checksum helpers (scripts/helper-headers.mjs).
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

describe("the helpers' targets", () => {
  // building the addon takes ~15 s: what decides whether a helper is built is held here, the build
  // itself by test/packaging (npm install -g of the package, the helpers checked beside the engine)
  const headers = join(import.meta.dirname, "..", "..", "scripts", "helper-headers.mjs");
  const ask = (name: string, extra: Record<string, string>) =>
    spawnSync(process.execPath, [headers, name], { env: { ...process.env, ...extra }, encoding: "utf8" })
      .stdout;
  const gyp = () =>
    JSON.parse(readFileSync(join(import.meta.dirname, "..", "..", "binding.gyp"), "utf8")) as {
      variables: Record<string, string>;
      targets: { target_name: string }[];
      conditions: [string, { targets: { target_name: string; libraries: string[] }[] }][];
    };

  it("the block codec only where libsnappy's and liblz4's headers are (LSMSCOPE_CODEC_HEADERS=0: as if not)", () => {
    const here = existsSync("/usr/include/snappy-c.h") && existsSync("/usr/include/lz4.h");
    expect(ask("codec", {})).toBe(here ? "1" : "0");
    expect(ask("codec", { LSMSCOPE_CODEC_HEADERS: "0" })).toBe("0");
  });

  it("the checksum helper only where ISA-L's and xxHash's are (LSMSCOPE_CHECKSUM_HEADERS=0: as if not)", () => {
    const here =
      existsSync("/usr/include/isa-l/crc.h") &&
      existsSync("/usr/include/xxhash.h") &&
      (process.arch !== "x64" || existsSync("/usr/include/xxh_x86dispatch.h"));
    expect(ask("checksum", {})).toBe(here ? "1" : "0");
    expect(ask("checksum", { LSMSCOPE_CHECKSUM_HEADERS: "0" })).toBe("0");
    // one helper's answer is not the other's
    expect(ask("codec", { LSMSCOPE_CHECKSUM_HEADERS: "0" })).toBe(ask("codec", {}));
  });

  it("binding.gyp lists each helper under its answer, not among the targets always built", () => {
    const g = gyp();
    expect(g.variables["lsmscope_codec%"]).toBe("<!(node scripts/helper-headers.mjs codec)");
    expect(g.variables["lsmscope_checksum%"]).toBe("<!(node scripts/helper-headers.mjs checksum)");
    const always = g.targets.map((t) => t.target_name);
    expect(always).not.toContain("lsmscope_codec");
    expect(always).not.toContain("lsmscope_checksum");
    expect(g.conditions).toEqual([
      ["lsmscope_codec==1", { targets: [expect.objectContaining({ target_name: "lsmscope_codec" })] }],
      [
        "lsmscope_checksum==1",
        {
          targets: [
            expect.objectContaining({ target_name: "lsmscope_checksum", libraries: ["-lisal", "-lxxhash"] }),
          ],
        },
      ],
    ]);
  });
});
