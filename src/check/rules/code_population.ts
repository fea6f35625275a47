/**
 * code-population (two arms): how the contract code the arms hold differs, from the sizes engine
 * (src/sizes computeSizes, Ethereum views): the code-size distribution (percentiles, size classes),
 * bytecode reuse (contract accounts per distinct code hash, and per bytecode stored; a sample tells only
 * the second) and the co-tenancy of maximum-size contracts (records and bytes sharing a data block with a
 * 24,576-byte contract). A cold code read costs one data block; what shares that block with it, and how
 * often one bytecode serves many accounts, decides what a benchmark of code reads measures.
 *
 * Both arms are read the same way: whole when their account and code column families are small, else
 * by sampled data blocks (sizes' sample mode), since reading a mainnet store's accounts whole takes
 * hours. A sampled figure is an estimate with an interval, and two figures differ only when even the
 * closest values their intervals allow differ by more than the tolerance: a sample too small to tell
 * reports no difference rather than noise (an info finding, where arms read whole that agree get none).
 */
import { computeSizes } from "../../sizes/compute.js";
import { locateEth, resolveLocation } from "../../sizes/plan.js";
import type { CodeView, AccountView, EthSizes } from "../../sizes/types.js";
import type { ColumnFamilyModel, DatadirModel } from "../../datadir/model.js";
import { sharedLookupBudget } from "../overlay.js";
import type { Interval } from "../../util/interval.js";
import type { ArmModel, CheckFinding, Rule } from "../types.js";
import { finding } from "../util.js";
import { isUserError } from "../../util/errors.js";

/** Relative difference above which two figures count as different. */
const REL_TOLERANCE = 0.1;
/** Absolute difference of class shares (0..1) above which the size mix counts as different. */
const SHARE_TOLERANCE = 0.05;
/** Account and code tables (stored bytes, either arm) up to which both arms are read whole by default. */
export const CODE_FULL_MAX_BYTES = 16 * 1024 * 1024;
/** Data blocks drawn per column family when the arms are sampled by default. */
export const DEFAULT_CODE_SAMPLE_BLOCKS = 200;
/** Newer-version lookups (table consultations) each arm's drawn blocks may make by default. */
export const DEFAULT_CODE_LOOKUP_BUDGET = 200_000;

export interface CodePopulationSide {
  codeLiveKeys: number | null;
  distinctContractBytecodes: number | null;
  delegations: number | null;
  codeSize: { count: number; p50: number; p90: number; p99: number; max: number; mean: number } | null;
  classShares: Record<string, number> | null;
  atMax: number | null;
  contractAccounts: number | null;
  /** Code size of every contract account (reuse counted). */
  perContractCodeSize: { count: number; p50: number; p90: number; p99: number; max: number } | null;
  /** Full mode only: a sample cannot count the distinct code hashes of every contract account. */
  reuseFactor: number | null;
  contractsPerStoredBytecode: number | null;
  coTenancy: {
    blocks: number;
    maxSizeContracts: number;
    otherRecordsMean: number;
    otherBytesMean: number;
  } | null;
  /**
   * Sampled arms: the intervals of the compared figures that are estimates, by the name a difference
   * gives them ("reuseFactor", "codeSize.p90", "classShare.small", ...); absent figures are exact. In
   * sample mode `atMax` is estimated (its share of the contract bytecodes times their estimated count)
   * and a sampled `codeSize.max` only bounds the arm's largest bytecode from below.
   */
  intervals?: Record<string, Interval>;
}

const round = (x: number, places: number) => Math.round(x * 10 ** places) / 10 ** places;
const roundedInterval = ([lo, hi]: Interval, places: number): Interval => [
  Math.floor(lo * 10 ** places) / 10 ** places,
  Number.isFinite(hi) ? Math.ceil(hi * 10 ** places) / 10 ** places : hi,
];

export function summarise(code: CodeView | undefined, acc: AccountView | undefined): CodePopulationSide {
  const total = code ? Object.values(code.classes).reduce((s, n) => s + n, 0) : 0;
  const intervals: Record<string, Interval> = {};
  const est = (what: string, iv: Interval | undefined, places = 0) => {
    // an exact figure (a sample that drew every block, a share every draw agrees on) has no interval
    if (iv && iv[0] < iv[1]) intervals[what] = roundedInterval(iv, places);
  };
  const sampled = code?.classShares !== undefined || acc?.totalInterval !== undefined;
  let atMax = code?.atMax.count ?? null;
  if (code) {
    est("distinctContractBytecodes", code.distinctContractBytecodesInterval);
    for (const p of ["p50", "p90", "p99"] as const) est(`codeSize.${p}`, code.codeSize.intervals?.[p]);
    if (code.classShares)
      for (const [k, sh] of Object.entries(code.classShares)) est(`classShare.${k}`, sh.interval, 4);
    if (code.codeSize.intervals) {
      // drawn from fewer blocks than the column family has: the arm's largest bytecode is at least the
      // sample's, and its maximum-size ones are estimated from their share
      intervals["codeSize.max"] = [code.codeSize.max, Number.POSITIVE_INFINITY];
      const share = code.atMax;
      const n = code.distinctContractBytecodesInterval ?? [0, Number.POSITIVE_INFINITY];
      atMax = Math.round(share.share * code.distinctContractBytecodes);
      if (share.interval) est("atMax", [share.interval[0] * n[0], share.interval[1] * n[1]]);
    }
    est("coTenancy.otherRecordsMean", code.coTenancy.otherRecords.meanInterval, 2);
    est("coTenancy.otherBytesMean", code.coTenancy.otherBytes.meanInterval);
  }
  est("contractsPerStoredBytecode", acc?.contractsPerStoredBytecodeInterval, 2);
  const side: CodePopulationSide = {
    codeLiveKeys: code?.liveKeys ?? null,
    distinctContractBytecodes: code?.distinctContractBytecodes ?? null,
    delegations: code?.delegations.count ?? null,
    codeSize: code
      ? {
          count: code.codeSize.count,
          p50: code.codeSize.p50,
          p90: code.codeSize.p90,
          p99: code.codeSize.p99,
          max: code.codeSize.max,
          mean: Math.round(code.codeSize.mean),
        }
      : null,
    classShares: code
      ? code.classShares
        ? Object.fromEntries(Object.entries(code.classShares).map(([k, sh]) => [k, round(sh.share, 4)]))
        : Object.fromEntries(
            Object.entries(code.classes).map(([k, n]) => [k, total > 0 ? round(n / total, 4) : 0]),
          )
      : null,
    atMax,
    contractAccounts: acc?.contract.count ?? null,
    perContractCodeSize: acc?.perContractCodeSize
      ? {
          count: acc.perContractCodeSize.count,
          p50: acc.perContractCodeSize.p50,
          p90: acc.perContractCodeSize.p90,
          p99: acc.perContractCodeSize.p99,
          max: acc.perContractCodeSize.max,
        }
      : null,
    reuseFactor: acc && !sampled ? round(acc.reuseFactor, 2) : null,
    contractsPerStoredBytecode: acc ? round(acc.contractsPerStoredBytecode, 2) : null,
    coTenancy: code
      ? {
          blocks: code.coTenancy.blocks,
          maxSizeContracts: code.coTenancy.maxSizeContracts,
          otherRecordsMean: round(code.coTenancy.otherRecords.mean, 2),
          otherBytesMean: Math.round(code.coTenancy.otherBytes.mean),
        }
      : null,
  };
  if (sampled) side.intervals = intervals;
  return side;
}

const relDiff = (a: number, b: number) =>
  a === b ? 0 : Math.abs(a - b) / Math.max(Math.abs(a), Math.abs(b));

export interface PopulationDifference {
  what: string;
  subject: number | string | null;
  reference: number | string | null;
  /** Where either arm's figure is an estimate: its interval. */
  subjectInterval?: Interval;
  referenceInterval?: Interval;
}

/**
 * The closest two values two figures' intervals allow (an exact figure is its own interval): both the
 * same value when the intervals meet.
 */
function closest(a: Interval, b: Interval): [number, number] {
  if (a[1] < b[0]) return [a[1], b[0]];
  if (b[1] < a[0]) return [a[0], b[1]];
  return [0, 0];
}

/** Differences that matter between two summaries. */
export function populationDifferences(s: CodePopulationSide, r: CodePopulationSide): PopulationDifference[] {
  const out: PopulationDifference[] = [];
  const compare = (
    what: string,
    a: number | null | undefined,
    b: number | null | undefined,
    differs: (x: number, y: number) => boolean,
  ) => {
    if (a === null || a === undefined || b === null || b === undefined) {
      if ((a ?? null) !== (b ?? null)) out.push({ what, subject: a ?? null, reference: b ?? null });
      return;
    }
    const ai = s.intervals?.[what];
    const bi = r.intervals?.[what];
    const [x, y] = closest(ai ?? [a, a], bi ?? [b, b]);
    if (!differs(x, y)) return;
    const d: PopulationDifference = { what, subject: a, reference: b };
    if (ai) d.subjectInterval = ai;
    if (bi) d.referenceInterval = bi;
    out.push(d);
  };
  const num = (
    what: string,
    a: number | null | undefined,
    b: number | null | undefined,
    tol = REL_TOLERANCE,
  ) => compare(what, a, b, (x, y) => relDiff(x, y) > tol);
  num("distinctContractBytecodes", s.distinctContractBytecodes, r.distinctContractBytecodes);
  num("reuseFactor", s.reuseFactor, r.reuseFactor);
  num("contractsPerStoredBytecode", s.contractsPerStoredBytecode, r.contractsPerStoredBytecode);
  for (const p of ["p50", "p90", "p99", "max"] as const)
    num(`codeSize.${p}`, s.codeSize?.[p], r.codeSize?.[p]);
  if (s.classShares && r.classShares)
    for (const k of new Set([...Object.keys(s.classShares), ...Object.keys(r.classShares)]))
      compare(
        `classShare.${k}`,
        s.classShares[k] ?? 0,
        r.classShares[k] ?? 0,
        (x, y) => Math.abs(x - y) > SHARE_TOLERANCE,
      );
  num("atMax", s.atMax, r.atMax);
  num("coTenancy.otherRecordsMean", s.coTenancy?.otherRecordsMean, r.coTenancy?.otherRecordsMean, 0.25);
  num("coTenancy.otherBytesMean", s.coTenancy?.otherBytesMean, r.coTenancy?.otherBytesMean, 0.25);
  return out;
}

/** Each arm's account and code column families, worked out once (codeReading, blocksUnderBudget, ethView). */
const ethCfs = new WeakMap<DatadirModel, ReadonlyMap<string, ColumnFamilyModel>>();

/** The account and code column families of one arm, by the names the sizes engine takes. */
function ethColumnFamilies(model: DatadirModel): ReadonlyMap<string, ColumnFamilyModel> {
  const known = ethCfs.get(model);
  if (known !== undefined) return known;
  const loc = locateEth(model, "auto");
  const out = new Map<string, ColumnFamilyModel>();
  for (const l of [loc.accounts, loc.code]) {
    const found = resolveLocation(model, l);
    if (l && found) out.set(`${l.instance}/${l.cf}`, found.cf);
  }
  ethCfs.set(model, out);
  return out;
}

/**
 * The table lookups a block drawn from `cf` costs on average: each of its records' newer-version check
 * consults the runs a Get reads before the block's own (each L0 table newer than its table, one table
 * of each level between), from the MANIFEST and the tables' properties. The code-hash lookups of the
 * contract accounts drawn are not counted (a tenth of an account block's records, or so, each through
 * the code column family).
 */
export function lookupsPerDrawnBlock(cf: ColumnFamilyModel): number {
  let blocks = 0;
  let lookups = 0;
  let runsAbove = 0;
  for (const level of cf.levels) {
    level.files.forEach((f, i) => {
      const nb = f.details?.numDataBlocks;
      const entries = f.details?.numEntries;
      if (!nb || entries === undefined) return;
      blocks += nb;
      // L0: the tables before this one (the model keeps L0 newest first)
      lookups += entries * (runsAbove + (level.level === 0 ? i : 0));
    });
    if (level.files.length > 0) runsAbove += level.level === 0 ? level.files.length : 1;
  }
  return blocks > 0 ? lookups / blocks : 0;
}

/**
 * The blocks each column family of one arm draws: `blocks`, or fewer where their lookups
 * (lookupsPerDrawnBlock) would not fit in `budget` together: the budget is shared as the placement
 * overlay shares its own (sharedLookupBudget). On a Besu store whose state column families are L0
 * pile-ups of 660-860 tables a drawn account block costs ~15,000 lookups (a filter each, ~1% of them a
 * table opened and a data block read), and with 200 of them in each arm `check --against` took 2.7-3.1 s,
 * 4.2-4.8x the time of inspecting both arms (with the budget: 6 account blocks, 1.24 s).
 */
export function blocksUnderBudget(
  model: DatadirModel,
  blocks: number,
  budget: number,
): Map<ColumnFamilyModel, number> {
  const cfs = [...ethColumnFamilies(model).values()];
  const perBlock = cfs.map(lookupsPerDrawnBlock);
  const share = sharedLookupBudget(
    budget,
    perBlock.map((l) => l * blocks),
  );
  return new Map(
    cfs.map((cf, i) => [cf, Math.max(1, Math.min(blocks, Math.floor(share / Math.max(1, perBlock[i]!))))]),
  );
}

/** How both arms are read: every block, or blocks drawn in each column family. */
export interface CodeReading {
  /** 0: every block; else the blocks asked per column family. */
  sampleBlocks: number;
  /** Asked by default: the newer-version lookups each arm may make (blocksUnderBudget). */
  lookupBudget?: number;
  /** Why (the default's choice, or the option). */
  why: string;
}

export function codeReading(subject: DatadirModel, reference: DatadirModel, asked?: number): CodeReading {
  if (asked !== undefined) return { sampleBlocks: asked, why: "--code-sample-blocks" };
  const bytes = (m: DatadirModel) =>
    [...ethColumnFamilies(m).values()].reduce((sum, cf) => sum + cf.totals.bytes, 0);
  const most = Math.max(bytes(subject), bytes(reference));
  const mib = (b: number) => `${(b / 1048576).toFixed(1)} MiB`;
  return most <= CODE_FULL_MAX_BYTES
    ? { sampleBlocks: 0, why: `account and code tables ${mib(most)} <= ${mib(CODE_FULL_MAX_BYTES)}` }
    : {
        sampleBlocks: DEFAULT_CODE_SAMPLE_BLOCKS,
        lookupBudget: DEFAULT_CODE_LOOKUP_BUDGET,
        why: `account and code tables ${mib(most)} > ${mib(CODE_FULL_MAX_BYTES)}`,
      };
}

/**
 * The Ethereum views of one arm, reading only its account and code column families, and the blocks
 * drawn in each (sample mode).
 */
async function ethView(
  arm: ArmModel,
  reading: CodeReading,
  seed?: number,
): Promise<{ eth?: EthSizes; blocksDrawn?: Record<string, number> }> {
  const model = arm.model;
  const names = [...ethColumnFamilies(model).keys()];
  if (names.length === 0) return {};
  const blocks = reading.sampleBlocks;
  const under =
    blocks > 0 && reading.lookupBudget !== undefined
      ? blocksUnderBudget(model, blocks, reading.lookupBudget)
      : undefined;
  const report = await computeSizes(model.root, {
    model,
    eth: "auto",
    cf: names,
    ...(blocks > 0
      ? {
          mode: "sample" as const,
          sampleBlocks: blocks,
          sampleBlocksFor: (_inst: unknown, cf: ColumnFamilyModel) => under?.get(cf),
          // geth's accounts and code share its one keyspace: drawn from the tables that hold them
          drawWithinRoles: true,
          seed,
          kept: { filters: arm.filters, tables: arm.tables },
        }
      : { mode: "full" as const }),
  });
  if (blocks === 0) return { eth: report.eth };
  const blocksDrawn: Record<string, number> = {};
  for (const c of report.columnFamilies) blocksDrawn[`${c.instance}/${c.displayName}`] = c.sampledBlocks ?? 0;
  return { eth: report.eth, blocksDrawn };
}

export const rule: Rule = {
  id: "code-population",
  describe: "(--against) code sizes, bytecode reuse, max-size co-tenancy",
  async run(ctx) {
    if (!ctx.reference) return [];
    const out: CheckFinding[] = [];
    ctx.options.onProgress?.("code-population: sizes of both arms");
    const reading = codeReading(ctx.subject.model, ctx.reference.model, ctx.options.codeSampleBlocks);
    let subject: Awaited<ReturnType<typeof ethView>>;
    let reference: typeof subject;
    try {
      subject = await ethView(ctx.subject, reading, ctx.options.seed);
      reference = await ethView(ctx.reference, reading, ctx.options.seed);
    } catch (e) {
      // a damaged table (the datadir-finding rule names it too) or values only the engine resolves:
      // the comparison is not made, and the check's picture is incomplete
      if (!isUserError(e)) throw e;
      return [
        finding(
          "code-population",
          "error",
          "both",
          { instance: "", cf: "" },
          `contract code not compared: ${e.oneLine()}`,
          { evaluated: false, mode: reading.sampleBlocks > 0 ? "sample" : "full", error: e.oneLine() },
        ),
      ];
    }
    const s = subject.eth;
    const r = reference.eth;
    if (!s?.code && !r?.code) return out; // neither arm holds recognisable contract code
    const ss = summarise(s?.code, s?.accounts);
    const rs = summarise(r?.code, r?.accounts);
    const diffs = populationDifferences(ss, rs);
    const sampled = reading.sampleBlocks > 0;
    // whole arms that agree: nothing to say; sampled ones: what they could tell apart, said as info
    if (diffs.length === 0 && !sampled) return out;
    const loc = s?.code?.location ?? r?.code?.location ?? "";
    const fmt = (v: number | string | null, iv?: Interval) =>
      (v === null ? "none" : String(v)) +
      (iv ? ` [${iv[0]}, ${Number.isFinite(iv[1]) ? iv[1] : "inf"}]` : "");
    const drawn = (d: Record<string, number> | undefined) => Object.values(d ?? {}).join("+");
    out.push(
      finding(
        "code-population",
        diffs.length > 0 ? "warn" : "info",
        "both",
        { instance: loc.split("/")[0] ?? "", cf: loc.split("/").slice(1).join("/") },
        diffs.length > 0
          ? `contract code differs: ` +
              diffs
                .map(
                  (d) =>
                    `${d.what} ${fmt(d.subject, d.subjectInterval)} vs ${fmt(d.reference, d.referenceInterval)}`,
                )
                .join("; ")
          : `contract code: no difference the drawn blocks tell (${drawn(subject.blocksDrawn)} blocks of DIR, ${drawn(reference.blocksDrawn)} of REF_DIR; intervals in the evidence)`,
        {
          evaluated: true,
          mode: sampled ? "sample" : "full",
          modeReason: reading.why,
          ...(sampled
            ? {
                sampleBlocks: reading.sampleBlocks,
                ...(reading.lookupBudget !== undefined ? { lookupBudget: reading.lookupBudget } : {}),
                blocksDrawn: { subject: subject.blocksDrawn ?? {}, reference: reference.blocksDrawn ?? {} },
              }
            : {}),
          subject: ss,
          reference: rs,
          differences: diffs,
          codeLocation: { subject: s?.code?.location ?? null, reference: r?.code?.location ?? null },
        },
      ),
    );
    return out;
  },
};
