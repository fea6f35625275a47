/**
 * sizes/pool.ts, heedWorkerStarts(): a worker's start resets V8's young-generation growth for the whole
 * process (util/worker_heap.ts), and `sizes --full` plans on the main thread without yielding while
 * its worker starts. In a child Node (the built modules, as the CLI runs them) that sets the launcher's
 * factor, starts a pool of two threads and, without yielding, waits for the worker to be ready and then
 * keeps a million objects alive (every scavenge sees them survive, which is when the young generation
 * grows): calling heedWorkerStarts() as the planning loop does, the new space grows no larger than it
 * was when the factor was set (after the modules' imports, which grow it; a full collection may shrink
 * it meanwhile: 4 -> 2 MiB once in a fresh clone's run, session 45); without, it grows — checked too,
 * so that this test fails if the reset ever stops happening.
 */
import { describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { REPO } from "../helpers/index.js";

const module = (p: string) => JSON.stringify(pathToFileURL(join(REPO, "dist", "src", p)).href);

/** The new space's size (bytes) before and after the child's allocation, heedWorkerStarts() called or not. */
function newSpaceWhilePlanning(heed: boolean): { before: number; after: number } {
  const script = `
import { setFlagsFromString, getHeapSpaceStatistics } from "node:v8";
import { noteYoungGenerationGrowth } from ${module("util/worker_heap.js")};
import { ScanPool } from ${module("sizes/pool.js")};
setFlagsFromString("--semi-space-growth-factor=1");
noteYoungGenerationGrowth(1);
const newSpace = () => getHeapSpaceStatistics().find((s) => s.space_name === "new_space").space_size;
const before = newSpace();
const pool = new ScanPool(2);
const keep = [];
const pause = new Int32Array(new SharedArrayBuffer(4));
for (let i = 0; i < 1e6 || !pool.workersReady(); i++) {
  keep.push({ i });
  if (i % 64 === 63 && !pool.workersReady()) Atomics.wait(pause, 0, 0, 1);
  ${heed ? "pool.heedWorkerStarts();" : ""}
}
console.log(before, newSpace(), keep.length);
await pool.close();
`;
  const r = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
  expect(r.stderr).toBe("");
  expect(r.status).toBe(0);
  const [before, after] = r.stdout.split(" ").map(Number);
  return { before: before!, after: after! };
}

describe("sizes pool: the planning thread heeds its workers' starts", () => {
  it("keeps the planning thread's young generation at its initial size; without, it grows", () => {
    const heeded = newSpaceWhilePlanning(true);
    expect(heeded.after).toBeLessThanOrEqual(heeded.before);
    const unheeded = newSpaceWhilePlanning(false);
    expect(unheeded.after).toBeGreaterThan(2 * unheeded.before);
  }, 60_000);
});
