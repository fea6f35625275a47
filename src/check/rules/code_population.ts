/**
 * code-population (two arms): how the contract code the arms hold differs, from the sizes engine
 * (src/sizes computeSizes, Ethereum views): the code-size distribution (percentiles, size classes),
 * bytecode reuse (contract accounts per distinct bytecode) and the co-tenancy of maximum-size contracts
 * (records and bytes sharing a data block with a 24,576-byte contract). A cold code read costs one data
 * block; what shares that block with it, and how often one bytecode serves many accounts, decides what a
 * benchmark of code reads measures.
 */
import { computeSizes } from "../../sizes/compute.js";
import { locateEth } from "../../sizes/plan.js";
import type { CodeView, AccountView, EthSizes } from "../../sizes/types.js";
import type { DatadirModel } from "../../datadir/model.js";
import type { CheckFinding, Rule } from "../types.js";
import { finding } from "../util.js";

/** Relative difference above which two figures count as different. */
const REL_TOLERANCE = 0.1;
/** Absolute difference of class shares (0..1) above which the size mix counts as different. */
const SHARE_TOLERANCE = 0.05;

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
  reuseFactor: number | null;
  coTenancy: {
    blocks: number;
    maxSizeContracts: number;
    otherRecordsMean: number;
    otherBytesMean: number;
  } | null;
}

export function summarise(code: CodeView | undefined, acc: AccountView | undefined): CodePopulationSide {
  const total = code ? Object.values(code.classes).reduce((s, n) => s + n, 0) : 0;
  return {
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
      ? Object.fromEntries(
          Object.entries(code.classes).map(([k, n]) => [
            k,
            total > 0 ? Math.round((n / total) * 10000) / 10000 : 0,
          ]),
        )
      : null,
    atMax: code?.atMax.count ?? null,
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
    reuseFactor: acc ? Math.round(acc.reuseFactor * 100) / 100 : null,
    coTenancy: code
      ? {
          blocks: code.coTenancy.blocks,
          maxSizeContracts: code.coTenancy.maxSizeContracts,
          otherRecordsMean: Math.round(code.coTenancy.otherRecords.mean * 100) / 100,
          otherBytesMean: Math.round(code.coTenancy.otherBytes.mean),
        }
      : null,
  };
}

const relDiff = (a: number, b: number) =>
  a === b ? 0 : Math.abs(a - b) / Math.max(Math.abs(a), Math.abs(b));

export interface PopulationDifference {
  what: string;
  subject: number | string | null;
  reference: number | string | null;
}

/** Differences that matter between two summaries. */
export function populationDifferences(s: CodePopulationSide, r: CodePopulationSide): PopulationDifference[] {
  const out: PopulationDifference[] = [];
  const num = (
    what: string,
    a: number | null | undefined,
    b: number | null | undefined,
    tol = REL_TOLERANCE,
  ) => {
    if (a === null || a === undefined || b === null || b === undefined) {
      if ((a ?? null) !== (b ?? null)) out.push({ what, subject: a ?? null, reference: b ?? null });
      return;
    }
    if (relDiff(a, b) > tol) out.push({ what, subject: a, reference: b });
  };
  num("distinctContractBytecodes", s.distinctContractBytecodes, r.distinctContractBytecodes);
  num("reuseFactor", s.reuseFactor, r.reuseFactor);
  for (const p of ["p50", "p90", "p99", "max"] as const)
    num(`codeSize.${p}`, s.codeSize?.[p], r.codeSize?.[p]);
  if (s.classShares && r.classShares)
    for (const k of new Set([...Object.keys(s.classShares), ...Object.keys(r.classShares)])) {
      const a = s.classShares[k] ?? 0;
      const b = r.classShares[k] ?? 0;
      if (Math.abs(a - b) > SHARE_TOLERANCE) out.push({ what: `classShare.${k}`, subject: a, reference: b });
    }
  num("atMax", s.atMax, r.atMax);
  num("coTenancy.otherRecordsMean", s.coTenancy?.otherRecordsMean, r.coTenancy?.otherRecordsMean, 0.25);
  num("coTenancy.otherBytesMean", s.coTenancy?.otherBytesMean, r.coTenancy?.otherBytesMean, 0.25);
  return out;
}

/**
 * The Ethereum views of one arm, reading only the account and code column families (the sizes engine
 * reads the whole store when no column family is named).
 */
async function ethView(model: DatadirModel, sampleBlocks?: number): Promise<EthSizes | undefined> {
  const loc = locateEth(model, "auto");
  const cfs = [loc.accounts, loc.code]
    .filter((l): l is NonNullable<typeof l> => l !== undefined)
    .map((l) => `${l.instance}/${l.cf}`);
  if (cfs.length === 0) return undefined;
  const report = await computeSizes(model.root, {
    model,
    eth: "auto",
    cf: [...new Set(cfs)],
    ...(sampleBlocks ? { mode: "sample" as const, sampleBlocks } : { mode: "full" as const }),
  });
  return report.eth;
}

export const rule: Rule = {
  id: "code-population",
  describe: "(--against) code sizes, bytecode reuse, max-size co-tenancy",
  async run(ctx) {
    if (!ctx.reference) return [];
    const out: CheckFinding[] = [];
    ctx.options.onProgress?.("code-population: sizes of both arms");
    const s = await ethView(ctx.subject.model, ctx.options.codeSampleBlocks);
    const r = await ethView(ctx.reference.model, ctx.options.codeSampleBlocks);
    if (!s?.code && !r?.code) return out; // neither arm holds recognisable contract code
    const ss = summarise(s?.code, s?.accounts);
    const rs = summarise(r?.code, r?.accounts);
    const diffs = populationDifferences(ss, rs);
    if (diffs.length === 0) return out;
    const loc = s?.code?.location ?? r?.code?.location ?? "";
    const fmt = (v: number | string | null) => (v === null ? "none" : String(v));
    out.push(
      finding(
        "code-population",
        "warn",
        "both",
        { instance: loc.split("/")[0] ?? "", cf: loc.split("/").slice(1).join("/") },
        `contract code differs: ` +
          diffs.map((d) => `${d.what} ${fmt(d.subject)} vs ${fmt(d.reference)}`).join("; "),
        {
          evaluated: true,
          mode: ctx.options.codeSampleBlocks ? "sample" : "full",
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
