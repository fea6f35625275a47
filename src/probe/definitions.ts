/**
 * Ready-made probe definitions (the JSON files in probes/): which column family, which keys and counts
 * answer a standard question ("what does an absent account cost on this Besu store?").
 *
 *   { "name": "besu-absent-account", "description": "...", "client": "besu",
 *     "cf": "06", "instance": "optional/rel/path",
 *     "keys": "present" | "absent" | { "file": "relative/to/the/definition.txt", "addresses": "besu" },
 *     "shape": { "prefix": "61", "length": 33 }, "count": [100, 1000], "path": "both" }
 */
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fromHex } from "../util/bytes.js";
import { fromFsError, LsmscopeError } from "../util/errors.js";
import type { ProbeOptions } from "./probe.js";
import type { AddressHashing } from "./keys.js";

export interface ProbeDefinition {
  name: string;
  description?: string;
  client?: string;
  options: Partial<ProbeOptions>;
}

const HASHINGS = ["besu", "nethermind", "geth"];

export function loadProbeDefinition(path: string): ProbeDefinition {
  let raw: Record<string, unknown>;
  try {
    raw = JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;
  } catch (err) {
    const os = fromFsError(err, path);
    if (os) throw os;
    throw new LsmscopeError(`not a probe definition: ${(err as Error).message}`, { file: path });
  }
  const bad = (what: string) => new LsmscopeError(`probe definition: ${what}`, { file: path });
  const o: Partial<ProbeOptions> = {};
  if (raw["cf"] !== undefined) {
    if (typeof raw["cf"] !== "string") throw bad('"cf" must be a string');
    o.cf = raw["cf"];
  }
  if (typeof raw["instance"] === "string") o.instance = raw["instance"];
  const k = raw["keys"];
  if (k === "present" || k === "absent") o.keys = k;
  else if (k && typeof k === "object" && typeof (k as { file?: unknown }).file === "string") {
    const f = k as { file: string; addresses?: string };
    if (f.addresses !== undefined && !HASHINGS.includes(f.addresses))
      throw bad(`"addresses" must be one of ${HASHINGS.join(", ")}`);
    o.keys = { file: resolve(dirname(path), f.file), addresses: f.addresses as AddressHashing | undefined };
  } else if (k !== undefined) throw bad('"keys" must be "present", "absent" or {"file": ...}');
  const s = raw["shape"] as { prefix?: string; length?: number } | undefined;
  if (s) o.shape = { prefix: s.prefix ? fromHex(s.prefix) : undefined, length: s.length };
  const c = raw["count"];
  if (c !== undefined) {
    const arr = Array.isArray(c) ? c : [c];
    if (!arr.every((x) => Number.isInteger(x) && (x as number) > 0))
      throw bad('"count" must be positive integers');
    o.counts = arr as number[];
  }
  const p = raw["path"];
  if (p !== undefined) {
    if (p !== "reader" && p !== "engine" && p !== "both") throw bad('"path" must be reader, engine or both');
    o.path = p;
  }
  return {
    name: typeof raw["name"] === "string" ? raw["name"] : path,
    description: typeof raw["description"] === "string" ? raw["description"] : undefined,
    client: typeof raw["client"] === "string" ? raw["client"] : undefined,
    options: o,
  };
}
