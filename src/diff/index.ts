/**
 * Do two stores hold the same data? Compares the live contents (newest version per key, WAL included,
 * blobs resolved: src/lsm/live.ts) of two datadirs column family by column family, walking both in key
 * order in step, so memory stays flat whatever the store size. Instances pair by their path inside the
 * datadir, column families by raw name; an instance or column family on one side only counts all its
 * keys as onlyInA / onlyInB.
 */
import type { ColumnFamilyModel, DatadirModel, InstanceModel } from "../datadir/model.js";
import { incompleteReasons, inspectDatadir, noReadableStoreError } from "../datadir/inspect.js";
import { unreadableStoreReason } from "../datadir/outcome.js";
import { type BlockSink } from "../lsm/merge.js";
import { LiveCursor, type LiveEntry } from "../lsm/live.js";
import { sharedWalLayers, type WalLayers } from "../lsm/wal_layers.js";
import { diffByHash, notAscending } from "./by_hash.js";
import { LIVE_BY_HASH_MIN_RUNS } from "../lsm/live_by_hash.js";
import { cfSelected } from "../datadir/cf_select.js";
import { LsmscopeError } from "../util/errors.js";
import { toHex } from "../util/bytes.js";
import { asOnlyTableReader } from "../util/open_files.js";
import { compareBytewise } from "../base/comparator.js";

export type DifferenceKind = "changed" | "onlyInA" | "onlyInB";

export interface KeyDifference {
  kind: DifferenceKind;
  /** User key, hex. */
  key: string;
}

export interface CfDiff {
  /** Instance path inside the datadirs ("." for the store itself). */
  instance: string;
  /** Raw column family name, hex. */
  cf: string;
  displayName: string;
  inA: boolean;
  inB: boolean;
  /** Live keys with equal values on both sides. */
  same: number;
  /** Live keys on both sides with different values. */
  changed: number;
  onlyInA: number;
  onlyInB: number;
  /** The first `limit` differing keys in key order. */
  differences: KeyDifference[];
  /**
   * How the sides were compared: walked in key order in step ("merge"), or, where a side has many
   * sorted runs (an L0 pile-up), by the key sets of key sub-ranges ("keySets": diff/by_hash.ts).
   */
  comparedBy: "merge" | "keySets";
}

export interface DiffResult {
  a: string;
  b: string;
  identical: boolean;
  columnFamilies: CfDiff[];
  totals: { same: number; changed: number; onlyInA: number; onlyInB: number };
  /**
   * Error findings met while reading either side (a damaged WAL, blob file, OPTIONS, a dangling
   * CURRENT...), one located line each: the comparison then stands on an incomplete picture (exit 2).
   */
  incomplete: string[];
  elapsedMs: number;
}

export interface DiffOptions {
  /** Column families to compare (name, display name or raw-name hex); all when absent. */
  cfs?: string[];
  /** Differing keys listed per column family (default 10). */
  limit?: number;
  /**
   * Sorted runs on a side from which a pair is compared by key sets instead of merged (default
   * LIVE_BY_HASH_MIN_RUNS; diff/by_hash.ts).
   */
  byHashMinRuns?: number;
  /** Table bytes read so far, and the total table bytes of the chosen column families on both sides. */
  onProgress?: (readBytes: number, totalBytes: number) => void;
}

function readableStores(model: DatadirModel, dir: string): InstanceModel[] {
  const stores = model.instances.filter((i) => i.engine === "rocksdb" || i.engine === "leveldb");
  // nothing found at all: say why (a permission, the walk's depth limit), as every command does
  if (model.instances.length === 0) throw noReadableStoreError(model);
  if (stores.length === 0) {
    const why = model.instances.find((i) => i.engine === "pebble")
      ? "only a Pebble store found (diff does not read Pebble stores yet)"
      : "no RocksDB or LevelDB store found";
    throw new LsmscopeError(why, { file: dir });
  }
  for (const s of stores)
    if (!s.readable) throw new LsmscopeError(unreadableStoreReason(s), { file: s.path });
  return stores;
}

interface Pair {
  instance: string;
  cf: string;
  displayName: string;
  a?: PairSide;
  b?: PairSide;
}

/** One side of a pair: its store, column family, and where its WAL layer comes from (shareWals). */
interface PairSide {
  inst: InstanceModel;
  cf: ColumnFamilyModel;
  wal?: WalLayers;
}

/**
 * Each side's column families of one store read through WAL layers loaded in one pass over the WALs
 * they share (sharedWalLayers), where each pair replayed them whole.
 */
function shareWals(pairs: readonly Pair[]): void {
  for (const side of ["a", "b"] as const) {
    const byInst = new Map<InstanceModel, PairSide[]>();
    for (const p of pairs) {
      const s = p[side];
      if (s) byInst.set(s.inst, [...(byInst.get(s.inst) ?? []), s]);
    }
    for (const [inst, sides] of byInst) {
      const wal = sharedWalLayers(
        inst,
        sides.map((s) => s.cf),
      );
      for (const s of sides) s.wal = wal;
    }
  }
}

function pairUp(as: InstanceModel[], bs: InstanceModel[], cfs?: string[]): Pair[] {
  const pairs = new Map<string, Pair>();
  const add = (side: "a" | "b", insts: InstanceModel[]) => {
    for (const inst of insts)
      for (const cf of inst.columnFamilies) {
        if (cfs && !cfs.some((n) => cfSelected(cf, n, inst))) continue;
        const id = `${inst.relPath}\0${cf.nameHex}`;
        const p = pairs.get(id) ?? { instance: inst.relPath, cf: cf.nameHex, displayName: cf.displayName };
        p[side] = { inst, cf };
        pairs.set(id, p);
      }
  };
  add("a", as);
  add("b", bs);
  return [...pairs.values()];
}

const tableBytes = (cf: ColumnFamilyModel | undefined) => cf?.totals.bytes ?? 0;

/**
 * Table bytes read, out of the tables' file sizes in their MANIFESTs (the column families' totals):
 * each data block's stored bytes as it is read, and the rest of a table's file when the merge leaves
 * it. Data blocks alone came to ~95% of the files (the index, filter and properties behind them), and
 * the bar stopped short of its end.
 */
class TableBytesRead {
  private read = 0;

  constructor(
    private readonly total: number,
    private readonly report: DiffOptions["onProgress"],
  ) {}

  /** One side's sink: the same path can be on both sides (a store against itself). */
  side(cf: ColumnFamilyModel): BlockSink {
    const fileBytes = new Map<string, number>();
    for (const l of cf.levels) for (const f of l.files) fileBytes.set(f.path, f.fileSize);
    const blockBytes = new Map<string, number>();
    return {
      block: (e) => {
        blockBytes.set(e.path, (blockBytes.get(e.path) ?? 0) + e.handle.size);
        this.add(e.handle.size);
      },
      tableLeft: (path) => {
        const rest = (fileBytes.get(path) ?? 0) - (blockBytes.get(path) ?? 0);
        blockBytes.delete(path);
        if (rest > 0) this.add(rest);
      },
    };
  }

  private add(bytes: number): void {
    this.read += bytes;
    this.report?.(this.read, this.total);
  }
}

export async function diffDatadirs(dirA: string, dirB: string, opts: DiffOptions = {}): Promise<DiffResult> {
  const started = Date.now();
  const limit = opts.limit ?? 10;
  const [ma, mb] = await Promise.all([
    inspectDatadir(dirA, { tableDetails: "none", readWal: true }),
    inspectDatadir(dirB, { tableDetails: "none", readWal: true }),
  ]);
  const pairs = pairUp(readableStores(ma, dirA), readableStores(mb, dirB), opts.cfs);
  if (opts.cfs) {
    const unknown = opts.cfs.filter(
      (n) => !pairs.some((p) => cfSelected((p.a ?? p.b)!.cf, n, (p.a ?? p.b)!.inst)),
    );
    if (unknown.length > 0)
      throw new LsmscopeError(`no column family ${unknown.join(", ")} in either store`, { file: dirA });
  }
  const total = pairs.reduce((s, p) => s + tableBytes(p.a?.cf) + tableBytes(p.b?.cf), 0);
  const progress = new TableBytesRead(total, opts.onProgress);
  const minRuns = opts.byHashMinRuns ?? LIVE_BY_HASH_MIN_RUNS;
  // no other thread reads tables meanwhile
  shareWals(pairs);
  const out: CfDiff[] = asOnlyTableReader(() =>
    pairs.map((p) => {
      try {
        return diffPair(p, limit, minRuns, progress);
      } finally {
        for (const s of [p.a, p.b]) s?.wal?.release(s.cf);
      }
    }),
  );
  const totals = { same: 0, changed: 0, onlyInA: 0, onlyInB: 0 };
  for (const c of out) {
    totals.same += c.same;
    totals.changed += c.changed;
    totals.onlyInA += c.onlyInA;
    totals.onlyInB += c.onlyInB;
  }
  return {
    a: ma.root,
    b: mb.root,
    identical: totals.changed + totals.onlyInA + totals.onlyInB === 0,
    columnFamilies: out,
    totals,
    incomplete: [...incompleteReasons(ma), ...incompleteReasons(mb)],
    elapsedMs: Date.now() - started,
  };
}

function diffPair(p: Pair, limit: number, minRuns: number, progress: TableBytesRead): CfDiff {
  const d: CfDiff = {
    instance: p.instance,
    cf: p.cf,
    displayName: p.displayName,
    inA: p.a !== undefined,
    inB: p.b !== undefined,
    same: 0,
    changed: 0,
    onlyInA: 0,
    onlyInB: 0,
    differences: [],
    comparedBy: "merge",
  };
  const side = (s: Pair["a"]) => s && { ...s, blocks: progress.side(s.cf) };
  if (diffByHash(side(p.a), side(p.b), limit, minRuns, d)) {
    d.comparedBy = "keySets";
    return d;
  }
  const note = (kind: DifferenceKind, key: Uint8Array) => {
    d[kind]++;
    if (d.differences.length < limit) d.differences.push({ kind, key: toHex(key) });
  };
  const ca = p.a && new LiveCursor(p.a.inst, p.a.cf, progress.side(p.a.cf), undefined, undefined, p.a.wal);
  let cb: LiveCursor | undefined;
  try {
    cb = p.b && new LiveCursor(p.b.inst, p.b.cf, progress.side(p.b.cf), undefined, undefined, p.b.wal);
    const inOrderA = ascending(p.a?.inst.path, p.displayName);
    const inOrderB = ascending(p.b?.inst.path, p.displayName);
    let a = inOrderA(ca?.next());
    let b = inOrderB(cb?.next());
    while (a || b) {
      const c = !a ? 1 : !b ? -1 : compareBytewise(a.key, 0, a.key.length, b.key, 0, b.key.length);
      if (c < 0) {
        note("onlyInA", a!.key);
        a = inOrderA(ca!.next());
      } else if (c > 0) {
        note("onlyInB", b!.key);
        b = inOrderB(cb!.next());
      } else {
        if (Buffer.compare(a!.value, b!.value) === 0) d.same++;
        else note("changed", a!.key);
        a = inOrderA(ca!.next());
        b = inOrderB(cb!.next());
      }
    }
  } finally {
    ca?.close();
    cb?.close();
  }
  return d;
}

/**
 * Passes a side's live entries through, refusing one whose key does not follow the previous one: a
 * table whose keys are out of order (which no checksum catches) would otherwise show up as differences.
 */
function ascending(
  store: string | undefined,
  cf: string,
): (e: LiveEntry | undefined) => LiveEntry | undefined {
  // the previous key, copied into one buffer reused from key to key (a copy each: ~1 s of a 30 s diff
  // of 2 x 7.3 M entries)
  let prev = Buffer.alloc(64);
  let prevLen = -1;
  return (e) => {
    if (!e) return e;
    const k = e.key;
    if (prevLen >= 0 && compareBytewise(prev, 0, prevLen, k, 0, k.length) >= 0) throw notAscending(store, cf);
    if (k.length > prev.length) prev = Buffer.alloc(Math.max(k.length, 2 * prev.length));
    prev.set(k);
    prevLen = k.length;
    return e;
  };
}
