/**
 * Where a script that runs in its own thread or process (a worker) is: the TypeScript build's output,
 * `dist/src/<rel>`. A worker needs a file of its own, so it is never part of the CLI bundle.
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

/**
 * The compiled script `rel` (relative to src/, e.g. "sizes/worker.js"), or undefined when it is not built.
 * This module sits one directory below `dist/src/` both in tsc's output (dist/src/util/) and in the CLI
 * bundle (dist/src/bundle/), so `../<rel>` names the same file from either; from the TypeScript sources
 * (vitest runs src/), the build output of the same tree.
 */
export function compiledScript(rel: string): string | undefined {
  const beside = fileURLToPath(new URL(`../${rel}`, import.meta.url));
  if (existsSync(beside)) return beside;
  const fromSources = fileURLToPath(new URL(`../../dist/src/${rel}`, import.meta.url));
  return existsSync(fromSources) ? fromSources : undefined;
}
