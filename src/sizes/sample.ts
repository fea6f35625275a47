/**
 * Sample mode: N data blocks per column family drawn uniformly without replacement through the index
 * blocks (every block of every live SST equally likely), read and measured whole.
 *
 * What it measures: keys at their newest version, as full mode does: a sampled record counts when no
 * unflushed WAL write touches its key and no table a Get consults before the record's own holds a newer
 * version (point lookups, NewerVersionCheck). Totals are extrapolated from the block count B (exact,
 * from the index) or, better, from the exact value-record count of the table properties (ratio
 * estimator). The WAL is read whole: its live keys, and the accounts and code among them, are added
 * exactly (a census stratum beside the sampled tables; shares weight the two by their sizes), and each
 * of its live records enters the size distributions with the blocks' sampling probability, so every
 * live key is equally likely to be measured. Intervals (intervals.ts): cluster-adjusted Wilson for
 * shares, Student-t with finite-population correction for totals, block bootstrap for means and
 * percentiles.
 *
 * Ethereum views: an account's code hash is resolved by a point lookup in the code column family
 * (the newest version across its files, like a read would), so delegated EOAs are told from contracts.
 */
import { openTable, type SstTable } from "../format/table.js";
import { isTombstone, ValueType } from "../base/internal_key.js";
import type { BlockHandle } from "../format/handle.js";
import { BLOCK_TRAILER_SIZE } from "../format/handle.js";
import type { DatadirModel, SstFileModel } from "../datadir/model.js";
import { toHex } from "../util/bytes.js";
import { TableCache } from "../lsm/table_cache.js";
import { Version } from "../lsm/version.js";
import { newestVersion, rangeDeleted, shadowsOf, type Shadows } from "../lsm/newest.js";
import { loadMemLayer } from "../datadir/memtable.js";
import { EMPTY_CODE_HASH } from "../eth/keccak.js";
import { DELEGATION_CODE_SIZE, MAX_CODE_SIZE, codeSizeClass, isDelegationCode } from "../eth/code.js";
import { SizeDist, RatioDist } from "./dist.js";
import { BlobValueSizer, decodeBlobIndex, type BlobIndex } from "../format/blob.js";
import { BlobTally } from "./blob_tally.js";
import { accountCodeHashOffset, hash53 } from "./eth_acc.js";
import {
  BlockSizes,
  clusterShare,
  clusterTotal,
  prng,
  ratioTotal,
  sampleIndices,
  zFor,
} from "./intervals.js";
import {
  blobFilesOf,
  cfKey,
  locateEth,
  CfPlanCache,
  resolveLocation,
  selectCfs,
  type CfPlan,
} from "./plan.js";
import type { RoleSpec } from "./scan.js";
import type {
  AccountView,
  CodeView,
  CoTenancyBlock,
  ColumnFamilySizes,
  EthSizes,
  Interval,
  Share,
  SizesOptions,
  SizesReport,
  ViewPlace,
} from "./types.js";
import { orderedClassCounts } from "../eth/code.js";

const BOOTSTRAP_REPS = 200;

interface Matcher {
  prefix: Buffer;
  keyLength?: number;
}

function matcher(r: Omit<RoleSpec, "role"> | undefined): Matcher | undefined {
  if (!r) return undefined;
  return { prefix: r.prefixHex ? Buffer.from(r.prefixHex, "hex") : Buffer.alloc(0), keyLength: r.keyLength };
}

function matches(m: Matcher, key: Buffer, len: number): boolean {
  if (m.keyLength !== undefined && len !== m.keyLength) return false;
  if (len < m.prefix.length) return false;
  for (let i = 0; i < m.prefix.length; i++) if (key[i] !== m.prefix[i]) return false;
  return true;
}

/** Newest version of a code key across the code column family's files, by point lookups. */
class CodeLookup {
  private readonly version: Version<SstFileModel>;
  private readonly tables = new TableCache({ verifyChecksums: true }, 64);
  private cache = new Map<number, "delegation" | "contract" | "missing">();
  lookups = 0;

  constructor(
    plan: CfPlan,
    private readonly prefix: Buffer,
    /** The code column family's unflushed WAL writes (newer than any table, consulted first) and range deletions. */
    private readonly shadows: Shadows,
  ) {
    this.version = Version.of(plan.cf.levels);
  }

  classify(codeHash: Uint8Array): "delegation" | "contract" | "missing" {
    const h = hash53(codeHash, 0);
    const hit = this.cache.get(h);
    if (hit) return hit;
    this.lookups++;
    const key = Buffer.concat([this.prefix, codeHash]);
    const best = newestVersion(key, this.shadows, this.version, this.tables);
    let out: "delegation" | "contract" | "missing";
    if (!best || isTombstone(best.type) || best.rangeDeleted) out = "missing";
    else if (best.type === ValueType.BlobIndex) {
      // sized from the blob index: a blob of 23 bytes cannot be told apart without reading it
      out = "contract";
    } else out = best.value && isDelegationCode(best.value) ? "delegation" : "contract";
    this.cache.set(h, out);
    return out;
  }

  close(): void {
    this.tables.close();
  }
}

/**
 * Whether a sampled record is its key's newest version, as a Get would see it: no unflushed WAL write
 * for the key, and no table a Get consults before the record's own holds a newer version (the one
 * lookup of src/lsm/version.ts, over the files above the record's: Version.get with `above`), and no
 * range deletion with a larger sequence number covers it. Sample mode counts keys at their newest
 * version only, as full mode does.
 */
class NewerVersionCheck {
  private readonly version: Version<SstFileModel>;
  private readonly byPath = new Map<string, SstFileModel>();
  private readonly tables = new TableCache({ verifyChecksums: true }, 64);

  constructor(
    plan: CfPlan,
    /** Unflushed WAL writes (their table versions are all shadowed) and range deletions. */
    private readonly shadows: Shadows,
  ) {
    this.version = Version.of(plan.cf.levels);
    for (const l of plan.cf.levels) for (const f of l.files) this.byPath.set(f.path, f);
  }

  isNewest(path: string, key: Buffer, seqno: number): boolean {
    const hex = toHex(key);
    if (this.shadows.newest.has(hex) || rangeDeleted(this.shadows, hex, seqno)) return false;
    const at = this.byPath.get(path);
    if (!at) return true;
    const newer = this.version.get(key, this.tables, at)?.result;
    return !newer || (newer.seqno ?? 0) <= seqno;
  }

  close(): void {
    this.tables.close();
  }
}

/** Replay a column family's live WALs (read whole, not sampled) beside its tables' range deletions. */
function shadowsOfPlan(plan: CfPlan): Shadows {
  if (plan.walPaths.length === 0) return { newest: new Map(), rangeDels: [...plan.rangeDels] };
  const mem = loadMemLayer(
    plan.walPaths.map((path) => ({ path })),
    plan.cf.id,
  );
  return shadowsOf(mem, plan.rangeDels);
}

interface BlockRec {
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
}

const emptyRec = (phys = 0, logical = 0): BlockRec => ({
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
});

interface CfSample {
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

function blocksIn(t: SstTable): number {
  const nb = t.props.numDataBlocks;
  if (nb !== undefined) return nb;
  let n = 0;
  for (const _ of t.iterateIndex()) n++;
  return n;
}

type Roles = { code?: Matcher; accounts?: Matcher };

function sampleCf(
  plan: CfPlan,
  n: number,
  rand: () => number,
  roles: Roles,
  lookup: CodeLookup | undefined,
  shadows: Shadows,
  progress: (bytes: number) => void,
): CfSample {
  const files = plan.runs.flat().map((f) => f.path);
  const counts = files.map((p) => {
    const t = openTable(p, { verifyChecksums: true });
    try {
      return blocksIn(t);
    } finally {
      t.close();
    }
  });
  const B = counts.reduce((s, c) => s + c, 0);
  const chosen = sampleIndices(B, n, rand);
  const out: CfSample = {
    plan,
    totalBlocks: B,
    recs: [],
    keySize: new SizeDist(),
    valueSize: new SizeDist(),
    keyBoot: new BlockSizes(),
    valueBoot: new BlockSizes(),
    ratio: new RatioDist(),
    valueTypes: {},
    blob: new BlobTally(),
    blobSizer: new BlobValueSizer(blobFilesOf(plan.cf), "record"),
    newest: new NewerVersionCheck(plan, shadows),
    walRec: emptyRec(),
    codeSize: new SizeDist(),
    codeBoot: new BlockSizes(),
    codeClasses: {},
    overMax: 0,
    codeHashes: new Set(),
    coTenancy: [],
    undecodable: 0,
    codeNotFound: 0,
  };
  let ci = 0;
  let base = 0;
  try {
    for (let fi = 0; fi < files.length && ci < chosen.length; fi++) {
      const nb = counts[fi]!;
      if (chosen[ci]! >= base + nb) {
        base += nb;
        continue;
      }
      const t = openTable(files[fi]!, { verifyChecksums: true });
      try {
        let i = base;
        for (const ie of t.iterateIndex()) {
          if (ci >= chosen.length) break;
          if (i === chosen[ci]) {
            measureBlock(out, t, ie.handle, roles, lookup);
            progress(ie.handle.size + BLOCK_TRAILER_SIZE);
            ci++;
          }
          i++;
        }
      } finally {
        t.close();
      }
      base += nb;
    }
    // each table record was drawn with probability (blocks drawn / blocks): WAL records enter the size
    // distributions at that rate, so every live key is equally likely to be measured
    measureWal(out, shadows, B > 0 ? chosen.length / B : 1, rand, roles, lookup);
  } finally {
    out.blobSizer.close();
    out.newest.close();
  }
  return out;
}

/** One live record (its key's newest version) as a Get would see it. */
interface LiveRecord {
  /** The user key is key[0, keyLength). */
  key: Buffer;
  keyLength: number;
  type: number;
  /** The value is data[valueOffset, valueOffset + valueLength). */
  data: Buffer;
  valueOffset: number;
  valueLength: number;
}

/**
 * Count one live record into `rec` (live keys, accounts and code by kind) and, when `measured`, its
 * sizes into the distributions. Returns the key + value bytes of a maximum-size bytecode, else 0.
 */
function measureRecord(
  s: CfSample,
  rec: BlockRec,
  r: LiveRecord,
  roles: Roles,
  lookup: CodeLookup | undefined,
  measured: boolean,
): number {
  rec.live++;
  const kl = r.keyLength;
  if (measured) {
    let vSize: number | undefined = r.valueLength;
    if (r.type === ValueType.BlobIndex) {
      let bi: BlobIndex | undefined;
      try {
        bi = decodeBlobIndex(r.data, r.valueOffset, r.valueOffset + r.valueLength);
      } catch {
        // an undecodable blob index is sized as stored
      }
      if (bi) {
        try {
          vSize = s.blobSizer.valueLength(bi);
        } catch {
          vSize = undefined; // counted in blob.unread
        }
        s.blob.add(bi, vSize);
      }
    }
    s.keySize.add(kl);
    s.keyBoot.add(kl);
    if (vSize !== undefined) {
      s.valueSize.add(vSize);
      s.valueBoot.add(vSize);
    }
  }
  let maxBytes = 0;
  if (roles.code && r.type !== ValueType.BlobIndex && matches(roles.code, r.key, kl)) {
    rec.code++;
    const v = r.data;
    const o = r.valueOffset;
    const len = r.valueLength;
    if (len === DELEGATION_CODE_SIZE && v[o] === 0xef && v[o + 1] === 0x01 && v[o + 2] === 0x00) {
      rec.codeDel++;
      if (measured) s.codeClasses["delegation"] = (s.codeClasses["delegation"] ?? 0) + 1;
    } else {
      rec.codeContracts++;
      if (len === MAX_CODE_SIZE) {
        rec.codeAtMax++;
        maxBytes = kl + len;
      }
      if (measured) {
        s.codeSize.add(len);
        s.codeBoot.add(len);
        const cls = codeSizeClass(len);
        s.codeClasses[cls] = (s.codeClasses[cls] ?? 0) + 1;
        if (len > MAX_CODE_SIZE) s.overMax++;
      }
    }
  }
  if (roles.accounts && matches(roles.accounts, r.key, kl)) {
    const off = accountCodeHashOffset(r.data, r.valueOffset, r.valueOffset + r.valueLength);
    if (off === -2) {
      s.undecodable++;
      return maxBytes;
    }
    rec.acc++;
    if (off === -1 || EMPTY_CODE_HASH.equals(r.data.subarray(off, off + 32))) rec.eoa++;
    else {
      const kind = lookup ? lookup.classify(r.data.subarray(off, off + 32)) : "contract";
      if (kind === "delegation") rec.del++;
      else {
        if (kind === "missing") s.codeNotFound++;
        rec.contract++;
        if (measured) s.codeHashes.add(hash53(r.data, off));
      }
    }
  }
  return maxBytes;
}

function measureBlock(
  s: CfSample,
  t: SstTable,
  h: BlockHandle,
  roles: Roles,
  lookup: CodeLookup | undefined,
): void {
  const db = t.readDataBlock(h);
  const rec = emptyRec(h.size + BLOCK_TRAILER_SIZE, db.logicalSize);
  s.keyBoot.startBlock();
  s.valueBoot.startBlock();
  s.codeBoot.startBlock();
  if (rec.logical > 0) s.ratio.add(rec.phys / rec.logical);
  const c = db.cursor();
  let records = 0;
  let bytes = 0;
  let maxN = 0;
  let maxBytes = 0;
  let prevKey: Buffer | undefined;
  while (c.next()) {
    rec.e++;
    const type = c.type;
    const name = type.toString();
    s.valueTypes[name] = (s.valueTypes[name] ?? 0) + 1;
    const kl = c.userKeyLength;
    records++;
    bytes += kl + c.valueLength;
    // a table holds a key's versions newest first: an entry after one of the same key is older
    const key = c.key.subarray(0, kl);
    const older = prevKey !== undefined && prevKey.equals(key);
    prevKey = Buffer.from(key);
    if (isTombstone(type)) {
      rec.t++;
      continue;
    }
    rec.m++;
    if (older || !s.newest.isNewest(t.path, prevKey, c.seqno)) continue;
    const live: LiveRecord = {
      key: c.key,
      keyLength: kl,
      type,
      data: c.data,
      valueOffset: c.valueOffset,
      valueLength: c.valueLength,
    };
    const atMax = measureRecord(s, rec, live, roles, lookup, true);
    if (atMax > 0) {
      maxN++;
      maxBytes += atMax;
    }
  }
  if (maxN > 0)
    s.coTenancy.push({
      file: t.path,
      blockOffset: h.offset,
      blockBytes: h.size,
      records,
      maxSizeContracts: maxN,
      otherRecords: records - maxN,
      otherBytes: bytes - maxBytes,
    });
  s.recs.push(rec);
}

/**
 * The WAL's live keys: every one counted into `walRec` (the WAL is read whole), each measured into the
 * size distributions with probability `rate` (each as its own unit of the bootstrap).
 */
function measureWal(
  s: CfSample,
  shadows: Shadows,
  rate: number,
  rand: () => number,
  roles: Roles,
  lookup: CodeLookup | undefined,
): void {
  for (const [hex, e] of shadows.newest) {
    if (isTombstone(e.type) || rangeDeleted(shadows, hex, e.seqno)) continue;
    const measured = rate >= 1 || rand() < rate;
    if (measured) {
      s.keyBoot.startBlock();
      s.valueBoot.startBlock();
      s.codeBoot.startBlock();
    }
    const live: LiveRecord = {
      key: e.key,
      keyLength: e.key.length,
      type: e.type,
      data: e.value,
      valueOffset: 0,
      valueLength: e.value.length,
    };
    measureRecord(s, s.walRec, live, roles, lookup, measured);
  }
}

/**
 * Total of a per-block count: with the column family's exact record count (properties) a ratio
 * estimate against the records per block; else block count × mean per block.
 */
function recordsTotal(s: CfSample, y: number[], z: number): { total: number; interval: Interval } {
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

function shareOf(y: number[], m: number[], B: number, z: number): Share {
  const count = y.reduce((a, b) => a + b, 0);
  const of = m.reduce((a, b) => a + b, 0);
  const { p, interval } = clusterShare(y, m, B, z);
  return { count, of, share: p, interval };
}

function cfResult(s: CfSample, z: number, conf: number, rand: () => number): ColumnFamilySizes {
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
  const valueTypes: Record<string, number> = {};
  for (const [k, v] of Object.entries(s.valueTypes)) {
    const t = Number(k);
    const name =
      t === ValueType.Value
        ? "value"
        : t === ValueType.Deletion
          ? "deletion"
          : t === ValueType.BlobIndex
            ? "blob-index"
            : t === ValueType.Merge
              ? "merge"
              : t === ValueType.SingleDeletion
                ? "single-deletion"
                : `type-0x${t.toString(16)}`;
    valueTypes[name] = (valueTypes[name] ?? 0) + v;
  }
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
interface Estimate {
  total: number;
  interval: Interval;
}

/** A table estimate plus what the WAL holds, counted whole (the interval shifts by it). */
function plusWal(t: Estimate, wal: number): Estimate {
  return { total: t.total + wal, interval: [t.interval[0] + wal, t.interval[1] + wal] };
}

const rounded = (e: Estimate): Interval => [Math.floor(e.interval[0]), Math.ceil(e.interval[1])];

/**
 * A share over the tables (sampled: `t`, of an estimated `tableOf` records) and the WAL (read whole:
 * `walCount` of `walOf`): the two strata weighted by their sizes; the interval maps the tables' bounds
 * the same way. `count` and `of` add the WAL's records to the sampled ones.
 */
function shareWithWal(t: Share, tableOf: number, walCount: number, walOf: number): Share {
  if (walOf === 0) return t;
  const mix = (p: number) => (p * tableOf + walCount) / (tableOf + walOf);
  const out: Share = { count: t.count + walCount, of: t.of + walOf, share: mix(t.of > 0 ? t.share : 0) };
  if (t.interval) out.interval = t.of > 0 ? [mix(t.interval[0]), mix(t.interval[1])] : [mix(0), mix(1)];
  if (tableOf === 0) out.interval = [out.share, out.share];
  return out;
}

/** The code view in sample mode, and its estimated contract bytecodes (for the accounts' reuse). */
function codeViewOf(
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
  const stat = (xs: number[]) => ({
    mean: xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0,
    min: xs.length ? Math.min(...xs) : 0,
    max: xs.length ? Math.max(...xs) : 0,
    total: xs.reduce((a, b) => a + b, 0),
  });
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
function accountViewOf(
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
  }
  return view;
}

export async function computeSample(
  model: DatadirModel,
  opts: SizesOptions,
  t0: number,
): Promise<SizesReport> {
  const N = Math.max(1, Math.floor(opts.sampleBlocks ?? 1000));
  const seed = opts.seed ?? 1;
  const conf = opts.confidence ?? 0.95;
  const z = zFor(conf);
  const rand = prng(seed);
  const selected = selectCfs(model, opts);
  const eth = locateEth(model, opts.eth);
  const accLoc = resolveLocation(model, eth.accounts);
  const codeLoc = resolveLocation(model, eth.code);
  // the WAL is read whole: its writes shadow table versions, and its live keys count exactly
  const planCache = new CfPlanCache(true);
  const plans = planCache.plans;
  const planFor = (inst: CfPlan["instance"], cf: CfPlan["cf"]) => planCache.get(inst, cf);
  for (const s of selected) planFor(s.inst, s.cf);
  const codeKey = codeLoc ? cfKey(codeLoc.inst, codeLoc.cf) : undefined;
  const accKey = accLoc ? cfKey(accLoc.inst, accLoc.cf) : undefined;
  if (codeLoc) planFor(codeLoc.inst, codeLoc.cf);
  if (accLoc) planFor(accLoc.inst, accLoc.cf);
  const work = [...plans.values()];
  const shadows = new Map(work.map((p) => [p.key, shadowsOfPlan(p)]));
  const lookup =
    codeLoc && accLoc
      ? new CodeLookup(
          planFor(codeLoc.inst, codeLoc.cf),
          codeLoc.role.prefixHex ? Buffer.from(codeLoc.role.prefixHex, "hex") : Buffer.alloc(0),
          shadows.get(codeKey!)!,
        )
      : undefined;
  let total = 0;
  for (const p of work) total += p.dataBlocks > 0 ? Math.min(1, N / p.dataBlocks) * p.dataBytes : p.dataBytes;
  let done = 0;
  const progress = (b: number) => {
    done += b;
    opts.onProgress?.(done, Math.max(total, done));
  };
  const samples = new Map<string, CfSample>();
  try {
    for (const p of work) {
      const roles: { code?: Matcher; accounts?: Matcher } = {};
      if (p.key === codeKey) roles.code = matcher(codeLoc!.role);
      if (p.key === accKey) roles.accounts = matcher(accLoc!.role);
      samples.set(p.key, sampleCf(p, N, rand, roles, lookup, shadows.get(p.key)!, progress));
    }
  } finally {
    lookup?.close();
  }

  const columnFamilies = selected.map((s) => cfResult(samples.get(cfKey(s.inst, s.cf))!, z, conf, rand));

  let ethOut: EthSizes | undefined;
  if (opts.eth !== "off" && (accLoc || codeLoc)) {
    ethOut = { client: eth.client, notes: [...eth.notes] };
    let contracts: Estimate | undefined;
    if (codeLoc) {
      const code = codeViewOf(samples.get(codeKey!)!, codeLoc.location, z, conf, rand);
      contracts = code.contracts;
      ethOut.code = { ...code.view, ...codeLoc.where };
      ethOut.notes.push(
        "sample mode: code figures are over the sampled code records at their newest version, plus the unflushed WAL's code writes (counted whole)",
      );
    }
    if (accLoc && selected.some((x) => cfKey(x.inst, x.cf) === accKey)) {
      const view = accountViewOf(samples.get(accKey!)!, accLoc.location, contracts, z);
      ethOut.accounts = { ...view, ...accLoc.where };
      if (lookup)
        ethOut.notes.push(`sample mode: ${lookup.lookups} code lookups resolved account code hashes`);
    }
  } else if (eth.notes.length) ethOut = undefined;

  return {
    root: model.root,
    client: model.client.kind,
    mode: "sample",
    sampleBlocks: N,
    seed,
    confidence: conf,
    workers: 1,
    columnFamilies,
    eth: ethOut,
    notes: [
      `sample mode: ${N} data blocks per column family drawn uniformly without replacement through the index blocks; a record counts when it is its key's newest version (no unflushed WAL write for the key, no newer version in a table a Get consults first: point lookups) — as full mode counts; tombstoneShare is over every stored record; unflushed WAL writes are read whole: their live keys, accounts and code are counted exactly, and their sizes enter the distributions at the blocks' sampling rate (blocks drawn / blocks)`,
      "liveKeys (keys at their newest version, a value): the newest-version share of the sampled value records × the exact value-record count from the table properties (ratio-estimator interval), else block count × mean per sampled block (Student-t interval with finite-population correction), plus the WAL's live keys; physicalBytes exactly from the table properties when every table has them; logicalBytes is physicalBytes × the sampled uncompressed/stored ratio (ratio-estimator interval); shares: Wilson interval on the effective sample size from the between-block variance; means and percentiles: block bootstrap (200 resamples, percentile method)",
      "dataBlocks, averageBlockBytes, compressionRatio and blockRatio are over the sampled blocks",
    ],
    elapsedMs: Date.now() - t0,
  };
}
