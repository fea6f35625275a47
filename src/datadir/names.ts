/**
 * How instances and column families are named to a user: one place, so every command and the TUI say the
 * same. An instance is named by its path under the datadir; the datadir itself (relPath ".") by its
 * directory's name. A column family inside an instance is joined to it without repeating a name both
 * carry (Nethermind's `flat` instance has `flat/Account`; its `code` instance names its default CF `code`).
 */
import { basename, posix } from "node:path";
import { isPrintableName } from "../util/bytes.js";

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

/**
 * A column family's raw name as text, as the model's `name` holds it: printable ASCII as is, anything else
 * as hex (Besu's one-byte names: "06"). Machine-readable; a user is shown the model's display name.
 */
export function cfNameText(name: Uint8Array): string {
  return isPrintableName(name) ? Buffer.from(name).toString("latin1") : Buffer.from(name).toString("hex");
}
