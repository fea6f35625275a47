/**
 * The order of a merge and the merging itself: runs positioned on entries (Run), compared as internal
 * keys (user key ascending, then sequence number descending) mostly through a number made of the user
 * key's first bytes, merged by a tree of losers (pushed to a sink: mergeRuns; pulled one entry at
 * a time: merge.ts's NewestCursor). What the runs are (tables, the WAL layer) and what a merged entry
 * means (newest version or shadowed) are merge.ts's.
 */
import type { BlockHandle } from "../format/handle.js";

/**
 * Set `r.pfxHi`/`r.pfxLo` to the first 8 bytes of its user key, zero-padded, as two big-endian
 * uint32s, and `r.pfx` to those 8 bytes as one number (pfxHi * 2^32 + pfxLo, rounded to a double).
 * Padding with the smallest byte keeps the order: when two prefixes differ, the keys compare the same
 * way, so the merge decides most comparisons with number compares and reads the key bytes only for
 * equal prefixes (computed once per entry instead of in every comparison). Rounding is monotone, so
 * pfx orders keys wherever it differs (a < b strictly implies key a < key b); equal pfx values are a
 * tie that the exact comparison settles. It is exact below 2^53 — keys whose first byte or more is
 * zero, such as db_bench's big-endian integers — and holds the first ~6.6 bytes of any other key.
 */
export function keyPrefix(r: {
  key: Uint8Array;
  ukLen: number;
  pfxHi: number;
  pfxLo: number;
  pfx: number;
}): void {
  const k = r.key;
  const n = r.ukLen;
  if (n >= 8) {
    r.pfxHi = ((k[0]! << 24) | (k[1]! << 16) | (k[2]! << 8) | k[3]!) >>> 0;
    r.pfxLo = ((k[4]! << 24) | (k[5]! << 16) | (k[6]! << 8) | k[7]!) >>> 0;
    r.pfx = r.pfxHi * 4294967296 + r.pfxLo;
    return;
  }
  let hi = 0;
  let lo = 0;
  for (let i = 0; i < 4; i++) hi = hi * 256 + (i < n ? k[i]! : 0);
  for (let i = 4; i < 8; i++) lo = lo * 256 + (i < n ? k[i]! : 0);
  r.pfxHi = hi;
  r.pfxLo = lo;
  r.pfx = hi * 4294967296 + lo;
}

/** keyPrefix()'s number `pfx` of a bare key (a bound, a cut point): keyPrefix() itself computes it. */
export function prefixNumber(key: Uint8Array): number {
  const r = { key, ukLen: key.length, pfxHi: 0, pfxLo: 0, pfx: 0 };
  keyPrefix(r);
  return r.pfx;
}

/** One position of a run: what the merge reads. */
export interface Run {
  key: Uint8Array;
  /** A view of `key`'s bytes (same offsets): for reading them four at a time. */
  keyView: DataView<ArrayBufferLike>;
  /** User key length (key bytes [0, ukLen)). */
  ukLen: number;
  /** The user key's first 8 bytes (zero-padded) as two big-endian uint32s: see keyPrefix(). */
  pfxHi: number;
  pfxLo: number;
  /** The same 8 bytes as one number, rounded (order-preserving, ties possible): see keyPrefix(). */
  pfx: number;
  seqno: number;
  type: number;
  data: Uint8Array;
  vOff: number;
  vLen: number;
  /**
   * The value's length as a Get returns it: vLen, or for a Pebble value still behind a handle (a blob
   * file the caller did not attach), the length the handle declares.
   */
  vSize: number;
  /** Current data block (undefined for the WAL layer). */
  path: string | undefined;
  block: BlockHandle | undefined;
  /** Move to the next entry in range; false when the run is exhausted. */
  advance(): boolean;
  /**
   * The run will not be read again before every other run has been (its turn in a sub-range is over):
   * its table's descriptor may go back (TableFile.rest).
   */
  rest?(): void;
  /**
   * Move on to the first entry at or past user key `target` (never back), which the next advance()
   * gives (NewestCursor.seek).
   */
  seek?(target: Buffer): void;
  close(): void;
}

function before(a: Run, b: Run): boolean {
  if (a.pfxHi !== b.pfxHi) return a.pfxHi < b.pfxHi;
  if (a.pfxLo !== b.pfxLo) return a.pfxLo < b.pfxLo;
  // equal prefixes: with both keys at least 8 bytes long their first 8 bytes are equal; the rest is
  // compared four bytes at a time (big-endian words order as their bytes do)
  const al = a.ukLen;
  const bl = b.ukLen;
  const n = al < bl ? al : bl;
  let i = 0;
  if (n >= 8) {
    const av = a.keyView;
    const bv = b.keyView;
    for (i = 8; i + 4 <= n; i += 4) {
      const x = av.getUint32(i);
      const y = bv.getUint32(i);
      if (x !== y) return x < y;
    }
  }
  const ak = a.key;
  const bk = b.key;
  while (i < n && ak[i] === bk[i]) i++;
  const c = i < n ? ak[i]! - bk[i]! : al - bl;
  return c < 0 || (c === 0 && a.seqno > b.seqno);
}

/** Gets every entry of a merge in internal-key order: the run positioned on it (valid during the call). */
export interface MergeSink {
  entry(r: Run): void;
}

/**
 * A tournament tree over runs: node n (1 ≤ n < k) holds the run that lost the match played there and
 * that run's key prefix as one number (Run.pfx: one compare per match, one 8-byte slot per node),
 * leaf i is node k + i, and the overall winner — the run whose entry comes first — is kept apart.
 * After the winner advances, one match per level on its path to the root settles the new winner;
 * equal numbers go to the exact comparison (before()). An exhausted run has an infinite prefix and
 * loses every match.
 *
 * Over an L0 pile-up (thousands of runs whose keys interleave) the merge is bound by memory latency,
 * not by comparisons: a heap read the key prefix of a different run object at every level, where the
 * tree keeps each loser's prefix in its node (typed arrays, a few KiB that stay in the cache) and
 * reads a run only for equal prefixes. Over a handful of runs too (an ordinary store: a few L0 files
 * and the levels) it beat the heap with a runner-up shortcut that it replaced (`sizes --full` over
 * five runs of random keys: ~4% less CPU): ⌈log2 k⌉ number compares per entry against a heap's
 * sift of run objects whenever the top run changes, which is most entries when the runs interleave.
 */
export class LoserTree {
  private readonly loser: Int32Array;
  private readonly loserPfx: Float64Array;
  private readonly live: Uint8Array;
  private winner = -1;

  constructor(private readonly runs: Run[]) {
    const k = runs.length;
    this.live = new Uint8Array(k);
    this.loser = new Int32Array(Math.max(1, k));
    this.loserPfx = new Float64Array(Math.max(1, k));
    if (k === 0) return;
    for (let i = 0; i < k; i++) this.live[i] = runs[i]!.advance() ? 1 : 0;
    // play the tournament bottom-up: the winner of node n's subtree in w[n], the loser kept at n
    const w = new Int32Array(2 * k);
    for (let i = 0; i < k; i++) w[k + i] = i;
    for (let n = k - 1; n >= 1; n--) {
      const a = w[2 * n]!;
      const b = w[2 * n + 1]!;
      const aWins = this.beats(a, b);
      w[n] = aWins ? a : b;
      this.keep(n, aWins ? b : a);
    }
    this.winner = k === 1 ? 0 : w[1]!;
  }

  private keep(n: number, run: number): void {
    this.loser[n] = run;
    const r = this.runs[run]!;
    this.loserPfx[n] = this.live[run] === 1 ? r.pfx : Infinity;
  }

  /** Run a's entry comes before run b's (an exhausted run comes after every other). */
  private beats(a: number, b: number): boolean {
    if (this.live[a] === 0) return false;
    if (this.live[b] === 0) return true;
    return before(this.runs[a]!, this.runs[b]!);
  }

  /** The run holding the first entry, or undefined when every run is exhausted. */
  top(): Run | undefined {
    const i = this.winner;
    return i >= 0 && this.live[i] === 1 ? this.runs[i] : undefined;
  }

  /** Advance the winner and settle the new one. */
  advanceTop(): void {
    let cur = this.winner;
    const r = this.runs[cur]!;
    let pfx: number;
    if (r.advance()) pfx = r.pfx;
    else {
      this.live[cur] = 0;
      pfx = Infinity;
    }
    const loser = this.loser;
    const loserPfx = this.loserPfx;
    for (let n = (cur + this.runs.length) >> 1; n >= 1; n >>= 1) {
      const lp = loserPfx[n]!;
      if (lp > pfx || (lp === pfx && !this.beats(loser[n]!, cur))) continue;
      // the loser kept here wins this match: it goes on up, cur stays
      const l = loser[n]!;
      loser[n] = cur;
      loserPfx[n] = pfx;
      cur = l;
      pfx = lp;
    }
    this.winner = cur;
  }
}

/** Merge runs and give every entry to `sink` in internal-key order. */
export function mergeRuns(runs: Run[], sink: MergeSink): void {
  const t = new LoserTree(runs);
  for (let top = t.top(); top !== undefined; top = t.top()) {
    sink.entry(top);
    t.advanceTop();
  }
}
