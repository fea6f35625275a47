/**
 * Writes the model's WAL scan kept for a later replay of the same WAL (datadir/wal.ts scanWal, `keep`):
 * the chain head's reads replayed every live WAL a second time for a few keys (head_keys.ts), which on
 * a node is most of `inspect`'s time (a geth store with a 54 MB WAL: two passes of ~75 ms in a ~0.27 s
 * run). A replay asking for the same keys (loadMemLayers with that `keys`) takes them instead, while
 * the file is as the scan found it (size and modification time) and no batch of it failed to decode
 * past its header (the replay then reads it, to report that batch where it lies).
 */
import { statSync } from "node:fs";
import { ValueType } from "../base/internal_key.js";
import type { BatchWrite } from "./write_batch.js";
import type { HeadWrites } from "./head_keys.js";

export interface KeptWrites {
  /** The keys kept (range deletions are kept whatever their keys, as a layer keeps them). */
  keys: (key: Uint8Array) => boolean;
  /** The column families whose writes were kept (others' are not: a replay for another reads the file). */
  cfIds: ReadonlySet<number>;
  /** The WAL was read as Pebble's. */
  pebble: boolean;
  /** The file when scanned: the writes stand for it only while it is unchanged. */
  size: number;
  mtimeMs: number;
  /** Copies, in WAL order. */
  writes: BatchWrite[];
  /** Batches shorter than their header (counted as a replay counts them; nothing else failed). */
  undecodable: number;
}

const kept = new WeakMap<object, KeptWrites>();

/**
 * Whether a WAL layer for reads of keys that pass `keys` (undefined: every key) holds write `w`: a
 * range deletion always (its "key" is its start, and it may cover keys that pass), a point write
 * when its key passes. What the scan keeps and what a replay's layer holds are the same writes.
 */
export function layerKeeps(w: BatchWrite, keys: ((key: Uint8Array) => boolean) | undefined): boolean {
  return w.type === ValueType.RangeDeletion || keys === undefined || keys(w.key);
}

/** Keep the writes scanned from `wal` (the model's object for the file) for a replay of it. */
export function keepWalWrites(wal: object, writes: KeptWrites): void {
  kept.set(wal, writes);
}

/**
 * The writes kept from `wal` for these keys of column families `cfIds`, if it is unchanged since;
 * else undefined (replay it).
 */
export function keptWalWrites(
  wal: object & { path: string },
  keys: (key: Uint8Array) => boolean,
  pebble: boolean,
  cfIds: Iterable<number>,
): KeptWrites | undefined {
  const k = kept.get(wal);
  if (k === undefined || k.keys !== keys || k.pebble !== pebble) return undefined;
  for (const id of cfIds) if (!k.cfIds.has(id)) return undefined;
  try {
    const st = statSync(wal.path);
    return st.size === k.size && st.mtimeMs === k.mtimeMs ? k : undefined;
  } catch {
    return undefined;
  }
}

/** What a scan keeps as it decodes a WAL's batches (`add` each write, `failed` each batch that failed). */
export class WriteKeeper {
  private readonly writes: BatchWrite[] = [];
  private undecodable = 0;
  /** A batch failed past its header: nothing kept is used. */
  private damaged = false;

  private readonly keys: (key: Uint8Array) => boolean;
  private readonly cfIds: ReadonlySet<number>;

  constructor(
    head: HeadWrites,
    private readonly pebble: boolean,
    /** The file before its scan (a file that grows meanwhile is read again by a replay). */
    private readonly size: number,
    private readonly mtimeMs: number,
  ) {
    this.keys = head.keys;
    this.cfIds = head.cfIds;
  }

  /** A batch that could not be decoded from byte `at` on (0: shorter than its header). */
  failed(at: number): void {
    this.undecodable++;
    if (at !== 0) this.damaged = true;
  }

  /** The writes kept, or undefined when a batch failed past its header. */
  result(): KeptWrites | undefined {
    if (this.damaged) return undefined;
    const { keys, cfIds, pebble, size, mtimeMs, writes, undecodable } = this;
    return { keys, cfIds, pebble, size, mtimeMs, writes, undecodable };
  }

  add(w: BatchWrite): void {
    if (this.cfIds.has(w.cf) && layerKeeps(w, this.keys))
      this.writes.push({
        cf: w.cf,
        type: w.type,
        key: Buffer.from(w.key),
        value: Buffer.from(w.value),
        seqno: w.seqno,
      });
  }
}
