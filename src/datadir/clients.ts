/**
 * Client recognition and client-aware names (shared/reference/clients.md):
 * - Besu: `DATABASE_METADATA.json` beside `database/`; column families named by one raw byte, shown as
 *   `cf06 ACCOUNT_INFO_STATE` (hyperledger/besu KeyValueSegmentIdentifier.java).
 * - Nethermind: `nethermind_db/<network>/<database>/` RocksDB instances; CF names are enum member names.
 * - geth: legacy LevelDB chaindata (key-prefix categories below); current geth uses Pebble, which we
 *   recognise (OPTIONS with `pebble_version`, `marker.*` files, table magic) and do not read.
 */
import { existsSync } from "node:fs";
import { readRegularFileHead, readRegularFileUpTo } from "../util/regular_file.js";
import { basename, dirname, join, sep } from "node:path";
import { LIMITS } from "../util/limits.js";
import { isPrintableName } from "../util/bytes.js";

/** Besu segment id (hex of the one-byte CF name) → segment name. */
export const BESU_SEGMENTS: Record<string, string> = {
  "01": "BLOCKCHAIN",
  "02": "WORLD_STATE",
  "03": "PRIVATE_TRANSACTIONS",
  "04": "PRIVATE_STATE",
  "05": "PRUNING_STATE",
  "06": "ACCOUNT_INFO_STATE",
  "07": "CODE_STORAGE",
  "08": "ACCOUNT_STORAGE_STORAGE",
  "09": "TRIE_BRANCH_STORAGE",
  "0a": "TRIE_LOG_STORAGE",
  "0b": "VARIABLES",
  "0c": "GOQUORUM_PRIVATE_WORLD_STATE",
  "0d": "GOQUORUM_PRIVATE_STORAGE",
  "0e": "BACKWARD_SYNC_HEADERS",
  "0f": "BACKWARD_SYNC_BLOCKS",
  "10": "BACKWARD_SYNC_CHAIN",
  "11": "SNAPSYNC_MISSING_ACCOUNT_RANGE",
  "12": "SNAPSYNC_ACCOUNT_TO_FIX",
  "13": "CHAIN_PRUNER_STATE",
};

/** Known Nethermind database directory names under nethermind_db/<network>/. */
export const NETHERMIND_DATABASES = new Set([
  "state",
  "code",
  "blocks",
  "headers",
  "blockNumbers",
  "receipts",
  "blockInfos",
  "badBlocks",
  "bloom",
  "metadata",
  "blobTransactions",
  "flat",
  "peers",
  "discoveryNodes",
  "pendingTxs",
  "witness",
  "canonicalHashTrie",
  "history",
  "logIndex",
]);

export interface BesuMetadata {
  metadataFile: string;
  format?: string;
  version?: number;
  raw?: unknown;
  error?: string;
}

/** Read Besu's DATABASE_METADATA.json ({"v2":{"format","version"}} or legacy {"version"}). */
export function readBesuMetadata(dir: string): BesuMetadata | undefined {
  const path = join(dir, "DATABASE_METADATA.json");
  if (!existsSync(path)) return undefined;
  const out: BesuMetadata = { metadataFile: path };
  try {
    const raw = JSON.parse(readRegularFileUpTo(path, LIMITS.maxTextFileBytes, "utf8")) as Record<
      string,
      unknown
    >;
    out.raw = raw;
    const v2 = raw["v2"] as Record<string, unknown> | undefined;
    if (v2 && typeof v2 === "object") {
      if (typeof v2["format"] === "string") out.format = v2["format"];
      if (typeof v2["version"] === "number") out.version = v2["version"];
    } else if (typeof raw["version"] === "number") out.version = raw["version"];
  } catch (e) {
    out.error = (e as Error).message;
  }
  return out;
}

/** `cf06 ACCOUNT_INFO_STATE` for Besu, the name itself otherwise. */
export function displayCfName(
  client: string,
  nameBytes: Uint8Array,
  database?: string,
  onlyCf = false,
): string {
  const printable = isPrintableName(nameBytes);
  const text = Buffer.from(nameBytes).toString("latin1");
  const hex = Buffer.from(nameBytes).toString("hex");
  if (client === "besu") {
    if (text === "default") return "default";
    if (nameBytes.length === 1) return `cf${hex} ${BESU_SEGMENTS[hex] ?? "UNKNOWN_SEGMENT"}`;
    return printable ? text : `0x${hex}`;
  }
  if (client === "nethermind" && database) {
    if (text === "default") return onlyCf ? database : `${database}/default`;
    return `${database}/${printable ? text : "0x" + hex}`;
  }
  return printable ? text : `0x${hex}`;
}

/** Where a Nethermind instance sits: nethermind_db/<network>/<database>. */
export function nethermindPlace(instancePath: string): { network?: string; database: string } | undefined {
  const parts = instancePath.split(sep);
  const i = parts.lastIndexOf("nethermind_db");
  const database = basename(instancePath);
  if (i >= 0 && i + 2 < parts.length)
    return { network: parts[i + 1], database: parts.slice(i + 2).join("/") };
  // a network dir holding several known Nethermind databases
  if (NETHERMIND_DATABASES.has(database)) {
    const parent = dirname(instancePath);
    const siblings = [...NETHERMIND_DATABASES].filter((d) => existsSync(join(parent, d, "CURRENT")));
    if (siblings.length >= 2) return { network: basename(parent), database };
  }
  return undefined;
}

/** Pebble signals in a store directory (names already listed). */
export function looksLikePebble(dir: string, names: string[]): boolean {
  if (names.some((n) => n.startsWith("marker.manifest.") || n.startsWith("marker.format-version.")))
    return true;
  const opt = names.find((n) => /^OPTIONS-\d+$/.test(n));
  if (opt) {
    try {
      const head = readRegularFileHead(join(dir, opt), 4096).toString("latin1");
      if (/pebble_version\s*=/.test(head)) return true;
    } catch {
      // unreadable OPTIONS: decided elsewhere
    }
  }
  return false;
}
