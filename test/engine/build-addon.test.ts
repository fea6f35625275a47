/** scripts/build-addon.mjs on a machine without librocksdb-dev (simulated with LSMSCOPE_ROCKSDB_HEADER). */
import { describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
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
