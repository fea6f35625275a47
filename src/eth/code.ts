/**
 * Contract code facts and the code-size model used to describe (and generate) code populations.
 *
 * - EIP-170: deployed code is at most MAX_CODE_SIZE = 24,576 bytes (older contracts may exceed it).
 * - EIP-7702: a delegated EOA carries 23 bytes of code, 0xef 0x01 0x00 ‖ 20-byte target address. It is
 *   an EOA, not a contract.
 */

/** EIP-170 maximum deployed code size in bytes. */
export const MAX_CODE_SIZE = 24_576;
/** Size of an EIP-7702 delegation designator. */
export const DELEGATION_CODE_SIZE = 23;
/** First three bytes of an EIP-7702 delegation designator. */
export const DELEGATION_PREFIX: Buffer = Buffer.from([0xef, 0x01, 0x00]);

/** True when `code` is exactly an EIP-7702 delegation designator (23 bytes starting 0xef0100). */
export function isDelegationCode(code: Uint8Array): boolean {
  return code.length === DELEGATION_CODE_SIZE && code[0] === 0xef && code[1] === 0x01 && code[2] === 0x00;
}

/** The delegation designator pointing at `target` (a 20-byte address). */
export function delegationCode(target: Uint8Array): Buffer {
  if (target.length !== 20) throw new RangeError("delegation target must be a 20-byte address");
  return Buffer.concat([DELEGATION_PREFIX, target]);
}

/** The 20-byte target of a delegation designator, or undefined if `code` is not one. */
export function delegationTarget(code: Uint8Array): Buffer | undefined {
  return isDelegationCode(code) ? Buffer.from(code.subarray(3, 23)) : undefined;
}

/**
 * Named code-size classes, in order. `maxBytes` is inclusive. "delegation" is decided by content
 * (isDelegationCode), not size alone; "max" is exactly MAX_CODE_SIZE; "over-max" is pre-EIP-170 code.
 */
export const CODE_SIZE_CLASSES = [
  { name: "empty", maxBytes: 0 },
  { name: "delegation", maxBytes: DELEGATION_CODE_SIZE },
  { name: "tiny", maxBytes: 255 },
  { name: "small", maxBytes: 4095 },
  { name: "medium", maxBytes: 16_383 },
  { name: "large", maxBytes: MAX_CODE_SIZE - 1 },
  { name: "max", maxBytes: MAX_CODE_SIZE },
  { name: "over-max", maxBytes: Number.POSITIVE_INFINITY },
] as const;

export type CodeSizeClass = (typeof CODE_SIZE_CLASSES)[number]["name"];

/** Class counts in CODE_SIZE_CLASSES order (counting fills them in the order records arrive). */
export function orderedClassCounts(counts: Readonly<Record<string, number>>): Record<string, number> {
  const rank = (k: string) => {
    const i = CODE_SIZE_CLASSES.findIndex((c) => c.name === k);
    return i < 0 ? CODE_SIZE_CLASSES.length : i;
  };
  const out: Record<string, number> = {};
  for (const k of Object.keys(counts).sort((a, b) => rank(a) - rank(b) || a.localeCompare(b)))
    out[k] = counts[k]!;
  return out;
}

/**
 * Class of a piece of code. Pass the code itself when available so a 23-byte delegation is told
 * from 23 bytes of ordinary code; with only a size, 23 bytes counts as "tiny".
 */
export function codeSizeClass(codeOrSize: Uint8Array | number): CodeSizeClass {
  const size = typeof codeOrSize === "number" ? codeOrSize : codeOrSize.length;
  if (size === 0) return "empty";
  if (typeof codeOrSize !== "number" && isDelegationCode(codeOrSize)) return "delegation";
  if (size <= 255) return "tiny";
  if (size <= 4095) return "small";
  if (size <= 16_383) return "medium";
  if (size < MAX_CODE_SIZE) return "large";
  if (size === MAX_CODE_SIZE) return "max";
  return "over-max";
}

/** Summary of a list of code sizes: count, total, min/max, percentiles (nearest rank), per-class counts. */
export interface CodeSizeSummary {
  count: number;
  totalBytes: number;
  min: number;
  max: number;
  p50: number;
  p90: number;
  p99: number;
  /** codes of exactly MAX_CODE_SIZE bytes */
  atMax: number;
  classes: Record<CodeSizeClass, number>;
}

/** Nearest-rank percentile of an ascending array (p in 0..100). */
export function percentileNearestRank(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1]!;
}

/** Summarise code sizes; `codes` may be the codes themselves (so delegations are recognised) or sizes. */
export function summariseCodeSizes(codes: Iterable<Uint8Array | number>): CodeSizeSummary {
  const sizes: number[] = [];
  const classes = Object.fromEntries(CODE_SIZE_CLASSES.map((c) => [c.name, 0])) as Record<
    CodeSizeClass,
    number
  >;
  let total = 0;
  for (const c of codes) {
    const s = typeof c === "number" ? c : c.length;
    sizes.push(s);
    total += s;
    classes[codeSizeClass(c)]++;
  }
  sizes.sort((a, b) => a - b);
  return {
    count: sizes.length,
    totalBytes: total,
    min: sizes[0] ?? 0,
    max: sizes[sizes.length - 1] ?? 0,
    p50: percentileNearestRank(sizes, 50),
    p90: percentileNearestRank(sizes, 90),
    p99: percentileNearestRank(sizes, 99),
    atMax: classes.max,
    classes,
  };
}
