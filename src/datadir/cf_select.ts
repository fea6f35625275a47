/**
 * What a `--cf` argument names. Every command that takes one (compact, diff, probe, sizes) asks here,
 * so that one spelling works in all of them: each had a matcher of its own, and `sizes --cf
 * ACCOUNT_INFO_STATE` found nothing where `compact` and `diff` took it, `database/cf06` worked nowhere,
 * and `sizes` alone ignored the letters' case.
 */
import type { ColumnFamilyModel, InstanceModel } from "./model.js";

/** The forms cfSelected takes, in a few words: the commands' help for `--cf`. */
export const CF_NAME_FORMS = 'name, hex "06", "cf06" or segment name, display name, or STORE/NAME';

/**
 * Whether `selector` names `cf` (of store `inst`, when known), letters' case aside:
 *  - its name as stored ("default", "state"), or its display name ("cf06 ACCOUNT_INFO_STATE",
 *    "state/Account");
 *  - its name's bytes in hex, with or without "0x" ("06", "0x06");
 *  - a part of a Besu display name: the segment's number ("cf06") or its name ("ACCOUNT_INFO_STATE");
 *  - any of these after the store, as "STORE/NAME": the store's path in the datadir (or its end), or
 *    its Nethermind database ("database/cf06", "state/default").
 * A writing command refuses a selector that names more than one column family of its store
 * (cfsSelected), since the case is ignored.
 */
export function cfSelected(cf: ColumnFamilyModel, selector: string, inst?: InstanceModel): boolean {
  if (namesCf(cf, selector)) return true;
  const slash = selector.lastIndexOf("/");
  if (inst === undefined || slash <= 0) return false;
  const store = selector.slice(0, slash).toLowerCase();
  const rel = inst.relPath.toLowerCase();
  const database = inst.clientDetail?.database?.toLowerCase();
  return (
    (rel === store || rel.endsWith(`/${store}`) || database === store) &&
    namesCf(cf, selector.slice(slash + 1))
  );
}

/** The column families of `inst` that `selector` names (cfSelected). */
export function cfsSelected(inst: InstanceModel, selector: string): ColumnFamilyModel[] {
  return inst.columnFamilies.filter((cf) => cfSelected(cf, selector, inst));
}

/** Whether `selector` names `cf` by itself (no store before it). */
function namesCf(cf: ColumnFamilyModel, selector: string): boolean {
  const s = selector.toLowerCase();
  if (cf.name.toLowerCase() === s || cf.displayName.toLowerCase() === s) return true;
  if (cf.nameHex === (s.startsWith("0x") ? s.slice(2) : s)) return true;
  // Besu's "cf06 ACCOUNT_INFO_STATE": either part
  const space = cf.displayName.indexOf(" ");
  if (space <= 0) return false;
  const display = cf.displayName.toLowerCase();
  return display.slice(0, space) === s || display.slice(space + 1) === s;
}
