/**
 * One scan task: the newest-version merge of one column family over one user-key range, with every
 * live record accounted (key/value sizes, value types, blob indexes, blocks) and, when the range holds
 * accounts or code, the Ethereum accounting. Runs the same in a worker thread or in-process; the
 * result is plain data (worker-transferable) and results of several ranges merge by addition.
 */
import { ValueType, valueTypeName } from "../format/internal_key.js";
import { fromHex } from "../util/bytes.js";
import { SizeDist, RatioDist, type SizeDistData } from "./dist.js";
import { decodeBlobIndex } from "../format/blob.js";
import type { MemEntry } from "../datadir/memtable.js";
import { Fate, MemRun, TableRun, mergeNewest, type BlockEvent, type Run } from "../lsm/merge.js";
import { AccountAcc, CodeAcc, type AccountAccData, type CodeAccData } from "./eth_acc.js";
import { BLOCK_TRAILER_SIZE } from "../format/handle.js";
import { threadId } from "node:worker_threads";
import { gethKeyCategory } from "../datadir/clients.js";

export type Role = "accounts" | "code";

export interface RoleSpec {
  role: Role;
  prefixHex?: string;
  keyLength?: number;
}

export interface ScanTask {
  id: number;
  /** Sorted runs: each L0 file alone, then each level's files in key order. */
  runs: string[][];
  /** Unflushed WAL writes in this range, sorted (loaded once per column family by the caller). */
  mem: MemEntry[];
  /** Range in hex; undefined = unbounded. */
  loHex?: string;
  hiHex?: string;
  /** Range deletions of the column family: SSTs and WAL (hex keys). */
  rangeDels: { startHex: string; endHex: string; seqno: number }[];
  /** Account the column family's sizes (false for a code-prefix pre-pass). */
  collectStats: boolean;
  /** Break live records down by geth key category (a single-keyspace LevelDB chaindata). */
  gethCategories?: boolean;
  roles: RoleSpec[];
  /** Delegation designator hashes (hash53) for classifying accounts. */
  delegationHashes: number[];
}

export interface PartialResult {
  id: number;
  keySize: SizeDistData;
  valueSize: SizeDistData;
  live: number;
  shadowed: number;
  tombstones: number;
  rangeDeleted: number;
  read: number;
  wal: number;
  valueTypes: Record<string, number>;
  blob: { count: number; bytes: number; compressions: Record<string, number>; files: number[] };
  physical: number;
  logical: number;
  blocks: number;
  ratio: { bins: Float64Array; count: number; min: number; max: number };
  code?: CodeAccData;
  accounts?: AccountAccData;
  /** Per geth key category: live records, key and value sizes. */
  categories?: Record<string, { keySize: SizeDistData; valueSize: SizeDistData }>;
  elapsedMs: number;
  /** worker_threads threadId of the thread that ran the task (0 = main). */
  thread: number;
  startedAt: number;
}

interface RoleMatcher {
  prefix: Buffer;
  keyLength: number | undefined;
  /** Offset of the 32-byte hash inside a code key. */
  hashOff: number;
}

function matcher(r: RoleSpec | undefined): RoleMatcher | undefined {
  if (!r) return undefined;
  const prefix = r.prefixHex ? fromHex(r.prefixHex) : Buffer.alloc(0);
  return { prefix, keyLength: r.keyLength, hashOff: prefix.length };
}

function matches(m: RoleMatcher, key: Uint8Array, len: number): boolean {
  if (m.keyLength !== undefined && len !== m.keyLength) return false;
  const p = m.prefix;
  if (len < p.length) return false;
  for (let i = 0; i < p.length; i++) if (key[i] !== p[i]) return false;
  return true;
}

/** Run one task; `progress` gets the stored bytes of each counted block as it is read. */
export function runScanTask(task: ScanTask, progress?: (bytes: number) => void): PartialResult {
  const t0 = Date.now();
  const lo = task.loHex !== undefined ? fromHex(task.loHex) : undefined;
  const hi = task.hiHex !== undefined ? fromHex(task.hiHex) : undefined;
  const keySize = new SizeDist();
  const valueSize = new SizeDist();
  const ratio = new RatioDist();
  const typeCounts = new Float64Array(256);
  const blob = { count: 0, bytes: 0, compressions: {} as Record<string, number>, files: new Set<number>() };
  let live = 0;
  let shadowed = 0;
  let tombstones = 0;
  let rangeDeleted = 0;
  let read = 0;
  let physical = 0;
  let logical = 0;
  let blocks = 0;

  const codeSpec = task.roles.find((r) => r.role === "code");
  const accSpec = task.roles.find((r) => r.role === "accounts");
  const codeM = matcher(codeSpec);
  const accM = matcher(accSpec);
  const codeAcc = codeM ? new CodeAcc() : undefined;
  const accAcc = accM ? new AccountAcc(new Set(task.delegationHashes)) : undefined;

  const onBlock = (e: BlockEvent) => {
    if (!e.counted) return;
    const phys = e.handle.size + BLOCK_TRAILER_SIZE;
    blocks++;
    physical += phys;
    logical += e.logical;
    if (e.logical > 0) ratio.add(phys / e.logical);
    progress?.(phys);
  };

  const runs: Run[] = task.runs.map((paths) => new TableRun(paths, lo, hi, onBlock));
  let walEntries = 0;
  const rangeDels = task.rangeDels.map((r) => ({
    start: fromHex(r.startHex),
    end: fromHex(r.endHex),
    seqno: r.seqno,
  }));
  if (task.mem.length > 0) {
    walEntries = task.mem.length;
    // after a structured clone the keys arrive as Uint8Array: give them Buffer views back
    const mem = task.mem.map((e) => ({
      ...e,
      key: Buffer.from(e.key.buffer, e.key.byteOffset, e.key.byteLength),
      value: Buffer.from(e.value.buffer, e.value.byteOffset, e.value.byteLength),
    }));
    runs.unshift(new MemRun(mem));
  }

  const categories =
    task.gethCategories && task.collectStats
      ? new Map<string, { keySize: SizeDist; valueSize: SizeDist }>()
      : undefined;
  const stats = task.collectStats;

  try {
    mergeNewest(runs, rangeDels, (r, fate) => {
      read++;
      const type = r.type;
      if (stats) typeCounts[type]!++;
      if (fate === Fate.Shadowed) {
        shadowed++;
        return;
      }
      if (fate === Fate.RangeDeleted) {
        rangeDeleted++;
        return;
      }
      const kl = r.ukLen;
      const key = r.key;
      if (
        type === ValueType.Deletion ||
        type === ValueType.SingleDeletion ||
        type === ValueType.DeletionWithTimestamp
      ) {
        tombstones++;
        return;
      }
      live++;
      let vSize = r.vLen;
      if (type === ValueType.BlobIndex) {
        try {
          const bi = decodeBlobIndex(r.data, r.vOff, r.vOff + r.vLen);
          vSize = bi.size;
          if (stats) {
            blob.count++;
            blob.bytes += bi.size;
            const cn = bi.compressionName ?? "inlined";
            blob.compressions[cn] = (blob.compressions[cn] ?? 0) + 1;
            if (bi.fileNumber !== undefined) blob.files.add(bi.fileNumber);
          }
        } catch {
          // an undecodable blob index is sized as stored
        }
      }
      if (categories) {
        const name = gethKeyCategory(key.subarray(0, kl));
        let c = categories.get(name);
        if (!c) {
          c = { keySize: new SizeDist(), valueSize: new SizeDist() };
          categories.set(name, c);
        }
        c.keySize.add(kl);
        c.valueSize.add(vSize);
      }
      if (stats) {
        keySize.add(kl);
        valueSize.add(vSize);
      }
      if (codeAcc && matches(codeM!, key, kl) && kl - codeM!.hashOff >= 32) {
        if (type !== ValueType.BlobIndex) {
          const blockId =
            r.path !== undefined && r.block ? `${r.path}\0${r.block.offset}\0${r.block.size}` : undefined;
          codeAcc.add(key, codeM!.hashOff, r.data, r.vOff, r.vLen, blockId);
        }
      }
      if (accAcc && matches(accM!, key, kl)) accAcc.add(r.data, r.vOff, r.vLen);
    });
  } finally {
    for (const r of runs) r.close();
  }

  const valueTypes: Record<string, number> = {};
  for (let t = 0; t < 256; t++) if (typeCounts[t]! > 0) valueTypes[valueTypeName(t)] = typeCounts[t]!;
  const out: PartialResult = {
    id: task.id,
    keySize: keySize.data(),
    valueSize: valueSize.data(),
    live,
    shadowed,
    tombstones,
    rangeDeleted,
    read,
    wal: walEntries,
    valueTypes,
    blob: { count: blob.count, bytes: blob.bytes, compressions: blob.compressions, files: [...blob.files] },
    physical,
    logical,
    blocks,
    ratio: { bins: ratio.bins, count: ratio.count, min: ratio.min, max: ratio.max },
    elapsedMs: Date.now() - t0,
    thread: threadId,
    startedAt: t0,
  };
  if (codeAcc) out.code = codeAcc.data();
  if (accAcc) out.accounts = accAcc.data();
  if (categories) {
    out.categories = {};
    for (const [name, c] of categories)
      out.categories[name] = { keySize: c.keySize.data(), valueSize: c.valueSize.data() };
  }
  return out;
}
