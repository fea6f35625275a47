/**
 * Per-record Ethereum accounting, allocation-free on the hot path:
 * - account records: RLP [nonce, balance, storageRoot, codeHash] in full (Besu) or slim (geth
 *   snapshot, Nethermind flat) form (eth/account.ts); only the code hash is needed, so the list is
 *   walked in place instead of decoded.
 * - code records: size, EIP-7702 delegation designator (23 bytes, 0xef0100‖address), EIP-170 maximum.
 * Code hashes are reduced to 53-bit numbers (first 53 bits of the keccak) so sets and maps of them
 * stay small; two distinct hashes collide with probability n²/2^54 (≈ 3·10⁻⁴ for 2.5 M codes).
 */
import { EMPTY_CODE_HASH, keccak256 } from "../eth/keccak.js";
import { DELEGATION_CODE_SIZE, MAX_CODE_SIZE, codeSizeClass } from "../eth/code.js";
import { SizeDist, type SizeDistData } from "./dist.js";

export function hash53(b: Uint8Array, off: number): number {
  const hi = ((b[off]! << 24) | (b[off + 1]! << 16) | (b[off + 2]! << 8) | b[off + 3]!) >>> 0;
  const lo = ((b[off + 4]! << 24) | (b[off + 5]! << 16) | (b[off + 6]! << 8) | b[off + 7]!) >>> 0;
  return hi * 2097152 + (lo >>> 11);
}

const EMPTY53 = hash53(EMPTY_CODE_HASH, 0);

/** Where the code hash sits in an account record: offset (32 bytes), -1 empty (slim EOA), -2 invalid. */
export function accountCodeHashOffset(v: Uint8Array, start: number, end: number): number {
  if (end <= start) return -2;
  const b0 = v[start]!;
  let p: number;
  let listEnd: number;
  if (b0 >= 0xc0 && b0 <= 0xf7) {
    p = start + 1;
    listEnd = p + (b0 - 0xc0);
  } else if (b0 > 0xf7) {
    const n = b0 - 0xf7;
    if (n > 3 || start + 1 + n > end) return -2;
    let len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + v[start + 1 + i]!;
    p = start + 1 + n;
    listEnd = p + len;
  } else return -2;
  if (listEnd !== end) return -2;
  let codeOff = -2;
  for (let item = 0; item < 4; item++) {
    if (p >= end) return -2;
    const b = v[p]!;
    let off: number;
    let len: number;
    if (b < 0x80) {
      off = p;
      len = 1;
      p += 1;
    } else if (b <= 0xb7) {
      off = p + 1;
      len = b - 0x80;
      p = off + len;
    } else if (b <= 0xbf) {
      const n = b - 0xb7;
      if (n > 3 || p + 1 + n > end) return -2;
      len = 0;
      for (let i = 0; i < n; i++) len = len * 256 + v[p + 1 + i]!;
      off = p + 1 + n;
      p = off + len;
    } else return -2; // a list where a string belongs
    if (p > end) return -2;
    if (item === 2 && len !== 0 && len !== 32) return -2;
    if (item === 3) {
      if (len === 0) codeOff = -1;
      else if (len === 32) codeOff = off;
      else return -2;
    }
  }
  return p === end ? codeOff : -2;
}

export interface CodeAccData {
  liveKeys: number;
  delegations: number;
  delegationHashes: number[];
  sizes: SizeDistData;
  classes: Record<string, number>;
  atMax: number;
  overMax: number;
  keyedByAccountHash: boolean;
  /** Flattened [hash53, size] pairs of contract codes, while under the cap. */
  codeMap: number[] | null;
  /** Data blocks holding a maximum-size contract: "path\0offset\0size" → how many. */
  maxBlocks: [string, number][];
}

export const CODE_MAP_CAP = 4_000_000;

export class CodeAcc {
  liveKeys = 0;
  delegations = 0;
  delegationHashes = new Set<number>();
  sizes = new SizeDist();
  classes: Record<string, number> = {};
  atMax = 0;
  overMax = 0;
  keyedByAccountHash: boolean | undefined;
  codeMap: Map<number, number> | null = new Map();
  maxBlocks = new Map<string, number>();

  /** One live code record: key bytes [keyOff, keyOff+32) hold the code hash (or an account hash). */
  add(
    key: Uint8Array,
    keyOff: number,
    value: Uint8Array,
    vOff: number,
    vLen: number,
    blockId: string | undefined,
  ): void {
    this.liveKeys++;
    if (this.keyedByAccountHash === undefined) {
      const h = keccak256(value.subarray(vOff, vOff + vLen));
      this.keyedByAccountHash = hash53(h, 0) !== hash53(key, keyOff);
    }
    const h = this.keyedByAccountHash
      ? hash53(keccak256(value.subarray(vOff, vOff + vLen)), 0)
      : hash53(key, keyOff);
    if (
      vLen === DELEGATION_CODE_SIZE &&
      value[vOff] === 0xef &&
      value[vOff + 1] === 0x01 &&
      value[vOff + 2] === 0x00
    ) {
      this.delegations++;
      this.delegationHashes.add(h);
      this.classes["delegation"] = (this.classes["delegation"] ?? 0) + 1;
      return;
    }
    this.sizes.add(vLen);
    const cls = codeSizeClass(vLen);
    this.classes[cls] = (this.classes[cls] ?? 0) + 1;
    if (vLen === MAX_CODE_SIZE) {
      this.atMax++;
      if (blockId !== undefined) this.maxBlocks.set(blockId, (this.maxBlocks.get(blockId) ?? 0) + 1);
    } else if (vLen > MAX_CODE_SIZE) this.overMax++;
    if (this.codeMap) {
      this.codeMap.set(h, vLen);
      if (this.codeMap.size > CODE_MAP_CAP) this.codeMap = null;
    }
  }

  data(): CodeAccData {
    let codeMap: number[] | null = null;
    if (this.codeMap) {
      codeMap = [];
      for (const [h, s] of this.codeMap) codeMap.push(h, s);
    }
    return {
      liveKeys: this.liveKeys,
      delegations: this.delegations,
      delegationHashes: [...this.delegationHashes],
      sizes: this.sizes.data(),
      classes: this.classes,
      atMax: this.atMax,
      overMax: this.overMax,
      keyedByAccountHash: this.keyedByAccountHash ?? false,
      codeMap,
      maxBlocks: [...this.maxBlocks],
    };
  }

  merge(d: CodeAccData): void {
    this.liveKeys += d.liveKeys;
    this.delegations += d.delegations;
    for (const h of d.delegationHashes) this.delegationHashes.add(h);
    this.sizes.merge(d.sizes);
    for (const [k, v] of Object.entries(d.classes)) this.classes[k] = (this.classes[k] ?? 0) + v;
    this.atMax += d.atMax;
    this.overMax += d.overMax;
    if (d.keyedByAccountHash) this.keyedByAccountHash = true;
    else if (this.keyedByAccountHash === undefined && d.liveKeys > 0) this.keyedByAccountHash = false;
    if (!d.codeMap) this.codeMap = null;
    else if (this.codeMap) {
      for (let i = 0; i < d.codeMap.length; i += 2) this.codeMap.set(d.codeMap[i]!, d.codeMap[i + 1]!);
      if (this.codeMap.size > CODE_MAP_CAP) this.codeMap = null;
    }
    for (const [k, v] of d.maxBlocks) this.maxBlocks.set(k, (this.maxBlocks.get(k) ?? 0) + v);
  }
}

/**
 * HyperLogLog (2^14 registers, ~0.8% standard error) over hash53 values, for distinct code hashes once
 * an exact set would outgrow DISTINCT_CAP.
 */
export class Hll {
  static readonly P = 14;
  regs: Uint8Array;
  constructor(regs?: Uint8Array) {
    this.regs = regs ?? new Uint8Array(1 << Hll.P);
  }
  add(h: number): void {
    const m = 1 << Hll.P;
    const idx = h % m;
    const w = Math.floor(h / m); // 39 remaining bits
    const rank = w === 0 ? 40 : 39 - Math.floor(Math.log2(w));
    if (rank > this.regs[idx]!) this.regs[idx] = rank;
  }
  merge(o: Uint8Array): void {
    for (let i = 0; i < this.regs.length; i++) if (o[i]! > this.regs[i]!) this.regs[i] = o[i]!;
  }
  estimate(): number {
    const m = this.regs.length;
    let sum = 0;
    let zeros = 0;
    for (const r of this.regs) {
      sum += 2 ** -r;
      if (r === 0) zeros++;
    }
    const e = ((0.7213 / (1 + 1.079 / m)) * m * m) / sum;
    return e <= 2.5 * m && zeros > 0 ? m * Math.log(m / zeros) : e;
  }
}

/** Distinct code hashes counted exactly (with per-hash contract counts) up to this many. */
export const DISTINCT_CAP = 4_000_000;

export interface AccountAccData {
  total: number;
  eoa: number;
  delegated: number;
  contract: number;
  undecodable: number;
  /** Flattened [hash53, contract accounts] pairs; null once past DISTINCT_CAP (then `hll`). */
  codeHashCounts: number[] | null;
  hll: Uint8Array | null;
}

/**
 * An account range scanned before the code was (delegationHashes empty: its delegated accounts counted
 * as contracts, under their code hashes) told apart now: the contracts whose code hash is a delegation
 * designator's move to `delegated`, as a scan that had the hashes would have counted them. The same
 * data as that scan's; undefined when its counts are no longer per hash (past DISTINCT_CAP: `hll`)
 * and a delegation may hide among them (the range is scanned again with the hashes).
 */
export function settleDelegations(
  d: AccountAccData,
  delegationHashes: ReadonlySet<number>,
): AccountAccData | undefined {
  if (delegationHashes.size === 0) return d;
  const pairs = d.codeHashCounts;
  if (pairs === null) return undefined;
  const kept: number[] = [];
  let delegated = 0;
  for (let i = 0; i < pairs.length; i += 2) {
    if (delegationHashes.has(pairs[i]!)) delegated += pairs[i + 1]!;
    else kept.push(pairs[i]!, pairs[i + 1]!);
  }
  return { ...d, delegated: d.delegated + delegated, contract: d.contract - delegated, codeHashCounts: kept };
}

export class AccountAcc {
  total = 0;
  eoa = 0;
  delegated = 0;
  contract = 0;
  undecodable = 0;
  codeHashCounts: Map<number, number> | null = new Map();
  hll: Hll | null = null;

  constructor(private readonly delegationHashes: Set<number>) {}

  add(value: Uint8Array, vOff: number, vLen: number): void {
    const off = accountCodeHashOffset(value, vOff, vOff + vLen);
    if (off === -2) {
      this.undecodable++;
      return;
    }
    this.total++;
    if (off === -1) {
      this.eoa++;
      return;
    }
    const h = hash53(value, off);
    if (h === EMPTY53) this.eoa++;
    else if (this.delegationHashes.has(h)) this.delegated++;
    else {
      this.contract++;
      this.countHash(h, 1);
    }
  }

  private countHash(h: number, n: number): void {
    if (this.codeHashCounts) {
      this.codeHashCounts.set(h, (this.codeHashCounts.get(h) ?? 0) + n);
      if (this.codeHashCounts.size > DISTINCT_CAP) this.toHll();
    } else this.hll!.add(h);
  }

  private toHll(): void {
    if (!this.hll) this.hll = new Hll();
    for (const h of this.codeHashCounts?.keys() ?? []) this.hll.add(h);
    this.codeHashCounts = null;
  }

  /** Distinct code hashes of contract accounts, and whether the figure is exact. */
  distinct(): { count: number; exact: boolean } {
    return this.codeHashCounts
      ? { count: this.codeHashCounts.size, exact: true }
      : { count: Math.round(this.hll!.estimate()), exact: false };
  }

  data(): AccountAccData {
    let codeHashCounts: number[] | null = null;
    if (this.codeHashCounts) {
      codeHashCounts = [];
      for (const [h, c] of this.codeHashCounts) codeHashCounts.push(h, c);
    }
    return {
      total: this.total,
      eoa: this.eoa,
      delegated: this.delegated,
      contract: this.contract,
      undecodable: this.undecodable,
      codeHashCounts,
      hll: this.hll ? this.hll.regs : null,
    };
  }

  merge(d: AccountAccData): void {
    this.total += d.total;
    this.eoa += d.eoa;
    this.delegated += d.delegated;
    this.contract += d.contract;
    this.undecodable += d.undecodable;
    if (d.hll) {
      this.toHll();
      this.hll!.merge(d.hll);
    }
    const c = d.codeHashCounts;
    if (c) for (let i = 0; i < c.length; i += 2) this.countHash(c[i]!, c[i + 1]!);
  }
}
