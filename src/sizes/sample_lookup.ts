/**
 * Sample mode's point lookups (sample.ts): whether a sampled record is its key's newest version, and
 * what an account's code hash names (a delegation, a contract, nothing), both as a Get sees them
 * (src/lsm/newest.ts: the live WALs' writes, then the tables).
 */
import { isTombstone, ValueType } from "../base/internal_key.js";
import type { SstFileModel } from "../datadir/model.js";
import { toHex } from "../util/bytes.js";
import { lookupTableCache } from "../lsm/table_cache.js";
import type { KeptReads } from "../lsm/kept_tables.js";
import { Version } from "../lsm/version.js";
import { newestVersion, rangeDeleted, shadowsOf, type Shadows } from "../lsm/newest.js";
import { memIndexOf, type MemLayer } from "../datadir/memtable.js";
import { isDelegationCode } from "../eth/code.js";
import { hash53 } from "./eth_acc.js";
import type { CfPlan } from "./plan.js";

/** Newest version of a code key across the code column family's files, by point lookups. */
export class CodeLookup {
  private readonly version: Version<SstFileModel>;
  private readonly tables: ReturnType<typeof lookupTableCache>;
  private cache = new Map<number, "delegation" | "contract" | "missing">();
  lookups = 0;

  constructor(
    plan: CfPlan,
    private readonly prefix: Buffer,
    /** The code column family's unflushed WAL writes (newer than any table, consulted first) and range deletions. */
    private readonly shadows: Shadows,
    /** What whoever read the tables before kept of them (SizesOptions.kept). */
    kept?: KeptReads,
  ) {
    this.version = Version.of(plan.cf.levels);
    this.tables = lookupTableCache(kept);
  }

  classify(codeHash: Uint8Array): "delegation" | "contract" | "missing" {
    const h = hash53(codeHash, 0);
    const hit = this.cache.get(h);
    if (hit) return hit;
    this.lookups++;
    const key = Buffer.concat([this.prefix, codeHash]);
    const best = newestVersion(key, this.shadows, this.version, this.tables);
    let out: "delegation" | "contract" | "missing";
    if (!best || isTombstone(best.type) || best.rangeDeleted) out = "missing";
    else if (best.type === ValueType.BlobIndex) {
      // sized from the blob index: a blob of 23 bytes cannot be told apart without reading it
      out = "contract";
    } else out = best.value && isDelegationCode(best.value) ? "delegation" : "contract";
    this.cache.set(h, out);
    return out;
  }

  close(): void {
    this.tables.close();
  }
}

/**
 * Whether a sampled record is its key's newest version, as a Get would see it: no unflushed WAL write
 * for the key, and no table a Get consults before the record's own holds a newer version (the one
 * lookup of src/lsm/version.ts, over the files above the record's: Version.get with `above`), and no
 * range deletion with a larger sequence number covers it. Sample mode counts keys at their newest
 * version only, as full mode does.
 */
export class NewerVersionCheck {
  private readonly version: Version<SstFileModel>;
  private readonly byPath = new Map<string, SstFileModel>();
  private readonly tables: ReturnType<typeof lookupTableCache>;

  constructor(
    plan: CfPlan,
    /** Unflushed WAL writes (their table versions are all shadowed) and range deletions. */
    private readonly shadows: Shadows,
    /** What whoever read the tables before kept of them (SizesOptions.kept). */
    kept?: KeptReads,
  ) {
    this.version = Version.of(plan.cf.levels);
    this.tables = lookupTableCache(kept);
    for (const l of plan.cf.levels) for (const f of l.files) this.byPath.set(f.path, f);
  }

  /**
   * Whether each record of one block of the table at `path` is its key's newest version: record i is
   * user key keys[i] written at seqnos[i]. The lookups over the files above are made for the whole
   * block at once (Version.getMany).
   */
  newestOf(path: string, keys: readonly Buffer[], seqnos: readonly number[]): boolean[] {
    const out = new Array<boolean>(keys.length).fill(true);
    const asked: Buffer[] = [];
    const askedAt: number[] = [];
    for (let i = 0; i < keys.length; i++) {
      const hex = toHex(keys[i]!);
      if (memIndexOf(this.shadows.writes, keys[i]!) >= 0 || rangeDeleted(this.shadows, hex, seqnos[i]!))
        out[i] = false;
      else {
        asked.push(keys[i]!);
        askedAt.push(i);
      }
    }
    const at = this.byPath.get(path);
    if (!at) return out;
    const found = this.version.getMany(asked, this.tables, at);
    for (let j = 0; j < asked.length; j++) {
      const newer = found[j]?.result;
      const i = askedAt[j]!;
      out[i] = !newer || (newer.seqno ?? 0) <= seqnos[i]!;
    }
    return out;
  }

  close(): void {
    this.tables.close();
  }
}

/**
 * A column family's shadows: its WAL layer (its live WALs read whole, not sampled: wal_layers.ts)
 * beside its tables' range deletions.
 */
export function shadowsOfPlan(plan: CfPlan, mem: MemLayer): Shadows {
  return shadowsOf(mem, plan.rangeDels);
}
