/**
 * Cold runs: dropping the OS page cache for a store, and counting what the block layer served.
 *
 * - As root: `sync` then `echo 3 > /proc/sys/vm/drop_caches` (the whole page cache, every file).
 *   Otherwise: posix_fadvise(POSIX_FADV_DONTNEED) on every file of the store (through the engine
 *   addon's dropFileCache), which drops that file's clean pages.
 * - /proc/self/io `read_bytes`: bytes this process caused to be fetched from the storage layer (page
 *   cache misses), the figure a cold lookup is about. `rchar` counts every read() including cache hits.
 * - /proc/diskstats: sectors read on the store's block device (major:minor of the directory's st_dev),
 *   device-wide (other processes count too), × 512 bytes.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { devParts } from "../util/dev.js";
import { LsmscopeError } from "../util/errors.js";
import { dropFileCache, engineAvailable } from "../engine/index.js";

export type ColdMethod = "drop_caches" | "fadvise";

function isRoot(): boolean {
  return typeof process.getuid === "function" && process.getuid() === 0;
}

/** Which method a cold run would use here, or why none works. */
export function coldMethodAvailable(prefer?: ColdMethod): { method?: ColdMethod; reason?: string } {
  const canDrop = isRoot() && existsSync("/proc/sys/vm/drop_caches");
  const canFadvise = engineAvailable();
  if (prefer === "drop_caches") return canDrop ? { method: prefer } : { reason: "drop_caches needs root" };
  if (prefer === "fadvise")
    return canFadvise
      ? { method: prefer }
      : { reason: "posix_fadvise needs the engine addon (npm run build:addon)" };
  if (canDrop) return { method: "drop_caches" };
  if (canFadvise) return { method: "fadvise" };
  return {
    reason:
      "cannot drop the page cache: not root (drop_caches) and the engine addon is not built (posix_fadvise); run as root or: npm run build:addon",
  };
}

/** Drop the page cache for `files` with `method`. */
export function dropPageCache(files: string[], method: ColdMethod): void {
  if (method === "drop_caches") {
    try {
      execFileSync("sync");
      writeFileSync("/proc/sys/vm/drop_caches", "3\n");
      return;
    } catch (err) {
      throw new LsmscopeError(`cannot write /proc/sys/vm/drop_caches: ${(err as Error).message}`, {
        cause: err,
      });
    }
  }
  for (const f of files) if (existsSync(f)) dropFileCache(f);
}

/** read_bytes of /proc/self/io, or null where the kernel does not offer it. */
export function procReadBytes(): number | null {
  try {
    const m = /^read_bytes:\s+(\d+)/m.exec(readFileSync("/proc/self/io", "utf8"));
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

/** The /proc/diskstats line for the device holding `path`, or undefined (e.g. overlay, tmpfs). */
export function deviceOf(path: string): { major: number; minor: number } | undefined {
  try {
    const [major, minor] = devParts(statSync(path, { bigint: true }).dev);
    return { major, minor };
  } catch {
    return undefined;
  }
}

/** Sectors read × 512 on the device, or null when the device is not listed. */
export function deviceReadBytes(dev: { major: number; minor: number } | undefined): number | null {
  if (!dev) return null;
  try {
    for (const line of readFileSync("/proc/diskstats", "utf8").split("\n")) {
      const f = line.trim().split(/\s+/);
      if (f.length >= 6 && Number(f[0]) === dev.major && Number(f[1]) === dev.minor)
        return Number(f[5]) * 512;
    }
  } catch {
    return null;
  }
  return null;
}
