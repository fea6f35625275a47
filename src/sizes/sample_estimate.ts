/**
 * Sample mode's estimates (sample.ts): what each sampled block counted (BlockRec) and what a column
 * family's sample holds (CfSample), and from them the column family's figures and the Ethereum views
 * with their intervals (intervals.ts; the WAL's census added exactly).
 */
import { valueTypeName } from "../base/internal_key.js";
import { BLOCK_TRAILER_SIZE } from "../format/handle.js";
import { SizeDist, RatioDist } from "./dist.js";
import { BlobValueSizer } from "../format/blob.js";
import { BlobTally } from "./blob_tally.js";
import { BlockSizes, clusterShare, clusterTotal, meanOf, ratioTotal } from "./intervals.js";
import type { CfPlan } from "./plan.js";
import type {
  AccountView,
  CodeView,
  CoTenancyBlock,
  ColumnFamilySizes,
  Interval,
  Share,
  ViewPlace,
} from "./types.js";
import { CODE_SIZE_CLASSES, orderedClassCounts } from "../eth/code.js";

import type { NewerVersionCheck } from "./sample_lookup.js";

export const BOOTSTRAP_REPS = 200;

export interface BlockRec {
  /** value records, tombstones, all entries; value records that are their key's newest version */
  m: number;
  live: number;
  t: number;
  e: number;
  phys: number;
  logical: number;
  acc: number;
  eoa: number;
  del: number;
  contract: number;
  code: number;
  codeDel: number;
  codeContracts: number;
  codeAtMax: number;
  /** Code records by size class (eth/code.ts CODE_SIZE_CLASSES; delegations are "delegation"). */
  codeClasses: Record<string, number>;
}

export const emptyRec = (phys = 0, logical = 0): BlockRec => ({
  m: 0,
  live: 0,
  t: 0,
  e: 0,
  phys,
  logical,
  acc: 0,
  eoa: 0,
  del: 0,
  contract: 0,
  code: 0,
  codeDel: 0,
  codeContracts: 0,
  codeAtMax: 0,
  codeClasses: {},
});

export interface CfSample {
  plan: CfPlan;
  totalBlocks: number;
  recs: BlockRec[];
  keySize: SizeDist;
  valueSize: SizeDist;
  keyBoot: BlockSizes;
  valueBoot: BlockSizes;
  ratio: RatioDist;
  valueTypes: Record<string, number>;
  blob: BlobTally;
  /** Blob-indexed values are sized by reading each one's length prefix where its index points. */
  blobSizer: BlobValueSizer;
  newest: NewerVersionCheck;
  /**
   * The unflushed WAL writes' live keys, counted whole (a census, not sampled): live keys and the
   * accounts and code among them. Their sizes enter the distributions at the blocks' sampling rate.
   */
  walRec: BlockRec;
  codeSize: SizeDist;
  codeBoot: BlockSizes;
  codeClasses: Record<string, number>;
  overMax: number;
  codeHashes: Set<number>;
  coTenancy: CoTenancyBlock[];
  undecodable: number;
  codeNotFound: number;
}

/**
 * Total of a per-block count: with the column family's exact record count (properties) a ratio
 * estimate against the records per block; else block count × mean per block.
 */
export function recordsTotal(s: CfSample, y: number[], z: number): { total: number; interval: Interval } {
  const X = s.plan.valueRecords;
  if (X !== undefined)
    return ratioTotal(
      y,
      s.recs.map((r) => r.m),
      X,
      s.totalBlocks,
      z,
    );
  return clusterTotal(y, s.totalBlocks, z);
}

export function shareOf(y: number[], m: number[], B: number, z: number): Share {
  const count = y.reduce((a, b) => a + b, 0);
  const of = m.reduce((a, b) => a + b, 0);
  const { p, interval } = clusterShare(y, m, B, z);
  return { count, of, share: p, interval };
}

/** Sampled entry counts keyed by type byte, keyed instead by the names full mode gives them (valueTypeName). */
export function namedValueTypes(byType: Readonly<Record<string, number>>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(byType)) {
    const name = valueTypeName(Number(k));
    out[name] = (out[name] ?? 0) + v;
  }
  return out;
}

export function cfResult(s: CfSample, z: number, conf: number, rand: () => number): ColumnFamilySizes {
  const B = s.totalBlocks;
  const n = s.recs.length;
  const exact = n >= B;
  const plan = s.plan;
  // live keys at their newest version: those in the tables (the newest-version share of the sampled value
  // records, against the exact value-record count where the properties give it), plus the WAL's, exact
  const tableLive = recordsTotal(
    s,
    s.recs.map((r) => r.live),
    z,
  );
  const entries = plusWal(tableLive, s.walRec.live);
  const phys = plan.dataBytesExact
    ? { total: plan.dataBytes, interval: [plan.dataBytes, plan.dataBytes] as Interval }
    : clusterTotal(
        s.recs.map((r) => r.phys),
        B,
        z,
      );
  // ratio against the stored payload (block trailers, 5 bytes per block, are known exactly): blocks that
  // did not compress then estimate exactly
  const logical = ratioTotal(
    s.recs.map((r) => r.logical),
    s.recs.map((r) => r.phys - BLOCK_TRAILER_SIZE),
    phys.total - BLOCK_TRAILER_SIZE * B,
    B,
    z,
  );
  const keySize = s.keySize.summary();
  const valueSize = s.valueSize.summary();
  const kb = exact ? undefined : s.keyBoot.bootstrap(BOOTSTRAP_REPS, conf, rand);
  const vb = exact ? undefined : s.valueBoot.bootstrap(BOOTSTRAP_REPS, conf, rand);
  const point = (x: SizeDist) => ({
    mean: [x.count ? x.sum / x.count : 0, x.count ? x.sum / x.count : 0] as Interval,
    p50: [x.percentile(50), x.percentile(50)] as Interval,
    p90: [x.percentile(90), x.percentile(90)] as Interval,
    p99: [x.percentile(99), x.percentile(99)] as Interval,
  });
  keySize.intervals = kb ?? point(s.keySize);
  valueSize.intervals = vb ?? point(s.valueSize);
  const sumPhys = s.recs.reduce((a, r) => a + r.phys, 0);
  const sumLog = s.recs.reduce((a, r) => a + r.logical, 0);
  const valueTypes = namedValueTypes(s.valueTypes);
  return {
    instance: plan.instance.relPath,
    name: plan.cf.name,
    nameHex: plan.cf.nameHex,
    displayName: plan.cf.displayName,
    liveKeys: Math.round(entries.total),
    liveKeysInterval: [Math.floor(entries.interval[0]), Math.ceil(entries.interval[1])],
    obsoleteEntries: null,
    entriesRead: s.recs.reduce((a, r) => a + r.e, 0),
    walEntries: 0,
    tombstoneShare: shareOf(
      s.recs.map((r) => r.t),
      s.recs.map((r) => r.e),
      B,
      z,
    ),
    valueTypes,
    keySize,
    valueSize,
    blobIndexed: s.blob.summary(),
    physicalBytes: Math.round(phys.total),
    logicalBytes: Math.round(logical.total),
    physicalBytesInterval: [Math.floor(phys.interval[0]), Math.ceil(phys.interval[1])],
    logicalBytesInterval: [Math.floor(logical.interval[0]), Math.ceil(logical.interval[1])],
    compressionRatio: sumLog > 0 ? sumPhys / sumLog : 0,
    dataBlocks: n,
    averageBlockBytes: n ? sumPhys / n : 0,
    averageBlockLogicalBytes: n ? sumLog / n : 0,
    blockRatio: s.ratio.summary(),
    sampledBlocks: n,
    totalBlocks: B,
    sstFiles: plan.files,
  };
}

/** An estimated total with its interval. */
export interface Estimate {
  total: number;
  interval: Interval;
}

/** A table estimate plus what the WAL holds, counted whole (the interval shifts by it). */
export function plusWal(t: Estimate, wal: number): Estimate {
  return { total: t.total + wal, interval: [t.interval[0] + wal, t.interval[1] + wal] };
}

const rounded = (e: Estimate): Interval => [Math.floor(e.interval[0]), Math.ceil(e.interval[1])];

/**
 * A share over the tables (sampled: `t`, of an estimated `tableOf` records) and the WAL (read whole:
 * `walCount` of `walOf`): the two strata weighted by their sizes; the interval maps the tables' bounds
 * the same way. `count` and `of` add the WAL's records to the sampled ones.
 */
export function shareWithWal(t: Share, tableOf: number, walCount: number, walOf: number): Share {
  if (walOf === 0) return t;
  const mix = (p: number) => (p * tableOf + walCount) / (tableOf + walOf);
  const out: Share = { count: t.count + walCount, of: t.of + walOf, share: mix(t.of > 0 ? t.share : 0) };
  if (t.interval) out.interval = t.of > 0 ? [mix(t.interval[0]), mix(t.interval[1])] : [mix(0), mix(1)];
  if (tableOf === 0) out.interval = [out.share, out.share];
  return out;
}

/** The code view in sample mode, and its estimated contract bytecodes (for the accounts' reuse). */
export function codeViewOf(
  s: CfSample,
  location: string,
  z: number,
  conf: number,
  rand: () => number,
): { view: Omit<CodeView, keyof ViewPlace>; contracts: Estimate } {
  const B = s.totalBlocks;
  const w = s.walRec;
  const y = (f: (r: BlockRec) => number) => s.recs.map(f);
  const tableCode = recordsTotal(
    s,
    y((r) => r.code),
    z,
  );
  const tableContracts = recordsTotal(
    s,
    y((r) => r.codeContracts),
    z,
  );
  const liveKeys = plusWal(tableCode, w.code);
  const contracts = plusWal(tableContracts, w.codeContracts);
  const codeSize = s.codeSize.summary();
  const cb = s.recs.length < B ? s.codeBoot.bootstrap(BOOTSTRAP_REPS, conf, rand) : undefined;
  if (cb) codeSize.intervals = cb;
  // blocks are drawn independently of each other: a plain Wilson interval on blocks
  const blockShare = shareOf(
    y((r) => (r.codeAtMax > 0 ? 1 : 0)),
    y(() => 1),
    B,
    z,
  );
  const ct = s.coTenancy;
  // the co-tenant blocks found are independent draws from the blocks that hold a maximum-size contract
  // (all of them when every block was drawn)
  const stat = (xs: number[]) => {
    const { mean, interval } =
      s.recs.length >= B ? { mean: meanOf(xs, z).mean, interval: undefined } : meanOf(xs, z);
    return {
      mean,
      ...(interval ? { meanInterval: interval } : {}),
      min: xs.length ? Math.min(...xs) : 0,
      max: xs.length ? Math.max(...xs) : 0,
      total: xs.reduce((a, b) => a + b, 0),
    };
  };
  // each class's share of the code records (every class: one the sample did not meet has an interval
  // too): the tables' blocks as clusters, the WAL's records whole
  const classShares: Record<string, Share> = {};
  for (const { name: cls } of CODE_SIZE_CLASSES)
    classShares[cls] = shareWithWal(
      shareOf(
        y((r) => r.codeClasses[cls] ?? 0),
        y((r) => r.code),
        B,
        z,
      ),
      tableCode.total,
      w.codeClasses[cls] ?? 0,
      w.code,
    );
  const view: Omit<CodeView, keyof ViewPlace> = {
    location,
    liveKeys: Math.round(liveKeys.total),
    liveKeysInterval: rounded(liveKeys),
    delegations: shareWithWal(
      shareOf(
        y((r) => r.codeDel),
        y((r) => r.code),
        B,
        z,
      ),
      tableCode.total,
      w.codeDel,
      w.code,
    ),
    distinctContractBytecodes: Math.round(contracts.total),
    distinctContractBytecodesInterval: rounded(contracts),
    atMax: shareWithWal(
      shareOf(
        y((r) => r.codeAtMax),
        y((r) => r.codeContracts),
        B,
        z,
      ),
      tableContracts.total,
      w.codeAtMax,
      w.codeContracts,
    ),
    overMax: s.overMax,
    codeSize,
    classes: orderedClassCounts(s.codeClasses),
    classShares,
    keyedBy: "code-hash",
    coTenancy: {
      blocks: ct.length,
      blockShare,
      estimatedBlocks: Math.round(blockShare.share * B),
      estimatedBlocksInterval: [
        Math.floor(blockShare.interval![0] * B),
        Math.ceil(blockShare.interval![1] * B),
      ],
      maxSizeContracts: ct.reduce((a, b) => a + b.maxSizeContracts, 0),
      otherRecords: stat(ct.map((b) => b.otherRecords)),
      otherBytes: stat(ct.map((b) => b.otherBytes)),
      perBlock: [...ct].sort((a, b) => b.otherBytes - a.otherBytes).slice(0, 50),
    },
  };
  return { view, contracts };
}

/** The account view in sample mode: accounts at their newest version in the tables (sampled) and the WAL (whole). */
export function accountViewOf(
  s: CfSample,
  location: string,
  contracts: Estimate | undefined,
  z: number,
): Omit<AccountView, keyof ViewPlace> {
  const B = s.totalBlocks;
  const w = s.walRec;
  const y = (f: (r: BlockRec) => number) => s.recs.map(f);
  const acc = y((r) => r.acc);
  const tableAccounts = recordsTotal(s, acc, z);
  const total = plusWal(tableAccounts, w.acc);
  const kind = (f: (r: BlockRec) => number) =>
    shareWithWal(shareOf(y(f), acc, B, z), tableAccounts.total, f(w), w.acc);
  const contract = kind((r) => r.contract);
  const view: Omit<AccountView, keyof ViewPlace> = {
    location,
    total: Math.round(total.total),
    totalInterval: rounded(total),
    eoa: kind((r) => r.eoa),
    delegatedEoa: kind((r) => r.del),
    contract,
    undecodable: s.undecodable,
    codeNotFound: s.codeNotFound,
    distinctCodeHashes: s.codeHashes.size,
    distinctCodeHashesExact: false,
    reuseFactor: 0,
    contractsPerStoredBytecode: 0,
  };
  if (contracts && contracts.total > 0) {
    const c = contracts;
    view.reuseFactor = (total.total * contract.share) / c.total;
    const lo = (total.interval[0] * contract.interval![0]) / Math.max(1, c.interval[1]);
    const hi =
      c.interval[0] > 0
        ? (total.interval[1] * contract.interval![1]) / c.interval[0]
        : Number.POSITIVE_INFINITY;
    view.reuseFactorInterval = [lo, hi];
    view.contractsPerStoredBytecode = view.reuseFactor;
    view.contractsPerStoredBytecodeInterval = [lo, hi];
  }
  return view;
}
