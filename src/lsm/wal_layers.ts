/**
 * Column families' live WAL layers (datadir/memtable.ts loadMemLayers), each loaded once for the reads
 * that share it, with the layers of other column families asked for together from the same pass: the
 * column families of a store share its WALs (a Besu store's dozen), and each layer replayed them whole
 * for its own writes. One class for every reader of live writes: the chain head's reads (identity: a
 * few keys, `keys`), compact's digests and `diff` (every column family in turn, sharedWalLayers),
 * `sizes` (its planned column families, the WALs its plans chose, gone WALs noted). A Pebble store's
 * WALs are replayed as Pebble's (its chunk types and batch kinds), whoever asks.
 */
import { existsSync } from "node:fs";
import type { ColumnFamilyModel, InstanceModel, WalFileModel } from "../datadir/model.js";
import { loadMemLayers, type MemLayer } from "../datadir/memtable.js";
import { noteGone } from "./gone.js";

/** Whether WAL `w` holds the writes of `cf` the reads take (by default, liveWalsOf). */
export type WalChoice = (cf: ColumnFamilyModel, w: WalFileModel) => boolean;

/** The WALs a recovery replays for `cf`: those numbered at or above its log number. */
export const liveWalsOf: WalChoice = (cf, w) => w.logNumber >= cf.logNumber;

export interface WalLayerOptions {
  /** The reads are of keys that pass it alone: the layers hold those keys' writes only. */
  keys?: (key: Uint8Array) => boolean;
  /** Column families the reads will ask for, loaded with the first of them asked for (one pass). */
  together?: readonly ColumnFamilyModel[];
  /** The WALs each column family's layer replays (default liveWalsOf). */
  wants?: WalChoice;
  /**
   * A batch that cannot be decoded: "throw" (default: a read that would miss writes is an error) or
   * "keep" the writes before it, counted in the layer's `undecodable` (sizes reports them).
   */
  onUndecodable?: "throw" | "keep";
  /**
   * A WAL deleted since the model was read (flushed into a table by then): noted (lsm/gone.ts) and
   * skipped, for a reader that reports what it skipped (sizes); else the replay's error.
   */
  noteGoneWals?: boolean;
}

export class WalLayers {
  private readonly layers = new Map<ColumnFamilyModel, MemLayer>();
  /** Column families whose reads are done (release()): not loaded again with another's group. */
  private readonly released = new Set<ColumnFamilyModel>();
  private readonly together: ColumnFamilyModel[];

  constructor(private readonly opts: WalLayerOptions = {}) {
    this.together = [...(opts.together ?? [])];
  }

  /** `cf`'s reads will come too: its layer is loaded with the next one of its instance asked for. */
  expect(cf: ColumnFamilyModel): void {
    if (!this.together.includes(cf)) this.together.push(cf);
  }

  /** Whether the layers hold `key`'s writes (a read of another key through them would miss its own). */
  holds(key: Uint8Array): boolean {
    return this.opts.keys === undefined || this.opts.keys(key);
  }

  /** `cf`'s layer, loaded with those of `together` of the same instance not loaded yet. */
  of(inst: InstanceModel, cf: ColumnFamilyModel): MemLayer {
    const have = this.layers.get(cf);
    if (have) return have;
    const group = [
      cf,
      ...this.together.filter(
        (c) => c !== cf && !this.layers.has(c) && !this.released.has(c) && inst.columnFamilies.includes(c),
      ),
    ];
    const loaded = loadWalLayers(inst, group, this.opts);
    for (const c of group) this.layers.set(c, loaded.get(c.id)!);
    return this.layers.get(cf)!;
  }

  /** Let go of `cf`'s layer: its reads are done (the others' memory stays, theirs to come). */
  release(cf: ColumnFamilyModel): void {
    this.layers.delete(cf);
    this.released.add(cf);
  }
}

/**
 * The layers of `cfs` of `inst` from one pass over its WALs (in the model's order: log number), by id.
 */
function loadWalLayers(
  inst: InstanceModel,
  cfs: readonly ColumnFamilyModel[],
  opts: WalLayerOptions,
): Map<number, MemLayer> {
  const choice = opts.wants ?? liveWalsOf;
  const wants = cfs.map((cf) => ({ id: cf.id, wants: (w: WalFileModel) => choice(cf, w) }));
  const wals = inst.wal.filter(
    (w) =>
      wants.some((c) => c.wants(w)) &&
      (!opts.noteGoneWals || existsSync(w.path) || (noteGone(w.path), false)),
  );
  return loadMemLayers(wals, wants, {
    onUndecodable: opts.onUndecodable ?? "throw",
    keys: opts.keys,
    pebble: inst.engine === "pebble",
  });
}

/** The column family's writes still only in live WALs, replayed (undecodable records are an error). */
export function loadLiveWal(inst: InstanceModel, cf: ColumnFamilyModel): MemLayer {
  return loadWalLayers(inst, [cf], {}).get(cf.id)!;
}

/**
 * Live WAL bytes of a store up to which the column families read one after another (compact's digest,
 * `diff`) have their WAL layers loaded in one pass (all their writes held at once, each let go once
 * read); beyond, one column family's at a time, each replaying the WALs with its writes alone held.
 */
const WAL_TOGETHER_BYTES = 64 * 1024 * 1024;

/**
 * The WAL layers `cfs` of `inst` are to be read through, one after another: one pass over the WALs they
 * share while those are small enough (WAL_TOGETHER_BYTES), else undefined (each replays them alone). A
 * store's column families share its WALs, and each read replayed them whole: compact's digests of the
 * Besu sample's dozen over a 54 MB WAL, 1.1 s of its ~4.8 s.
 */
export function sharedWalLayers(
  inst: InstanceModel,
  cfs: readonly ColumnFamilyModel[],
): WalLayers | undefined {
  const bytes = inst.wal.reduce((a, w) => a + w.size, 0);
  return cfs.length > 1 && bytes > 0 && bytes <= WAL_TOGETHER_BYTES
    ? new WalLayers({ together: cfs })
    : undefined;
}
