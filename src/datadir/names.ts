/**
 * How instances and column families are named to a user: one place, so every command and the TUI say the
 * same. An instance is named by its path under the datadir; the datadir itself (relPath ".") by its
 * directory's name. A column family inside an instance is joined to it without repeating a name both
 * carry (Nethermind's `flat` instance has `flat/Account`; its `code` instance names its default CF `code`).
 */
import { basename, posix } from "node:path";

/** The instance as shown: its path under the datadir, or the datadir's own name when it is the store. */
export function instanceLabel(inst: { relPath: string; path: string }): string {
  return inst.relPath === "." || inst.relPath === "" ? basename(inst.path) || inst.path : inst.relPath;
}

/** "database/cf06 ACCOUNT_INFO_STATE", "nethermind_db/mainnet/flat/Account", "nethermind_db/mainnet/code". */
export function cfLabel(inst: { relPath: string; path: string }, cfDisplayName: string): string {
  const where = instanceLabel(inst);
  const last = posix.basename(where);
  if (cfDisplayName === last) return where;
  if (cfDisplayName.startsWith(`${last}/`)) return `${where}${cfDisplayName.slice(last.length)}`;
  return `${where}/${cfDisplayName}`;
}
