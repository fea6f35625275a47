/** Helpers for the report/TUI tests: sample paths, temp dirs, RocksDB stores written through the engine. */
import { cpSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export const samplesDir = new URL("../../samples/", import.meta.url).pathname;
export const repoRoot = new URL("../../", import.meta.url).pathname;

import { tempDir } from "../helpers/index.js";

export { removeDir, tempDir } from "../helpers/index.js";

/** Copy a sample datadir to a temp dir (so its OPTIONS can be edited). */
export function copySample(name: string): string {
  const dir = tempDir(`lsmscope-${name}-`);
  cpSync(join(samplesDir, name), dir, { recursive: true });
  return dir;
}

/** Rewrite option lines `name=value` in the newest OPTIONS file of `storeDir` (every section). */
export function editOptions(storeDir: string, edits: Record<string, string>): void {
  const name = readdirSync(storeDir)
    .filter((n) => /^OPTIONS-\d+$/.test(n))
    .sort((a, b) => Number(b.slice(8)) - Number(a.slice(8)))[0]!;
  const path = join(storeDir, name);
  let text = readFileSync(path, "latin1");
  for (const [k, v] of Object.entries(edits)) {
    const re = new RegExp(`^(\\s*${k}=).*$`, "gm");
    if (!re.test(text)) throw new Error(`${k} not in ${name}`);
    text = text.replace(re, `$1${v}`);
  }
  writeFileSync(path, text, "latin1");
}
