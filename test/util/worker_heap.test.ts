/**
 * util/worker_heap.ts: the launcher keeps V8's young generation at its initial size
 * (--semi-space-growth-factor=1), and V8 raises that process-wide flag back when a worker thread's heap
 * is set up. In a child Node (the built module, as the CLI runs it) that sets the flag, starts a worker
 * and then keeps millions of objects alive (every scavenge sees them survive, which is when the young
 * generation grows): with the factor noted and put back (noteYoungGenerationGrowth, the worker
 * started by startWorker) the new space stays at 2 x 1 MiB; without, it grows — the V8 behaviour
 * the module exists for, checked too so that this test fails if it ever stops holding.
 */
import { describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { REPO } from "../helpers/index.js";

const MODULE = pathToFileURL(join(REPO, "dist", "src", "util", "worker_heap.js")).href;

/** The new space's size (bytes) after the child's allocation, the launcher's factor noted or not. */
function newSpaceAfterWorker(note: boolean): number {
  const script = `
import { setFlagsFromString, getHeapSpaceStatistics } from "node:v8";
import { noteYoungGenerationGrowth, startWorker } from ${JSON.stringify(MODULE)};
setFlagsFromString("--semi-space-growth-factor=1");
${note ? "noteYoungGenerationGrowth(1);" : ""}
const w = startWorker("require('node:worker_threads').parentPort.postMessage(1)", { eval: true, execArgv: [] });
await new Promise((r) => w.once("message", r));
await new Promise((r) => setImmediate(r));
const keep = [];
for (let i = 0; i < 3e6; i++) keep.push({ i });
const ns = getHeapSpaceStatistics().find((s) => s.space_name === "new_space");
console.log(ns.space_size, keep.length);
await w.terminate();
`;
  const r = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
  expect(r.stderr).toBe("");
  expect(r.status).toBe(0);
  return Number(r.stdout.split(" ")[0]);
}

describe("worker_heap", () => {
  it("keeps the young generation at its initial size after a worker starts; without, it grows", () => {
    const MiB = 1024 * 1024;
    expect(newSpaceAfterWorker(true)).toBeLessThanOrEqual(2 * MiB);
    expect(newSpaceAfterWorker(false)).toBeGreaterThan(2 * MiB);
  }, 60_000);
});
