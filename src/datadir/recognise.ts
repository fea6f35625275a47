/**
 * Whose store it is: the engine (Pebble by its markers) and the client (Besu by its metadata, Nethermind
 * by its directory layout, geth by its key shapes or, for Pebble, its evidence), per store and for the
 * whole datadir.
 */
import { join } from "node:path";
import { looksLikePebble, nethermindPlace, readBesuMetadata } from "./clients.js";
import { GETH_CATEGORIES, gethKeyCategory } from "../eth/geth_schema.js";
import type { ClientInfo, Finding, InstanceModel } from "./model.js";
import {
  formatMajorVersion,
  formatMajorVersionName,
  markedManifest,
  newestOptionsFile,
  parsePebbleOptions,
  readMarkers,
} from "./pebble_store.js";
import { gethEvidenceForPebble } from "./pebble_geth.js";
import { pebbleOptionsModel } from "./pebble_options.js";
import { readRemoteCatalog } from "./pebble_remote_catalog.js";
import type { LiveFiles, StoreRead } from "./store_read.js";

/**
 * A Pebble store (pebble_store.ts): its markers (the current MANIFEST, the format major version) and
 * Pebble's OPTIONS. Whose store it is waits for geth evidence (recognisePebbleGeth).
 */
export function recognisePebble(s: StoreRead): boolean {
  const { dir, names, inst, F } = s;
  if (!looksLikePebble(dir, names)) return false;
  inst.engine = "pebble";
  const markers = readMarkers(names);
  const fmv = formatMajorVersion(markers);
  const manifest = markedManifest(markers);
  inst.pebble = {
    formatMajorVersion: fmv,
    formatMajorVersionName: fmv !== undefined ? formatMajorVersionName(fmv) : undefined,
    manifestMarker: manifest ? markers.get("manifest")!.file : undefined,
  };
  s.remote = readRemoteCatalog(dir, markers);
  if (s.remote?.problem)
    F.push({
      severity: "error",
      code: "remote-catalog-corrupt",
      file: join(dir, s.remote.file),
      offset: s.remote.problem.offset,
      message: `remote object catalog: ${s.remote.problem.message}`,
    });
  const opt = newestOptionsFile(dir, names);
  if (opt) {
    try {
      const o = parsePebbleOptions(opt.path, opt.file);
      inst.pebble.options = {
        file: o.file,
        path: o.path,
        pebbleVersion: o.pebbleVersion,
        options: o.options,
        levels: o.levels,
      };
      // the knob analysis, check and the layout flags read Pebble's options as RocksDB's (pebble_options.ts)
      inst.options = pebbleOptionsModel(o);
    } catch (e) {
      F.push({
        severity: "error",
        code: "options-unreadable",
        file: opt.path,
        message: `cannot read OPTIONS: ${(e as Error).message}`,
      });
    }
  }
  return true;
}

/** A Pebble store is geth's only with geth evidence (pebble_geth.ts); otherwise it stays generic. */
export function recognisePebbleGeth({ dir, inst, F }: StoreRead, live: LiveFiles): void {
  const evidence = gethEvidenceForPebble(
    dir,
    live.tables.filter((t) => t.present),
  );
  if (evidence.length > 0) {
    inst.client = "geth";
    inst.clientDetail = { role: "chaindata (Pebble)" };
  }
  F.push({
    severity: "info",
    code: "pebble-client",
    file: dir,
    message:
      evidence.length > 0
        ? `Pebble store, geth: ${evidence.join("; ")}`
        : "Pebble store without geth evidence (no chaindata beside ancient/, no geth metadata key): generic",
  });
}

/** Besu (DATABASE_METADATA.json beside or above) or Nethermind (its directory layout). */
export function recogniseClient({ dir, inst }: StoreRead, root: string, besuRoot: boolean): void {
  const nm = nethermindPlace(dir);
  const besuMeta = readBesuMetadata(join(dir, "..")) ?? (besuRoot ? readBesuMetadata(root) : undefined);
  if (besuRoot || besuMeta) {
    inst.client = "besu";
    inst.clientDetail = { besuFormat: besuMeta?.format, besuVersion: besuMeta?.version };
  } else if (nm) {
    inst.client = "nethermind";
    inst.clientDetail = { network: nm.network, database: nm.database };
  }
}

/** geth recognition for LevelDB stores: key shapes at the file boundaries, or the path. */
export function recogniseGeth({ dir, inst }: StoreRead, live: LiveFiles): void {
  const pathHint = /(^|[\\/])(geth|chaindata)([\\/]|$)/.test(dir);
  let gethKeys = 0;
  let keys = 0;
  for (const model of live.tables)
    for (const hex of [model.smallestKey, model.largestKey]) {
      const k = Buffer.from(hex, "hex");
      keys++;
      if (gethKeyCategory(k) !== GETH_CATEGORIES.unaccounted) gethKeys++;
    }
  inst.client = pathHint || (keys > 0 && gethKeys / keys >= 0.9) ? "geth" : "generic";
  if (inst.client === "geth") inst.clientDetail = { role: "chaindata (LevelDB, legacy geth)" };
}

/**
 * The datadir's client from Besu's metadata (DATABASE_METADATA.json in the directory or its parent);
 * "unknown" until the stores settle it (settleDatadirClient). An unreadable metadata file is a finding.
 */
export function besuClient(
  root: string,
  findings: Finding[],
): { client: ClientInfo; besu: ReturnType<typeof readBesuMetadata> } {
  const besu = readBesuMetadata(root) ?? readBesuMetadata(join(root, ".."));
  const client: ClientInfo = { kind: "unknown", evidence: [] };
  if (besu) {
    client.kind = "besu";
    client.evidence.push(besu.metadataFile);
    client.besu = {
      metadataFile: besu.metadataFile,
      format: besu.format,
      version: besu.version,
      raw: besu.raw,
    };
    if (besu.error)
      findings.push({
        severity: "warn",
        code: "besu-metadata",
        file: besu.metadataFile,
        message: `unreadable Besu metadata: ${besu.error}`,
      });
  }
  return { client, besu };
}

/** The datadir-level client verdict from its stores' clients, when Besu's metadata did not decide it. */
export function settleDatadirClient(client: ClientInfo, instances: InstanceModel[]): void {
  if (client.kind === "unknown") {
    const kinds = new Set(instances.map((i) => i.client));
    kinds.delete("generic");
    if (kinds.size > 1) {
      // e.g. a directory holding several datadirs: each instance carries its own client
      client.kind = "generic";
      client.evidence.push(`stores of several clients: ${[...kinds].sort().join(", ")}`);
    } else if (instances.some((i) => i.client === "nethermind")) {
      client.kind = "nethermind";
      const nets = new Set(instances.map((i) => i.clientDetail?.network).filter((x): x is string => !!x));
      client.nethermind = {
        network: nets.size === 1 ? [...nets][0] : undefined,
        databases: instances.filter((i) => i.client === "nethermind").map((i) => i.clientDetail!.database!),
      };
      client.evidence.push("nethermind_db/<network>/<database> layout");
    } else if (kinds.has("geth")) {
      client.kind = "geth";
      client.evidence.push(
        instances.some((i) => i.client === "geth" && i.engine === "pebble")
          ? "Pebble store with geth evidence"
          : "LevelDB store with geth key shapes",
      );
    } else if (instances.length > 0) client.kind = "generic";
  }
}
