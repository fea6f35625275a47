/**
 * `inspect --deep --json` written as the tables are read: each table is read (DeepReads) just before
 * its JSON is written, and its details are let go once written, so a store of tens of thousands of
 * tables is not held whole with every table's properties. What the JSON prints after the tables is
 * settled when the writer reaches it, as runInspect settles it after the last table: a column family's
 * entries before its totals; an instance's size checks, unreadable tables and vanished tables before
 * its findings; the model's findings, completeness and the views beside the stores (addDatadirViews)
 * before the model's findings; the deep measurements last. The text is byte for byte what
 * JSON.stringify prints of runInspect's model with its `deep` (test/report/inspect_json_many_tables).
 */
import { inspectDatadir } from "../datadir/inspect.js";
import type {
  ColumnFamilyModel,
  DatadirModel,
  InstanceModel,
  LevelModel,
  SstFileModel,
} from "../datadir/model.js";
import {
  mergeFindingsAt,
  modelFindingPlaces,
  settleInstanceTableSizes,
  sizeOf,
  type SizeCheck,
} from "../datadir/column_families.js";
import { settleVanishedTables } from "../datadir/vanished.js";
import { addTableEntries } from "../datadir/placement.js";
import { MapRecord, streamJson } from "../util/json_stream.js";
import type { DeepTableInfo } from "./deep_table.js";
import { DeepReads } from "./deep_reads.js";
import { addDatadirViews } from "./views.js";

export interface DeepStreamOptions {
  readWal?: boolean;
  onProgress?: (done: number, total: number, what: string) => void;
  /** As runInspect's (DeepReadOptions): threads reading tables, the worker's batch. */
  threads?: number;
  workerBatch?: number;
}

/** Write the deep JSON of DIR to `stream` (no newline after it); returns whether the picture is whole. */
export async function streamDeepJson(
  dir: string,
  stream: NodeJS.WritableStream,
  opts: DeepStreamOptions = {},
): Promise<{ complete: boolean }> {
  const model: DatadirModel & { deep?: MapRecord<DeepTableInfo> } = await inspectDatadir(dir, {
    readWal: opts.readWal,
    onProgress: opts.onProgress,
    tableDetails: "none",
    tableSizes: "caller",
  });
  const deep = new Map<string, DeepTableInfo>();
  const reads = new DeepReads(model, deep, {
    onProgress: opts.onProgress,
    threads: opts.threads,
    workerBatch: opts.workerBatch,
  });
  const place = modelFindingPlaces(model);
  // the members printed after the instances, in the order runInspect's caller adds them
  if (!("identity" in model)) model.identity = undefined;
  if (!("freezers" in model)) model.freezers = undefined;
  model.deep = undefined;

  let inst: InstanceModel | undefined;
  let instIndex = -1;
  let cf: ColumnFamilyModel | undefined;
  let level: LevelModel | undefined;
  /** The column family's entries so far (as tableEntries counts: null once a table's count is unknown). */
  let entries: number | null = 0;
  /** The next present table to read (reads.all is in model order, as the JSON is). */
  let next = 0;
  let unreadableTaken = 0;
  const modelChecks: SizeCheck[] = [];

  // a promise only when the read waits for something (DeepReads.read): a warm store's tables are read
  // and written without a turn of the microtask queue each
  const readTable = (f: SstFileModel): Promise<void> | undefined => {
    if (!f.present) return void settleTable(f);
    if (reads.all[next] !== f) throw new Error("deep JSON: tables out of model order");
    const wait = reads.read(next++);
    return wait ? wait.then(() => settleTable(f)) : settleTable(f);
  };
  const settleTable = (f: SstFileModel): undefined => {
    if (f.present) {
      // its size on disk, as the instance's size checks will set it (settleInstanceTableSizes): the
      // open's, else a stat now
      const size = reads.sizes.get(f) ?? sizeOf(f.path);
      if (size !== undefined) reads.sizes.set(f, size);
      f.diskSize = size;
    }
    entries = addTableEntries(entries, f, (t) => deep.get(t.path)?.entriesCounted);
    return undefined;
  };

  const before = (holder: object, key: string | number): void | Promise<void> => {
    if (holder === model.instances) {
      inst = model.instances[key as number];
      instIndex = key as number;
    } else if (holder === inst?.columnFamilies) {
      cf = inst.columnFamilies[key as number];
      entries = 0;
    } else if (holder === cf?.levels) {
      level = cf.levels[key as number];
    } else if (holder === level?.files) {
      return readTable(level.files[key as number]!);
    } else if (holder === cf && key === "totals") {
      cf.totals.entries = entries;
    } else if (holder === inst && key === "findings") {
      settleInstance(inst);
    } else if (holder === model && key === "findings") {
      settleModel();
    } else if (holder === model && key === "deep") {
      // printed from the Map they were gathered in, not copied into an object (~0.1 KiB per table)
      model.deep = new MapRecord(deep);
    }
  };

  // as runInspect's settleDeepReads, for one instance once its tables are read
  const settleInstance = (i: InstanceModel): void => {
    modelChecks.push(...place(instIndex, settleInstanceTableSizes(i, reads.sizes)));
    for (; unreadableTaken < reads.unreadable.length; unreadableTaken++)
      i.findings.push(reads.unreadable[unreadableTaken]!.finding);
    settleVanishedTables(i, i.path);
  };
  const settleModel = (): void => {
    mergeFindingsAt(model.findings, modelChecks);
    for (const { finding } of reads.unreadable) model.findings.push(finding);
    if (model.findings.some((f) => f.severity === "error")) model.complete = false;
    addDatadirViews(model);
  };

  // a table's details are let go once its JSON is written (not deleted: `delete` made each table's
  // object a dictionary, ~2 µs a table)
  const after = (holder: object, key: string | number): void => {
    if (holder === level?.files) level.files[key as number]!.details = undefined;
  };

  try {
    await streamJson(model, stream, { before, after });
  } finally {
    reads.close();
  }
  return { complete: model.complete };
}
