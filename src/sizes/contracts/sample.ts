/**
 * Storage per contract in sample mode, by seeks rather than blocks. A sampled data block cuts most
 * contracts' slots, but contracts are keyed by their account hash, uniform over the hash space and
 * independent of how many slots a contract holds. So: K points drawn uniformly over the first 8 bytes
 * of the contract id; at each, the first contract at or after the point (wrapping past the end) is
 * found by a seek of the one merge cursor (src/lsm/live.ts LiveCursor over a key range: newest
 * versions only, the WAL included) and its live slots are counted exactly over its own key range.
 *
 * A contract is drawn with probability (hash gap before it) / (hash space): the gaps do not depend on
 * slot counts, so the drawn contracts' slot counts are a sample of the contracts' distribution. Two
 * sources of error, both in the intervals: the K draws (1/K) and the gap weights themselves (for
 * Dirichlet gaps the weighted share of a property varies about the plain share by p(1-p)/N), so the
 * effective sample size is 1 / (1/K + 1/N). Percentile intervals are order-statistic intervals on it.
 * No mean and no total: slot counts are heavy-tailed (a few contracts hold most slots), and a sample's
 * mean interval misses the truth far more often than it claims (measured: 6 of 20 seeds). The contract count comes from the distances d from each point
 * to the contract found: d is Beta(1, N) of the space, so (N+1)·Σd ~ Gamma(K, 1).
 *
 * Which contracts are the largest cannot be known from a sample: only the largest seen are listed.
 * Only layouts whose group is the contract id (Besu, geth); Nethermind's contracts share 4-byte groups.
 */
import { LiveCursor, LiveRangeReads, type LiveEntry } from "../../lsm/live.js";
import type { DatadirModel } from "../../datadir/model.js";
import { selectCfs, type CfPlan } from "../plan.js";
import { prng, zFor } from "../intervals.js";
import type { SizesOptions } from "../types.js";
import { locateStorage } from "./layout.js";
import { isUserError, MissingDependencyError } from "../../util/errors.js";
import { prefixSuccessor } from "../../util/prefix.js";

type Where = Pick<CfPlan, "instance" | "cf">;
import type { Interval } from "../types.js";
import type { ContractTally } from "./acc.js";
import type { StorageLayout, StorageLocation } from "./layout.js";

/** Slots counted per drawn contract before the count stops (then a lower bound). */
export const SLOT_COUNT_CAP = 1_000_000;
/** Largest contracts seen listed. */
const LARGEST_SEEN = 10;

/** A distribution over contracts estimated from the drawn contracts. */
export interface SampledPerContract {
  /** Nearest-rank over the K draws (a contract drawn twice counts twice). */
  p50: number;
  p90: number;
  p99: number;
  /** Largest value among the drawn contracts. */
  maxSeen: number;
  /** Confidence intervals; a high bound null: above every drawn value (not bounded by the sample). */
  intervals: { p50: SampledInterval; p90: SampledInterval; p99: SampledInterval };
}

export type SampledInterval = [low: number, high: number | null];

export interface SampledStorageView {
  location: string;
  instance: string;
  cf: string;
  prefixHex?: string;
  idKind: string;
  /** Sampled: K seeks, one contract each. */
  sampled: true;
  draws: number;
  /** Distinct contracts among the draws. */
  contractsDrawn: number;
  /** Estimated contracts with at least one live slot, and its interval. */
  contracts: number;
  contractsInterval: Interval;
  slotsPerContract: SampledPerContract;
  bytesPerContract: SampledPerContract;
  /** Slots counted per contract at most; draws whose contract reached it (their figures lower bounds). */
  slotCap: number;
  cappedDraws: number;
  /** The drawn contracts with the most slots — not the store's largest (a sample cannot tell those). */
  largestSeen: ContractTally[];
}

export interface StorageSampleOptions {
  draws: number;
  rand: () => number;
  z: number;
  slotCap?: number;
  /** Draws done / draws. */
  onDraw?: (done: number, total: number) => void;
}

const TWO64 = 18446744073709551616; // 2^64

function be64(v: bigint): Buffer {
  const b = Buffer.alloc(8);
  b.writeBigUInt64BE(v);
  return b;
}

/** Seeks and counts over one column family. */
class ContractSeeker {
  private readonly prefix: Buffer;
  private readonly end: Buffer;
  private readonly go: number;
  private readonly gl: number;
  /** The WAL replayed once, the range deletions read once and the tables kept open, for every seek. */
  private readonly shared: LiveRangeReads;

  constructor(
    private readonly plan: Where,
    private readonly layout: StorageLayout,
  ) {
    this.prefix = Buffer.from(layout.prefixHex, "hex");
    // past every key of the layout: the prefix incremented, or (no prefix) 0xff beyond any key length
    this.end = prefixSuccessor(this.prefix) ?? Buffer.alloc(layout.keyLength + 1, 0xff);
    [this.go, this.gl] = layout.group;
    this.shared = new LiveRangeReads(plan.instance, plan.cf);
  }

  close(): void {
    this.shared.close();
  }

  private isSlot(k: Uint8Array): boolean {
    if (k.length !== this.layout.keyLength) return false;
    for (let i = 0; i < this.prefix.length; i++) if (k[i] !== this.prefix[i]) return false;
    return true;
  }

  /** Past every key of `group`'s contract. */
  private groupEnd(group: Buffer): Buffer {
    return prefixSuccessor(Buffer.concat([this.prefix, group])) ?? this.end;
  }

  /**
   * For each of `points` (id positions), the first contract whose id's first 8 bytes are ≥ it, with
   * its live slots and their key + value bytes (at most `cap` slots), or undefined past the last
   * contract. One cursor over the layout's keys goes through the points in ascending order, seeking
   * from each to the next (NewestCursor.seek): every run reads on from where it is. A cursor a point
   * read a block of every run at every point: over an L0 pile-up, every table. A point at or before
   * the contract the point before it found finds that contract again (none lies between them).
   * `onSeek`: points done so far.
   */
  groupsAt(points: readonly bigint[], cap: number, onSeek?: (done: number) => void): (Found | undefined)[] {
    const order = points
      .map((_, i) => i)
      .sort((a, b) => (points[a]! < points[b]! ? -1 : points[a]! > points[b]! ? 1 : 0));
    const out: (Found | undefined)[] = new Array<Found | undefined>(points.length).fill(undefined);
    const c = new LiveCursor(
      this.plan.instance,
      this.plan.cf,
      undefined,
      { lo: this.prefix, hi: this.end },
      this.shared,
    );
    let last: (Found & { g8: bigint }) | undefined;
    let done = 0;
    try {
      for (const i of order) {
        const p = points[i]!;
        if (last === undefined || p > last.g8) {
          c.seek(Buffer.concat([this.prefix, be64(p)]));
          let e = c.next();
          while (e !== undefined && !this.isSlot(e.key)) e = c.next();
          if (e === undefined) break; // past the last contract: this point and every later one
          const group = Buffer.from(e.key.subarray(this.go, this.go + this.gl));
          // every key of the group lies at or past the point: from its first slot on, the cursor holds them
          const count: SlotCount = { slots: 0, bytes: 0, capped: false };
          this.countInto(c, e, this.groupEnd(group), cap, count);
          last = { group, count, g8: group.readBigUInt64BE(0) };
        }
        out[i] = last;
        onSeek?.(++done);
      }
    } finally {
      c.close();
    }
    return out;
  }

  /** Count into `n` the slots of `c` from entry `first` on, before key `end`, up to `cap` in all. */
  private countInto(c: LiveCursor, first: LiveEntry, end: Buffer, cap: number, n: SlotCount): void {
    for (let e: LiveEntry | undefined = first; e; e = c.next()) {
      if (Buffer.compare(e.key, end) >= 0) return;
      if (!this.isSlot(e.key)) continue;
      if (n.slots >= cap) {
        n.capped = true;
        return;
      }
      n.slots++;
      n.bytes += e.key.length + e.value.length;
    }
  }
}

/** A contract's live slots and their key + value bytes (at most a cap of slots: then `capped`). */
type SlotCount = { slots: number; bytes: number; capped: boolean };

/** A contract found from a point: its id (the group) and its slots. */
type Found = { group: Buffer; count: SlotCount };

/** A group's first 8 bytes as a fraction of the id space. */
const position = (g: Buffer): number => Number(g.readBigUInt64BE(0)) / TWO64;

/** Gamma(k, 1) quantile (Wilson–Hilferty), k ≥ 1. */
function gammaQuantile(k: number, zq: number): number {
  const c = 1 / (9 * k);
  return Math.max(0, k * (1 - c + zq * Math.sqrt(c)) ** 3);
}

/** Nearest-rank percentile of sorted values and its order-statistic interval at effective size kEff. */
function percentile(sorted: number[], p: number, kEff: number, z: number): [number, SampledInterval] {
  const K = sorted.length;
  const at = (rank: number) => sorted[Math.min(K, Math.max(1, rank)) - 1]!;
  const est = at(Math.ceil(p * K));
  const sd = Math.sqrt((p * (1 - p)) / kEff);
  const loRank = Math.floor(K * (p - z * sd));
  const hiRank = Math.ceil(K * (p + z * sd)) + 1;
  // below the first drawn value: bounded by the smallest possible (1 slot, the smallest drawn bytes)
  const low = loRank < 1 ? Math.min(sorted[0]!, 1) : at(loRank);
  return [est, [low, hiRank > K ? null : at(hiRank)]];
}

function perContract(values: number[], kEff: number, z: number): SampledPerContract {
  const K = values.length;
  const sorted = [...values].sort((a, b) => a - b);
  const [p50, i50] = percentile(sorted, 0.5, kEff, z);
  const [p90, i90] = percentile(sorted, 0.9, kEff, z);
  const [p99, i99] = percentile(sorted, 0.99, kEff, z);
  return {
    p50,
    p90,
    p99,
    maxSeen: sorted[K - 1]!,
    intervals: { p50: i50, p90: i90, p99: i99 },
  };
}

/** Whether sample mode can estimate storage per contract for this layout (the group names one contract). */
export function sampleable(layout: StorageLayout): boolean {
  const [id] = layout.id;
  return layout.id.length === 1 && id![0] === layout.group[0] && id![1] === layout.group[1];
}

/** One draw: the contract found (id hex), its counts, and the distance from the point to it (fraction of the space). */
export interface ContractDraw {
  id: string;
  slots: number;
  bytes: number;
  capped: boolean;
  distance: number;
}

/** K draws over one column family's storage, [] when it holds no slot. */
export function drawContracts(where: Where, layout: StorageLayout, o: StorageSampleOptions): ContractDraw[] {
  const seeker = new ContractSeeker(where, layout);
  try {
    return drawWith(seeker, o);
  } finally {
    seeker.close();
  }
}

/** drawContracts with its seeker. */
function drawWith(seeker: ContractSeeker, o: StorageSampleOptions): ContractDraw[] {
  const cap = o.slotCap ?? SLOT_COUNT_CAP;
  const points = Array.from(
    { length: o.draws },
    () => (BigInt(Math.floor(o.rand() * 4294967296)) << 32n) | BigInt(Math.floor(o.rand() * 4294967296)),
  );
  const found = seeker.groupsAt(points, cap, (done) => o.onDraw?.(done, o.draws));
  // past the last contract the space wraps to the first: found (and counted) only where a point needs it
  let first: Found | undefined;
  if (found.includes(undefined)) {
    first = seeker.groupsAt([0n], cap)[0];
    if (!first) return []; // no contract at all
  }
  const draws: ContractDraw[] = [];
  for (let i = 0; i < points.length; i++) {
    const u = Number(points[i]!) / TWO64;
    const f = found[i];
    // past the last contract: the distance wraps to the first
    const { group, count } = f ?? first!;
    const d = f ? position(group) - u : 1 - u + position(group);
    draws.push({ id: group.toString("hex"), ...count, distance: Math.max(0, d) });
  }
  o.onDraw?.(o.draws, o.draws);
  return draws;
}

/** The estimates from the draws (contract count, percentiles, largest seen), or undefined for none. */
export function estimateFromDraws(
  draws: readonly ContractDraw[],
  z: number,
): Omit<SampledStorageView, "location" | "instance" | "cf" | "prefixHex" | "idKind" | "slotCap"> | undefined {
  const K = draws.length;
  if (K === 0) return undefined;
  const distinct = new Map(draws.map((d) => [d.id, d]));
  const distance = draws.reduce((s, d) => s + d.distance, 0);
  // (N+1)·Σd ~ Gamma(K, 1): E[1/Σd] = (N+1)/(K-1); never fewer than the contracts drawn
  const n = distinct.size;
  const contracts = Math.max(n, K > 1 ? (K - 1) / distance - 1 : n);
  const contractsInterval: Interval = [
    Math.max(n, gammaQuantile(K, -z) / distance - 1),
    Math.max(n, gammaQuantile(K, z) / distance - 1),
  ];
  const kEff = 1 / (1 / K + 1 / contracts);
  const largestSeen = [...distinct.values()]
    .map((d) => ({ id: d.id, slots: d.slots, bytes: d.bytes }))
    .sort((a, b) => b.slots - a.slots || (a.id < b.id ? -1 : 1))
    .slice(0, LARGEST_SEEN);
  return {
    sampled: true,
    draws: K,
    contractsDrawn: n,
    contracts,
    contractsInterval,
    slotsPerContract: perContract(
      draws.map((d) => d.slots),
      kEff,
      z,
    ),
    bytesPerContract: perContract(
      draws.map((d) => d.bytes),
      kEff,
      z,
    ),
    cappedDraws: draws.filter((d) => d.capped).length,
    largestSeen,
  };
}

/** The sampled view, or undefined when the column family holds no slot. */
export function sampleStorage(
  where: Where,
  loc: StorageLocation,
  o: StorageSampleOptions,
): SampledStorageView | undefined {
  const est = estimateFromDraws(drawContracts(where, loc.layout, o), o.z);
  if (!est) return undefined;
  const view: SampledStorageView = {
    location: loc.location,
    instance: where.instance.relPath,
    cf: where.cf.displayName,
    idKind: loc.idKind,
    ...est,
    slotCap: o.slotCap ?? SLOT_COUNT_CAP,
  };
  if (loc.layout.prefixHex) view.prefixHex = loc.layout.prefixHex;
  return view;
}

/** Contracts drawn by default in sample mode. */
export const DEFAULT_CONTRACT_DRAWS = 200;

/**
 * Sample mode's storage per contract for `sizes`: the view (when the layout allows it and the column
 * family is selected) and the note that says how it was estimated, or undefined without a storage layout.
 */
export function sampledStorageOf(
  model: DatadirModel,
  opts: SizesOptions,
): { view?: SampledStorageView; note: string; incomplete?: string } | undefined {
  const loc = locateStorage(model);
  if (!loc) return undefined;
  const where = selectCfs(model, opts).find(
    (s) => s.inst.relPath === loc.instance && s.cf.nameHex === loc.cfNameHex,
  );
  if (!where) return undefined;
  if (!sampleable(loc.layout))
    return {
      note: "storage per contract: full mode only here (contracts share 4-byte key groups, so a seek cannot draw one contract by its hash)",
    };
  const draws = Math.max(1, Math.floor(opts.contractDraws ?? DEFAULT_CONTRACT_DRAWS));
  let view: SampledStorageView | undefined;
  try {
    view = sampleStorage({ instance: where.inst, cf: where.cf }, loc, {
      draws,
      rand: prng(((opts.seed ?? 1) ^ 0x5eed5eed) >>> 0),
      z: zFor(opts.confidence ?? 0.95),
      onDraw: opts.onContractDraw,
    });
  } catch (e) {
    // a seek met a missing or damaged table: the rest of the report stands, this view is left out
    if (!isUserError(e) || e instanceof MissingDependencyError) throw e;
    return {
      note: `storage per contract: not estimated (a seek failed: ${e.oneLine()})`,
      incomplete: `storage per contract: ${e.oneLine()}`,
    };
  }
  return {
    view,
    note: `storage per contract: ${draws} seeks to uniformly random contract-hash positions, each counting the live slots of the first contract at or after it exactly (at most ${SLOT_COUNT_CAP.toLocaleString("en-US")}); contracts from the distances to them, percentiles with order-statistic intervals; no mean or total (heavy-tailed), no top list (a sample cannot tell the largest contracts): largest seen only`,
  };
}
