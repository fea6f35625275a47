/**
 * The storage-per-contract view of `sizes`: how many contracts hold storage, the distribution of
 * their live slots and bytes, and the contracts with the most of each. Full mode: a contract's slots
 * run across data blocks, which sampled blocks cut; sample mode draws whole contracts instead (sample.ts).
 */
import type { DistFigures } from "../types.js";
import type { SizeDist } from "../dist.js";
import type { ContractTally, StorageMerge } from "./acc.js";
import type { StorageLocation } from "./layout.js";

export type { ContractTally } from "./acc.js";

/** A distribution over contracts (one value per contract). */
export interface PerContract extends DistFigures {
  contracts: number;
  /** Sum over the contracts. */
  total: number;
}

export interface StorageView {
  /** "instance/displayName" (+ " prefix 0x6f" for geth's storage snapshot). */
  location: string;
  instance: string;
  cf: string;
  prefixHex?: string;
  /** What `id` in the top lists is: "account hash", or "account hash, first 20 bytes" (Nethermind). */
  idKind: string;
  /** Contracts with at least one live slot. */
  contracts: number;
  /** Live storage slot records. */
  slots: number;
  /** Key + value bytes of the live slot records (value bytes as a Get returns them). */
  bytes: number;
  slotsPerContract: PerContract;
  bytesPerContract: PerContract;
  /** The contracts with the most slots / bytes (up to 20), largest first, ties by id. */
  topBySlots: ContractTally[];
  topByBytes: ContractTally[];
  /** Share of all live slots held by the contracts of topBySlots. */
  topBySlotsShare: number;
}

function perContract(d: SizeDist): PerContract {
  const s = d.summary();
  const out: PerContract = {
    contracts: s.count,
    total: s.totalBytes,
    min: s.min,
    max: s.max,
    mean: s.mean,
    p50: s.p50,
    p90: s.p90,
    p99: s.p99,
    histogram: s.histogram,
  };
  if (s.approximate) out.approximate = true;
  return out;
}

export function storageView(
  merged: StorageMerge,
  loc: StorageLocation,
  where: { instance: string; cf: string },
): StorageView {
  const f = merged.finish();
  const slots = f.slots.sum;
  const view: StorageView = {
    location: loc.location,
    instance: where.instance,
    cf: where.cf,
    idKind: loc.idKind,
    contracts: f.slots.count,
    slots,
    bytes: f.bytes.sum,
    slotsPerContract: perContract(f.slots),
    bytesPerContract: perContract(f.bytes),
    topBySlots: f.topBySlots,
    topByBytes: f.topByBytes,
    topBySlotsShare: slots > 0 ? f.topBySlots.reduce((s, t) => s + t.slots, 0) / slots : 0,
  };
  if (loc.layout.prefixHex) view.prefixHex = loc.layout.prefixHex;
  return view;
}
