/**
 * placement-overlay: newest versions concentrated above the bottom level (a pre-run's rewrites flushed
 * on top of a compacted bulk load). Measured by ../overlay.ts; the finding names the `lsmscope compact`
 * command that merges the column family into its bottom level. Nothing is reported when every file of a
 * column family sits in one level (after a bottommost compaction).
 */
import { join } from "node:path";
import type { ColumnFamilyModel, InstanceModel } from "../../datadir/model.js";
import { placementBottomName } from "../../datadir/placement.js";
import { formatBytes } from "../../util/bytes.js";
import {
  DEFAULT_OVERLAY_LOOKUP_BUDGET,
  measureOverlay,
  overlayLookupDemand,
  sharedLookupBudget,
} from "../overlay.js";
import type { ArmModel, CheckFinding, Rule } from "../types.js";
import { armLabel, arms, at, cfsWithFiles, finding, share } from "../util.js";
import { int, pctOf, plural } from "../../util/words.js";

const SAFE = /^[A-Za-z0-9_/.:@%+=,-]+$/;
export const shellQuote = (s: string): string => (SAFE.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

/** Obsolete entries at or above this share of a CF's entries make the overlay a warning. */
export const OVERLAY_WARN_SHARE = 0.01;

/** The store directory `lsmscope compact` is pointed at for this instance (it handles RocksDB only). */
function compactDir(arm: ArmModel, instance: InstanceModel): string | undefined {
  if (instance.engine !== "rocksdb") return undefined;
  return arm.model.instances.length === 1 ? arm.dir : join(arm.dir, instance.relPath);
}

/** The one command that removes the overlays of these column families of one store. */
export function compactCommandFor(dir: string, cfNames: readonly string[]): string {
  return `lsmscope compact ${shellQuote(dir)}${cfNames.map((n) => ` --cf ${shellQuote(n)}`).join("")} --yes`;
}

/** The command that removes the overlay of one column family. */
export function compactCommand(
  arm: ArmModel,
  instance: InstanceModel,
  cf: ColumnFamilyModel,
): string | undefined {
  const dir = compactDir(arm, instance);
  return dir === undefined ? undefined : compactCommandFor(dir, [cf.name]);
}

export const rule: Rule = {
  id: "placement-overlay",
  describe: "bytes above the bottom level; the older versions they shadow (sampled)",
  run(ctx) {
    const out: CheckFinding[] = [];
    for (const a of arms(ctx)) {
      const cfs = cfsWithFiles(a);
      // one budget a store, its column families' shares of it
      const lookupBudget = sharedLookupBudget(
        ctx.options.overlayLookupBudget ?? DEFAULT_OVERLAY_LOOKUP_BUDGET,
        cfs.map((r) => overlayLookupDemand(r.cf, ctx.options.overlaySample)),
      );
      for (const r of cfs) {
        ctx.options.onProgress?.(
          `placement-overlay ${armLabel(a.arm)} ${r.instance.relPath} ${r.cf.displayName}`,
        );
        const m = measureOverlay(r.instance, r.cf, {
          sample: ctx.options.overlaySample,
          seed: ctx.options.seed,
          scanLimitBytes: ctx.options.overlayScanLimitBytes,
          lookupBudget,
          filters: a.filters,
          tables: a.tables,
        });
        if (!m || m.filesAboveBottom === 0) continue;
        const est = m.shadowedEntriesEstimate;
        const cmd = compactCommand(a, r.instance, r.cf);
        const entries = m.entriesAboveBottom + (m.entriesInBottom ?? 0);
        const shadowShare = entries > 0 ? est.value / entries : 0;
        // a file that could not be read leaves the count incomplete: an error, never "~0 shadowed"
        const incomplete = m.skippedFiles.length > 0;
        for (const s of m.skippedFiles)
          out.push(
            finding(
              "datadir-finding",
              "error",
              a.arm,
              at(r),
              `${armLabel(a.arm)}: ${s.file}: unreadable while measuring the overlay: ${s.reason}`,
              { code: "table-unreadable", file: s.file, reason: s.reason },
            ),
          );
        // unresolved lookups (unreadable files below) cannot rule the overlay out
        const warn =
          m.unresolved > 0 ||
          (m.sampledShadowing > 0 && (m.entriesInBottom === undefined || shadowShare >= OVERLAY_WARN_SHARE));
        const remedy = cmd
          ? `remove: ${cmd}`
          : `lsmscope compact rewrites RocksDB stores only; compact this ${r.instance.engine} store with its own tools`;
        const range = est.method === "exact" ? "" : ` (95%: ${int(est.low)}–${int(est.high)})`;
        const above = m.oldestL0AsBottom
          ? `L0 ${m.filesAboveBottom}`
          : m.perLevel
              .filter((l) => l.level < m.bottomLevel)
              .map((l) => `L${l.level} ${l.files}`)
              .join(", ");
        const bottomName = placementBottomName(m);
        // entries above: counted, or estimated from the drawn blocks (tables without entry counts)
        const ee = m.entriesAboveBottomEstimate;
        const entriesAbove = ee
          ? `~${plural(ee.value, "entry", "entries")} (95%: ${int(ee.low)}–${int(ee.high)})`
          : plural(m.entriesAboveBottom, "entry", "entries");
        out.push(
          finding(
            "placement-overlay",
            incomplete ? "error" : warn ? "warn" : "info",
            a.arm,
            at(r),
            (incomplete
              ? `incomplete: ${plural(m.skippedFiles.length, "unreadable file")} (${m.skippedFiles[0]!.file}), the counts below are lower bounds; `
              : "") +
              `${armLabel(a.arm)}: ${formatBytes(m.bytesAboveBottom)} in ${plural(m.filesAboveBottom, "file")} above ${bottomName} (${above}; ` +
              `${pctOf(m.bytesAboveBottom, m.bytesAboveBottom + m.bytesInBottom)} of bytes) over ${formatBytes(m.bytesInBottom)} in ${bottomName}; ` +
              (incomplete && m.sampled === 0
                ? `how many of ${entriesAbove} above shadow an older version is unknown`
                : `${est.method === "exact" ? "" : "~"}${int(est.value)} of ${entriesAbove} above shadow an older version${range}, ` +
                  `~${formatBytes(m.obsoleteBytesEstimate.value)} obsolete`) +
              (m.unresolved > 0
                ? ` (${m.unresolved} sampled lookups unresolved: ${plural(m.skippedFiles.length, "unreadable file")})`
                : "") +
              (m.droppedForLookupBudget > 0
                ? ` (${m.sampled} entries checked: ${m.lookups.tablesConsulted} table lookups, the budget)`
                : "") +
              `; ${remedy}`,
            {
              bottomLevel: m.bottomLevel,
              oldestL0AsBottom: m.oldestL0AsBottom,
              bytesAboveBottom: m.bytesAboveBottom,
              bytesInBottom: m.bytesInBottom,
              filesAboveBottom: m.filesAboveBottom,
              filesInBottom: m.filesInBottom,
              byteShareAboveBottom: m.byteShareAboveBottom,
              perLevel: m.perLevel,
              entriesAboveBottom: m.entriesAboveBottom,
              entriesAboveBottomEstimate: m.entriesAboveBottomEstimate ?? null,
              entriesInBottom: m.entriesInBottom ?? null,
              sampled: m.sampled,
              sampledShadowing: m.sampledShadowing,
              unresolved: m.unresolved,
              droppedForLookupBudget: m.droppedForLookupBudget,
              lookupBudget,
              exhaustive: m.exhaustive,
              sampling: m.sampling,
              shadowedEntriesEstimate: est,
              shadowedShareOfEntries: share(est.value, entries),
              obsoleteBytesEstimate: m.obsoleteBytesEstimate,
              lookups: m.lookups,
              skippedFiles: m.skippedFiles,
              compactCommand: cmd ?? null,
              // the parts, so one command can cover every column family of a store (render.ts)
              compactStore: compactDir(a, r.instance) ?? null,
              compactCf: cmd ? r.cf.name : null,
            },
          ),
        );
      }
    }
    return out;
  },
};
