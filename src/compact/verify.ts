/**
 * After a run, read the store again without an engine and check, per compacted column family:
 * - placement: every table sits in the target (bottom) level, and no writes are left only in a WAL;
 * - knobs: every table carries the intended knobs (filter kind and bits/key from the filter block,
 *   compression, format version, index type, checksum, block size estimate: intended.ts);
 * - content: the logical digest (digest.ts) equals the one taken before the run;
 * - sizes before and after (SST, blob files).
 */
import { inspectDatadir, noReadableStoreError } from "../datadir/inspect.js";
import type { InstanceModel } from "../datadir/model.js";
import { digestColumnFamily, type CfDigest, type StoreDigest } from "./digest.js";
import { checkFileKnobs, summariseChecks, type KnobRow } from "./intended.js";
import type { CompactPlan, LevelLayout } from "./plan.js";
import { plural } from "../util/words.js";

export interface CfVerification {
  nameHex: string;
  displayName: string;
  targetLevel: number;
  levelsAfter: LevelLayout[];
  /** Every table in targetLevel and nothing unflushed. */
  placementOk: boolean;
  unflushedWritesAfter: number;
  files: number;
  /** Tables whose file number existed before the run (not rewritten). */
  filesNotRewritten: number;
  knobs: KnobRow[];
  /** Every file carries every intended knob (block-size estimate excluded). */
  knobsOk: boolean;
  digestBefore?: CfDigest;
  digestAfter: CfDigest;
  digestEqual: boolean;
  sstBytesBefore: number;
  sstBytesAfter: number;
  blobFileBytesBefore: number;
  blobFileBytesAfter: number;
}

export interface VerifyReport {
  ok: boolean;
  columnFamilies: CfVerification[];
  totals: {
    sstBytesBefore: number;
    sstBytesAfter: number;
    blobFileBytesBefore: number;
    blobFileBytesAfter: number;
  };
  /** One line per failed check. */
  problems: string[];
}

export async function inspectStore(dir: string): Promise<InstanceModel> {
  const model = await inspectDatadir(dir, { tableDetails: "cheap", readWal: true });
  const inst = model.instances.find((i) => i.engine === "rocksdb" && i.readable);
  if (!inst) throw noReadableStoreError(model, "RocksDB store");
  return inst;
}

/**
 * Verify the store against the plan and the digests taken before. `fileNumbersBefore` (per CF hex) lets
 * it count tables that were not rewritten.
 */
export async function verifyCompaction(
  plan: CompactPlan,
  before: StoreDigest | undefined,
  fileNumbersBefore?: Map<string, Set<number>>,
): Promise<VerifyReport> {
  const inst = await inspectStore(plan.store);
  const report: VerifyReport = {
    ok: true,
    columnFamilies: [],
    totals: { sstBytesBefore: 0, sstBytesAfter: 0, blobFileBytesBefore: 0, blobFileBytesAfter: 0 },
    problems: [],
  };
  for (const cp of plan.columnFamilies) {
    const cf = inst.columnFamilies.find((c) => c.nameHex === cp.nameHex);
    if (!cf) {
      report.problems.push(`${cp.displayName}: column family gone after the run`);
      continue;
    }
    const files = cf.levels.flatMap((l) => l.files);
    const misplaced = cf.levels.filter((l) => l.level !== cp.targetLevel && l.files.length > 0);
    const placementOk = misplaced.length === 0 && cf.totals.unflushedWrites === 0;
    const checks = files.map((f) =>
      f.details && f.details.formatVersion !== undefined
        ? checkFileKnobs(f.details, cp.intended)
        : [
            {
              knob: "format-version" as const,
              carried: `unreadable: ${f.details?.error ?? "no details"}`,
              intended: "-",
              ok: false,
            },
          ],
    );
    const knobs = summariseChecks(checks, cp.intended);
    const knobsOk = knobs.every((k) => k.differing === 0 || k.knob === "block-size");
    const after = digestColumnFamily(inst, cf);
    const dBefore = before?.columnFamilies.find((d) => d.cf === cp.nameHex);
    const digestEqual =
      dBefore !== undefined && dBefore.sha256 === after.sha256 && dBefore.keys === after.keys;
    const prev = fileNumbersBefore?.get(cp.nameHex);
    const v: CfVerification = {
      nameHex: cp.nameHex,
      displayName: cp.displayName,
      targetLevel: cp.targetLevel,
      levelsAfter: cf.levels.map((l) => ({ level: l.level, files: l.files.length, bytes: l.bytes })),
      placementOk,
      unflushedWritesAfter: cf.totals.unflushedWrites,
      files: files.length,
      filesNotRewritten: prev ? files.filter((f) => prev.has(f.fileNumber)).length : 0,
      knobs,
      knobsOk,
      digestBefore: dBefore,
      digestAfter: after,
      digestEqual,
      sstBytesBefore: cp.sstBytes,
      sstBytesAfter: files.reduce((a, f) => a + f.fileSize, 0),
      blobFileBytesBefore: cp.blobFileBytes,
      blobFileBytesAfter: cf.totals.blobFileBytes,
    };
    if (!placementOk)
      report.problems.push(
        `${cp.displayName}: not all in L${cp.targetLevel}: ${misplaced.map((l) => `L${l.level} ${plural(l.files.length, "file")}`).join(", ")}${cf.totals.unflushedWrites ? `, ${plural(cf.totals.unflushedWrites, "write")} only in the WAL` : ""}`,
      );
    for (const k of knobs)
      if (k.differing > 0 && k.knob !== "block-size")
        report.problems.push(
          `${cp.displayName}: ${k.knob}: ${k.differing} of ${plural(k.files, "file")} carry ${k.carried}, intended ${k.intended}`,
        );
    if (!digestEqual)
      report.problems.push(
        dBefore
          ? `${cp.displayName}: logical digest changed: ${plural(dBefore.keys, "key")} ${dBefore.sha256.slice(0, 16)} → ${plural(after.keys, "key")} ${after.sha256.slice(0, 16)}`
          : `${cp.displayName}: no digest from before the run to compare`,
      );
    report.totals.sstBytesBefore += v.sstBytesBefore;
    report.totals.sstBytesAfter += v.sstBytesAfter;
    report.totals.blobFileBytesBefore += v.blobFileBytesBefore;
    report.totals.blobFileBytesAfter += v.blobFileBytesAfter;
    report.columnFamilies.push(v);
  }
  report.ok = report.problems.length === 0;
  return report;
}
