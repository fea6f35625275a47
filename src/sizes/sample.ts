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
 *
 * Here: drawing the blocks and measuring their records; the point lookups are sample_lookup.ts, the
 * estimates from what was measured sample_estimate.ts.
 */
import type { DataBlock, SstTable } from "../format/table.js";
import { writtenValueLength } from "../format/data_block.js";
import { HandleTally } from "../format/block.js";
import { TailEstimate } from "../util/tail_estimate.js";
import { TablesInTurn } from "../format/tables_in_turn.js";
import { isTombstone, ValueType } from "../base/internal_key.js";
import type { BlockHandle } from "../format/handle.js";
import { BLOCK_TRAILER_SIZE } from "../format/handle.js";
import type { DatadirModel } from "../datadir/model.js";
import type { KeptReads } from "../lsm/kept_tables.js";
import { TableCache } from "../lsm/table_cache.js";
import { newestWrites, rangeDeleted, type Shadows } from "../lsm/newest.js";
import { toHex } from "../util/bytes.js";
import { EMPTY_CODE_HASH } from "../eth/keccak.js";
import { DELEGATION_CODE_SIZE, MAX_CODE_SIZE, codeSizeClass } from "../eth/code.js";
import { SizeDist, RatioDist } from "./dist.js";
import { BlobValueSizer } from "../format/blob.js";
import { BlobTally, blobIndexedValueSize } from "./blob_tally.js";
import { accountCodeHashOffset, hash53 } from "./eth_acc.js";
import { BlockSizes, prng, sampleIndices, zFor } from "./intervals.js";
import {
  blobFilesOf,
  cfKey,
  locateEth,
  CfPlanCache,
  planWithin,
  resolveLocation,
  selectCfs,
  type CfPlan,
} from "./plan.js";
import { refusedBlobFilesOf } from "../datadir/blob_file.js";
import type { RoleSpec } from "./scan.js";
import type { EthSizes, SizesOptions, SizesReport } from "./types.js";
import { CodeLookup, NewerVersionCheck, shadowsOfPlan } from "./sample_lookup.js";
import { PlanWalLayers } from "./wal_layers.js";
import {
  accountViewOf,
  cfResult,
  codeViewOf,
  emptyRec,
  type BlockRec,
  type CfSample,
  type Estimate,
} from "./sample_estimate.js";

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

/** How much of each table's end blockCounts reads, learned from the tables read before. */
const countTail = new TailEstimate();

function blocksIn(t: SstTable): number {
  const nb = t.props.numDataBlocks;
  if (nb !== undefined) return nb;
  const tally = new HandleTally();
  t.index.tallyHandles(tally);
  return tally.blocks;
}

/**
 * The data blocks of each table, the frame the sampled blocks are drawn from: from the properties
 * planning read (`known`, CfPlan.tableFigures), else the table opened (the tables one after another,
 * each one's end in one read, read ahead by the helper where there are many: util/tail_read_ahead.ts)
 * and its index counted where its properties do not count them.
 */
export function blockCounts(
  files: readonly string[],
  known?: ReadonlyMap<string, { numDataBlocks?: number }>,
): number[] {
  const counted = (p: string) => known?.get(p)?.numDataBlocks;
  const inTurn = new TablesInTurn(
    files.filter((p) => counted(p) === undefined),
    countTail,
  );
  return files.map((p) => counted(p) ?? inTurn.read(p, { verifyChecksums: true }, blocksIn));
}

type Roles = { code?: Matcher; accounts?: Matcher };

/** What one column family's blocks are drawn with and measured against (sampleCf), beside its plan. */
interface CfDraw {
  rand: () => number;
  /** The Ethereum roles of its records (code, accounts), if any. */
  roles: Roles;
  /** What an account record's code hash names, where there are accounts and code. */
  lookup: CodeLookup | undefined;
  /** Its unflushed WAL writes and range deletions. */
  shadows: Shadows;
  progress: (bytes: number) => void;
  /** What the model's read kept of the tables (SizesOptions.kept). */
  kept: KeptReads | undefined;
}

/** Draw `n` of the column family's data blocks (uniformly over its tables' blocks) and measure them. */
function sampleCf(plan: CfPlan, n: number, draw: CfDraw): CfSample {
  const { rand, roles, lookup, shadows, progress, kept } = draw;
  const files = plan.runs.flat().map((f) => f.path);
  const counts = blockCounts(files, plan.tableFigures);
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
    blobSizer: new BlobValueSizer(blobFilesOf(plan.cf), "record", refusedBlobFilesOf(plan.cf)),
    newest: new NewerVersionCheck(plan, shadows, kept),
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
  // each drawn table read once and let go (none kept idle): back to the kept tables when they are given
  const tables = new TableCache({ verifyChecksums: true }, 0, { keptTables: kept?.tables });
  try {
    for (let fi = 0; fi < files.length && ci < chosen.length; fi++) {
      const nb = counts[fi]!;
      if (chosen[ci]! >= base + nb) {
        base += nb;
        continue;
      }
      const t = tables.acquire(files[fi]!);
      try {
        let i = base;
        t.forEachIndexHandle((offset, size) => {
          if (ci >= chosen.length) return false;
          if (i === chosen[ci]) {
            measureBlock(out, t, { offset, size }, roles, lookup);
            progress(size + BLOCK_TRAILER_SIZE);
            ci++;
          }
          i++;
        });
      } finally {
        tables.release(t);
      }
      base += nb;
    }
    // each table record was drawn with probability (blocks drawn / blocks): WAL records enter the size
    // distributions at that rate, so every live key is equally likely to be measured
    measureWal(out, shadows, B > 0 ? chosen.length / B : 1, rand, roles, lookup);
  } finally {
    tables.close();
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
  /** The length a Get returns: valueLength, or for a value behind a Pebble handle left unresolved, its declared length. */
  valueSize: number;
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
    let vSize: number | undefined = r.valueSize;
    if (r.type === ValueType.BlobIndex)
      vSize = blobIndexedValueSize(r.data, r.valueOffset, r.valueLength, vSize, s.blobSizer, s.blob);
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
      rec.codeClasses["delegation"] = (rec.codeClasses["delegation"] ?? 0) + 1;
      if (measured) s.codeClasses["delegation"] = (s.codeClasses["delegation"] ?? 0) + 1;
    } else {
      rec.codeContracts++;
      if (len === MAX_CODE_SIZE) {
        rec.codeAtMax++;
        maxBytes = kl + len;
      }
      const cls = codeSizeClass(len);
      rec.codeClasses[cls] = (rec.codeClasses[cls] ?? 0) + 1;
      if (measured) {
        s.codeSize.add(len);
        s.codeBoot.add(len);
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

/**
 * Which records of a block are their key's newest version (1) and which are not (0: an older version
 * or a tombstone, a newer one above, under a WAL write or a newer range deletion), by record order.
 */
function newestInBlock(s: CfSample, path: string, db: DataBlock): Uint8Array {
  const keys: Buffer[] = [];
  const seqnos: number[] = [];
  const at: number[] = [];
  const c = db.cursor();
  let prevKey: Buffer | undefined;
  let e = 0;
  for (; c.next(); e++) {
    // a table holds a key's versions newest first: an entry after one of the same key is older
    const key = c.key.subarray(0, c.userKeyLength);
    const older = prevKey !== undefined && prevKey.equals(key);
    prevKey = Buffer.from(key);
    if (older || isTombstone(c.type)) continue;
    keys.push(prevKey);
    seqnos.push(c.seqno);
    at.push(e);
  }
  const flags = new Uint8Array(e);
  const answers = s.newest.newestOf(path, keys, seqnos);
  for (let j = 0; j < at.length; j++) flags[at[j]!] = answers[j] ? 1 : 0;
  return flags;
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
  const newest = newestInBlock(s, t.path, db);
  for (let e = 0; c.next(); e++) {
    rec.e++;
    const type = c.type;
    const name = type.toString();
    s.valueTypes[name] = (s.valueTypes[name] ?? 0) + 1;
    const kl = c.userKeyLength;
    records++;
    bytes += kl + c.valueLength;
    if (isTombstone(type)) {
      rec.t++;
      continue;
    }
    rec.m++;
    if (newest[e] === 0) continue;
    const live: LiveRecord = {
      key: c.key,
      keyLength: kl,
      type,
      data: c.data,
      valueOffset: c.valueOffset,
      valueLength: c.valueLength,
      valueSize: writtenValueLength(c),
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
  for (const e of newestWrites(shadows)) {
    if (isTombstone(e.type) || rangeDeleted(shadows, toHex(e.key), e.seqno)) continue;
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
      valueSize: e.value.length,
    };
    measureRecord(s, s.walRec, live, roles, lookup, measured);
  }
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
  // planned from the model's reading of each table where it has one: a table is opened when a block
  // is drawn from it or a key looked up in it
  const planCache = new CfPlanCache(true, undefined, undefined, true);
  const plans = planCache.plans;
  const planFor = (inst: CfPlan["instance"], cf: CfPlan["cf"]) => planCache.get(inst, cf);
  for (const s of selected) planFor(s.inst, s.cf);
  const codeKey = codeLoc ? cfKey(codeLoc.inst, codeLoc.cf) : undefined;
  const accKey = accLoc ? cfKey(accLoc.inst, accLoc.cf) : undefined;
  if (codeLoc) planFor(codeLoc.inst, codeLoc.cf);
  if (accLoc) planFor(accLoc.inst, accLoc.cf);
  // roles with key prefixes share their column family with other records: with drawWithinRoles the
  // blocks are drawn from the tables that meet the prefixes only
  const prefixesOf = (key: string) =>
    [
      key === accKey ? accLoc?.role.prefixHex : undefined,
      key === codeKey ? codeLoc?.role.prefixHex : undefined,
    ].filter((p): p is string => p !== undefined);
  const within: string[] = [];
  const work = [...plans.values()].map((p) => {
    const prefixes = opts.drawWithinRoles ? prefixesOf(p.key) : [];
    if (prefixes.length === 0) return p;
    const part = planWithin(p, prefixes);
    within.push(
      `${p.cf.displayName}: blocks drawn from the ${part.files} of its ${p.files} tables whose key ranges meet the key prefixes ${prefixes.map((x) => `0x${x}`).join(", ")}; its figures describe those tables and the WAL's writes`,
    );
    return part;
  });
  // each instance's WALs replayed once for all its column families
  const walLayers = new PlanWalLayers(new Map(work.map((p) => [p.key, p])));
  const shadows = new Map(work.map((p) => [p.key, shadowsOfPlan(p, walLayers.of(p))]));
  const lookup =
    codeLoc && accLoc
      ? new CodeLookup(
          planFor(codeLoc.inst, codeLoc.cf),
          codeLoc.role.prefixHex ? Buffer.from(codeLoc.role.prefixHex, "hex") : Buffer.alloc(0),
          shadows.get(codeKey!)!,
          opts.kept,
        )
      : undefined;
  const blocksOf = (p: CfPlan) => Math.max(1, Math.floor(opts.sampleBlocksFor?.(p.instance, p.cf) ?? N));
  let total = 0;
  for (const p of work)
    total += p.dataBlocks > 0 ? Math.min(1, blocksOf(p) / p.dataBlocks) * p.dataBytes : p.dataBytes;
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
      samples.set(
        p.key,
        sampleCf(p, blocksOf(p), {
          rand,
          roles,
          lookup,
          shadows: shadows.get(p.key)!,
          progress,
          kept: opts.kept,
        }),
      );
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
      "liveKeys (keys at their newest version, a value): the newest-version share of the sampled value records × the exact value-record count from the table properties (ratio-estimator interval), else block count × mean per sampled block (Student-t interval with finite-population correction), plus the WAL's live keys; physicalBytes exactly from the table properties when every table has them; logicalBytes is physicalBytes × the sampled uncompressed/stored ratio (ratio-estimator interval); shares: Wilson interval on the effective sample size from the between-block variance; percentiles: block bootstrap (200 resamples, percentile method) joined with the order-statistic interval; means: the block bootstrap's interval joined with the ratio estimator's Student-t interval",
      "dataBlocks, averageBlockBytes, compressionRatio and blockRatio are over the sampled blocks",
      ...within,
    ],
    elapsedMs: Date.now() - t0,
  };
}
