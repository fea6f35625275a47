/**
 * Storage per contract as RFC 4180 CSV (`sizes --contracts-csv`): one row per listed contract, the top
 * list by slots first, then by bytes; raw integers, the contract id in hex.
 */
import { stringify } from "csv-stringify/sync";
import type { StorageView } from "./view.js";

export const CONTRACTS_CSV_COLUMNS = ["by", "rank", "id", "slots", "bytes"] as const;

export function renderContractsCsv(v: StorageView): string {
  const rows: (string | number)[][] = [[...CONTRACTS_CSV_COLUMNS]];
  for (const [by, list] of [
    ["slots", v.topBySlots],
    ["bytes", v.topByBytes],
  ] as const)
    list.forEach((t, i) => rows.push([by, i + 1, t.id, t.slots, t.bytes]));
  return stringify(rows, { record_delimiter: "\r\n" });
}
