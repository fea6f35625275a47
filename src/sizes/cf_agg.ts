/**
 * One column family's share of a full scan: its tasks' partial results (scan.ts) added up, and the
 * column family's sizes report made from them and its plan.
 */
import { SizeDist, RatioDist } from "./dist.js";
import { BlobTally } from "./blob_tally.js";
import type { CfPlan } from "./plan.js";
import type { PartialResult } from "./scan.js";
import type { ColumnFamilySizes } from "./types.js";

/**
 * Adds up a column family's task results (every key range of it) into its sizes report. Its counters
 * are TaskScan's (scan.ts) by design, not by copy: TaskScan counts entries on the scan's hot path (value
 * types in a typed array by type byte), CfAgg adds the plain PartialResult records the threads send.
 */
export class CfAgg {
  keySize = new SizeDist();
  valueSize = new SizeDist();
  ratio = new RatioDist();
  live = 0;
  shadowed = 0;
  tombstones = 0;
  rangeDeleted = 0;
  read = 0;
  wal = 0;
  valueTypes: Record<string, number> = {};
  blob = new BlobTally();
  physical = 0;
  logical = 0;
  blocks = 0;
  categories: Map<string, { keySize: SizeDist; valueSize: SizeDist }> | undefined;
  /** A task of the column family was stopped by the deadline. */
  stopped = false;
  add(r: PartialResult): void {
    if (r.stopped) this.stopped = true;
    if (r.categories) {
      this.categories ??= new Map();
      for (const [name, c] of Object.entries(r.categories)) {
        let agg = this.categories.get(name);
        if (!agg) {
          agg = { keySize: new SizeDist(), valueSize: new SizeDist() };
          this.categories.set(name, agg);
        }
        agg.keySize.merge(c.keySize);
        agg.valueSize.merge(c.valueSize);
      }
    }
    this.keySize.merge(r.keySize);
    this.valueSize.merge(r.valueSize);
    this.ratio.merge(r.ratio);
    this.live += r.live;
    this.shadowed += r.shadowed;
    this.tombstones += r.tombstones;
    this.rangeDeleted += r.rangeDeleted;
    this.read += r.read;
    this.wal += r.wal;
    for (const [k, v] of Object.entries(r.valueTypes)) this.valueTypes[k] = (this.valueTypes[k] ?? 0) + v;
    this.blob.merge(r.blob);
    this.physical += r.physical;
    this.logical += r.logical;
    this.blocks += r.blocks;
  }
  result(plan: CfPlan): ColumnFamilySizes {
    const out: ColumnFamilySizes = {
      instance: plan.instance.relPath,
      name: plan.cf.name,
      nameHex: plan.cf.nameHex,
      displayName: plan.cf.displayName,
      liveKeys: this.live,
      obsoleteEntries: this.shadowed + this.tombstones + this.rangeDeleted,
      shadowedVersions: this.shadowed,
      tombstones: this.tombstones,
      rangeDeleted: this.rangeDeleted,
      entriesRead: this.read,
      walEntries: this.wal,
      valueTypes: Object.fromEntries(Object.entries(this.valueTypes).sort(([a], [b]) => (a < b ? -1 : 1))),
      keySize: this.keySize.summary(),
      valueSize: this.valueSize.summary(),
      blobIndexed: this.blob.summary(),
      physicalBytes: this.physical,
      logicalBytes: this.logical,
      compressionRatio: this.logical > 0 ? this.physical / this.logical : 0,
      dataBlocks: this.blocks,
      averageBlockBytes: this.blocks > 0 ? this.physical / this.blocks : 0,
      averageBlockLogicalBytes: this.blocks > 0 ? this.logical / this.blocks : 0,
      blockRatio: this.ratio.summary(),
      sstFiles: plan.files,
    };
    if (this.stopped) out.partial = true;
    if (this.categories) {
      out.keyCategories = {};
      for (const [name, c] of [...this.categories].sort(([a], [b]) => (a < b ? -1 : 1)))
        out.keyCategories[name] = {
          liveKeys: c.keySize.count,
          keySize: c.keySize.summary(),
          valueSize: c.valueSize.summary(),
        };
    }
    return out;
  }
}
