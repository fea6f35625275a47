/**
 * The read-ahead helper (build/Release/lsmscope_readahead.node, built from native/readahead.c beside the
 * engine addon by scripts/build-addon.mjs): asks the kernel to read byte ranges of files into the page
 * cache, one batch of files per call on a thread of libuv's pool, and resolves with the number of files
 * it could not open or advise. Optional: loaded when a reader first finds its reads going to the disk
 * (util/tail_read_ahead.ts), never on a warm run; without it (not built, or LSMSCOPE_READAHEAD_HELPER=0)
 * the read-ahead reads the files through Node's fs instead.
 */
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { nativeBuildPath } from "./package_root.js";

/** posix_fadvise(POSIX_FADV_WILLNEED) on [offsets[i], + lengths[i]) of each file paths[i]. */
export type WillNeed = (paths: string[], offsets: number[], lengths: number[]) => Promise<number>;

let loaded: { willNeed: WillNeed | undefined } | undefined;

/** The helper's willNeed, or undefined where it is not built, does not load or is switched off. */
export function readAheadHelper(): WillNeed | undefined {
  // read on every call: the tests and the bench switch it per run
  if (process.env.LSMSCOPE_READAHEAD_HELPER === "0") return undefined;
  loaded ??= { willNeed: load() };
  return loaded.willNeed;
}

function load(): WillNeed | undefined {
  const file = nativeBuildPath("lsmscope_readahead");
  if (file === undefined || !existsSync(file)) return undefined;
  try {
    const m = createRequire(import.meta.url)(file) as { willNeed?: unknown };
    return typeof m.willNeed === "function" ? (m.willNeed as WillNeed) : undefined;
  } catch {
    // built for another Node or machine: the read-ahead reads through Node's fs, as without it
    return undefined;
  }
}
