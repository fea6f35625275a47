/**
 * What `inspect` reads per SST, in its two modes (both read only the tail of each file, never data blocks):
 *
 * - cheap (default): the datadir model with `tableDetails: "cheap"`: per live table the footer, the
 *   metaindex, the properties block and the filter's metadata (5 bytes of a full filter, or the
 *   partition index of a partitioned one). Block checksums are not verified.
 * - deep (`--deep`): the same, plus the whole index (every partition of a two-level index) walked to count
 *   the data blocks and measure their stored sizes (min/mean/max, instead of the data-size/block-count
 *   estimate), cross-checked against "rocksdb.num.data.blocks"; and every block read (metaindex,
 *   properties, index and its partitions, filter partition index) has its checksum verified.
 *
 * Deep mode builds the model without table details and fills `details` itself, so each table is opened
 * once: footer + metaindex + properties + filter metadata + index, in a handful of positioned reads.
 */
import { inspectDatadir } from "../datadir/inspect.js";
import type { DatadirModel, InspectOptions, SstFileModel, TableDetails } from "../datadir/model.js";
import { openTable, type SstTable } from "../format/table.js";

export type InspectMode = "cheap" | "deep";

/** What deep mode measured in one table. */
export interface DeepTableInfo {
  /** Data blocks counted by walking the index. */
  dataBlocks: number;
  /** Stored (possibly compressed) bytes of the data blocks, from their handles, without trailers. */
  dataBlockBytes: number;
  minBlockBytes?: number;
  maxBlockBytes?: number;
  /** Two-level index: partitions of the index. */
  indexPartitions?: number;
  /** Partitioned filter: partitions. */
  filterPartitions?: number;
  /** "rocksdb.num.data.blocks" equals the count from the index (undefined when there is no property). */
  propertiesAgree?: boolean;
  /** Positioned reads and bytes spent on this table. */
  reads: number;
  bytesRead: number;
  /** Checksums were verified on every block read. */
  checksumsVerified: boolean;
  error?: string;
}

export interface InspectResult {
  model: DatadirModel;
  mode: InspectMode;
  /** Deep measurements by SST path (deep mode only). */
  deep?: Map<string, DeepTableInfo>;
}

export interface RunInspectOptions {
  mode?: InspectMode;
  readWal?: boolean;
  maxDepth?: number;
  onProgress?: (done: number, total: number, what: string) => void;
}

const num = (v: string | number | undefined): number | undefined => (typeof v === "number" ? v : undefined);
const str = (v: string | number | undefined): string | undefined => (v === undefined ? undefined : String(v));

/** The same fields the datadir model's cheap reader fills. */
function detailsOf(t: SstTable): TableDetails {
  const p = t.properties as Record<string, string | number>;
  const d: TableDetails = {
    formatVersion: t.formatVersion,
    checksum: t.checksumType,
    compression: t.compression,
    indexType: t.indexType,
    numEntries: num(p["rocksdb.num.entries"]),
    numDataBlocks: num(p["rocksdb.num.data.blocks"]),
    dataSize: num(p["rocksdb.data.size"]),
    indexSize: num(p["rocksdb.index.size"]),
    filterSize: num(p["rocksdb.filter.size"]),
    rawKeySize: num(p["rocksdb.raw.key.size"]),
    rawValueSize: num(p["rocksdb.raw.value.size"]),
    filterPolicy: str(p["rocksdb.filter.policy"]),
    columnFamilyName: str(p["rocksdb.column.family.name"]),
    properties: p,
  };
  try {
    const f = t.filter;
    d.filter = { kind: f.kind, partitioned: f.partitioned, bitsPerKey: f.bitsPerKey };
  } catch (e) {
    d.error = `filter: ${(e as Error).message}`;
  }
  return d;
}

/** Deep read of one table: details (as cheap mode) and the index walk, checksums verified. */
export function readTableDeep(path: string): { details: TableDetails; deep: DeepTableInfo } {
  let t: SstTable | undefined;
  try {
    t = openTable(path, { verifyChecksums: true });
    const details = detailsOf(t);
    let blocks = 0;
    let bytes = 0;
    let min: number | undefined;
    let max: number | undefined;
    const partitions = new Set<number>();
    const deep: DeepTableInfo = {
      dataBlocks: 0,
      dataBlockBytes: 0,
      reads: 0,
      bytesRead: 0,
      checksumsVerified: true,
    };
    try {
      for (const e of t.iterateIndex()) {
        blocks++;
        const s = e.handle.size;
        bytes += s;
        if (min === undefined || s < min) min = s;
        if (max === undefined || s > max) max = s;
        if (e.partition) partitions.add(e.partition.offset);
      }
    } catch (e) {
      deep.error = `index: ${(e as Error).message}`;
    }
    deep.dataBlocks = blocks;
    deep.dataBlockBytes = bytes;
    deep.minBlockBytes = min;
    deep.maxBlockBytes = max;
    if (t.indexType === "two-level") deep.indexPartitions = partitions.size;
    try {
      if (t.filter.partitioned) deep.filterPartitions = t.filter.partitions;
    } catch {
      /* reported in details.error */
    }
    if (details.numDataBlocks !== undefined && !deep.error)
      deep.propertiesAgree = details.numDataBlocks === blocks;
    deep.reads = t.io.reads;
    deep.bytesRead = t.io.bytes;
    return { details, deep };
  } catch (e) {
    const msg = (e as Error).message;
    return {
      details: { error: msg },
      deep: { dataBlocks: 0, dataBlockBytes: 0, reads: 0, bytesRead: 0, checksumsVerified: true, error: msg },
    };
  } finally {
    t?.close();
  }
}

/** Build the model in the chosen mode (see the header comment). */
export async function runInspect(dir: string, opts: RunInspectOptions = {}): Promise<InspectResult> {
  const mode = opts.mode ?? "cheap";
  const base: InspectOptions = {
    readWal: opts.readWal,
    maxDepth: opts.maxDepth,
    onProgress: opts.onProgress,
  };
  if (mode === "cheap") {
    const model = await inspectDatadir(dir, { ...base, tableDetails: "cheap" });
    return { model, mode };
  }
  const model = await inspectDatadir(dir, { ...base, tableDetails: "none" });
  const deep = new Map<string, DeepTableInfo>();
  const all: { inst: (typeof model.instances)[number]; f: SstFileModel }[] = [];
  for (const inst of model.instances)
    for (const cf of inst.columnFamilies)
      for (const l of cf.levels) for (const f of l.files) if (f.present) all.push({ inst, f });
  let done = 0;
  for (const { inst, f } of all) {
    const r = readTableDeep(f.path);
    f.details = r.details;
    deep.set(f.path, r.deep);
    const err = r.details.error ?? r.deep.error;
    if (err) {
      const finding = {
        severity: "warn" as const,
        code: "sst-unreadable",
        file: f.path,
        message: `table reader: ${err}`,
      };
      inst.findings.push(finding);
      model.findings.push(finding);
    }
    done++;
    if (opts.onProgress && (done % 64 === 0 || done === all.length))
      opts.onProgress(done, all.length, inst.relPath);
  }
  return { model, mode, deep };
}
