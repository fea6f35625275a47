/**
 * The read-ahead helper (build/Release/lsmscope_readahead.node, built from native/readahead.c beside the
 * engine addon by scripts/build-addon.mjs). Two calls, each one batch of files on a thread of libuv's
 * pool: willNeed asks the kernel to read byte ranges of files into the page cache and resolves with the
 * number of files it could not open or advise; readTails reads the files' last bytes into the caller's
 * buffers, setting a flag per file as it goes (util/tail_batches.ts). Optional: without it (not built,
 * or LSMSCOPE_READAHEAD_HELPER=0) the readers read the tails themselves and read ahead through Node's
 * fs (util/tail_read_ahead.ts).
 */
import { nativeHelper } from "./package_root.js";

/** posix_fadvise(POSIX_FADV_WILLNEED) on [offsets[i], + lengths[i]) of each file paths[i]. */
export type WillNeed = (paths: string[], offsets: number[], lengths: number[]) => Promise<number>;

/**
 * The last bytes of `count` files, read on a thread of libuv's pool (`paths`: each path followed by a
 * NUL). File k's last min(size, length) bytes go to data at k * length, its size, inode number and the
 * bytes read to info[3k..3k+3), and then done[k] is set: TAIL_READ, or TAIL_NOT_READ (not opened, not
 * a regular file, or not read whole). The caller reads done[k] with Atomics.load, without waiting; the
 * promise settles when the batch is done. Files are opened O_RDONLY|O_NONBLOCK, read and closed.
 */
export type ReadTails = (
  paths: string,
  count: number,
  length: number,
  data: Uint8Array,
  info: Float64Array,
  done: Int32Array,
) => Promise<void>;

export const TAIL_READ = 1;
export const TAIL_NOT_READ = 2;

interface Helper {
  willNeed?: WillNeed;
  readTails?: ReadTails;
}

let loaded: Helper | undefined;

/** The helper's willNeed, or undefined where it is not built, does not load or is switched off. */
export function readAheadHelper(): WillNeed | undefined {
  return helper().willNeed;
}

/** The helper's readTails, or undefined where it is not built, does not load or is switched off. */
export function tailReadHelper(): ReadTails | undefined {
  return helper().readTails;
}

function helper(): Helper {
  // read on every call: the tests and the bench switch it per run
  if (process.env.LSMSCOPE_READAHEAD_HELPER === "0") return {};
  loaded ??= load();
  return loaded;
}

function load(): Helper {
  // not built, or built for another Node or machine: the readers read through Node's fs, as without it
  const m = nativeHelper("lsmscope_readahead");
  return {
    willNeed: typeof m?.willNeed === "function" ? (m.willNeed as WillNeed) : undefined,
    readTails: typeof m?.readTails === "function" ? (m.readTails as ReadTails) : undefined,
  };
}
