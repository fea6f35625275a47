/**
 * Checks made before anything is written. Each returns a refusal (one line) or nothing.
 *
 * - LOCK: RocksDB holds `<store>/LOCK` with an fcntl (POSIX) write lock for as long as a process has the
 *   store open read-write (env/io_posix.cc LockFile). Opening the store ourselves to find out would
 *   already rotate its LOG, so the lock is looked up without touching the store: Linux lists every
 *   POSIX/OFD lock in /proc/locks as `<id>: POSIX ADVISORY WRITE <pid> <major>:<minor>:<inode> ...`, and
 *   the LOCK file's device and inode identify it. Where /proc/locks cannot be read the check says so,
 *   and the engine's own open (which fails with StoreLockedError) stays the last line of defence.
 * - format_version: RocksDB 7.8.3 reads and writes format versions up to 5.
 * - free disk: statfs of the store's filesystem against the bytes the rewrite needs.
 * - pre-flight (preflight.ts): every block of every live table and every blob record read and
 *   checksummed, and the MANIFEST replayed again, before the engine opens the store.
 */
import { existsSync, readFileSync, statfsSync, statSync } from "node:fs";
import { join } from "node:path";
import { devParts } from "../util/dev.js";

export interface Refusal {
  /** Stable id: "lock-held", "format-version", "disk-space", "option-change", "options-missing", ... */
  code: string;
  message: string;
}

export interface LockState {
  held: boolean;
  /** Process holding it, when /proc/locks names one. */
  pid?: number;
  /** How the state was found out. */
  method: "proc-locks" | "no-lock-file" | "unavailable";
  note?: string;
}

/** Is `<storeDir>/LOCK` locked by some process? Reads /proc/locks only; never opens the LOCK file. */
export function lockState(storeDir: string, procLocks = "/proc/locks"): LockState {
  const lockFile = join(storeDir, "LOCK");
  if (!existsSync(lockFile)) return { held: false, method: "no-lock-file" };
  let text: string;
  try {
    text = readFileSync(procLocks, "latin1");
  } catch (err) {
    return {
      held: false,
      method: "unavailable",
      note: `cannot read ${procLocks}: ${(err as Error).message}`,
    };
  }
  const st = statSync(lockFile);
  const [major, minor] = devParts(st.dev);
  for (const line of text.split("\n")) {
    // "1: POSIX  ADVISORY  WRITE 20735 fe:00:2154480 0 EOF" (waiters are prefixed "1: -> ")
    const m = /^\d+:\s+(?:->\s+)?(\S+)\s+\S+\s+\S+\s+(-?\d+)\s+([0-9a-f]+):([0-9a-f]+):(\d+)\s/.exec(line);
    if (!m) continue;
    if (m[1] !== "POSIX" && m[1] !== "OFDLCK") continue;
    if (Number(m[5]) === st.ino && parseInt(m[3]!, 16) === major && parseInt(m[4]!, 16) === minor) {
      const pid = Number(m[2]);
      return { held: true, pid: pid > 0 ? pid : undefined, method: "proc-locks" };
    }
  }
  return { held: false, method: "proc-locks" };
}

export function lockRefusal(storeDir: string): Refusal | undefined {
  const s = lockState(storeDir);
  if (!s.held) return undefined;
  return {
    code: "lock-held",
    message: `the store is open in another process${s.pid ? ` (pid ${s.pid})` : ""}: ${join(storeDir, "LOCK")} is locked; close it first`,
  };
}

export interface DiskState {
  /** Bytes available to this user on the store's filesystem. */
  free: number;
  needed: number;
}

export function diskState(storeDir: string, needed: number): DiskState {
  const s = statfsSync(storeDir);
  return { free: Number(s.bavail) * Number(s.bsize), needed };
}
