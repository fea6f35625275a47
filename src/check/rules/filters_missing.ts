/**
 * filters-missing: files of a column family that carry no filter (per level, share of bytes), and arms
 * where one side's files carry filters and the other's do not. Without a filter every lookup of an
 * absent key reads an index and a data block in every file it consults; a benchmark comparing such arms
 * measures the filters, not the client.
 */
import type { CfKnobs } from "../../analysis/knobs.js";
import { pairCfs } from "../match.js";
import type { CheckFinding, Rule } from "../types.js";
import { armLabel, arms, at, cfsWithFiles, finding, share } from "../util.js";
import { pctOf, plural } from "../../util/words.js";

export interface FilterCoverage {
  /** Files whose details were read (the others are counted in undescribedFiles). */
  files: number;
  bytes: number;
  unfilteredFiles: number;
  unfilteredBytes: number;
  undescribedFiles: number;
  perLevel: {
    level: number;
    files: number;
    bytes: number;
    unfilteredFiles: number;
    unfilteredBytes: number;
    unfilteredByteShare: number;
  }[];
}

/** Filter coverage per level from the carried knobs (filter kind "none" = no filter). */
export function filterCoverage(k: CfKnobs): FilterCoverage {
  const c: FilterCoverage = {
    files: 0,
    bytes: 0,
    unfilteredFiles: 0,
    unfilteredBytes: 0,
    undescribedFiles: 0,
    perLevel: [],
  };
  for (const l of k.carried.levels) {
    if (l.files === 0) continue;
    const none = l.filterKind.find((t) => t.key === "none");
    const readBytes = l.filterKind.reduce((s, t) => s + t.bytes, 0);
    const lv = {
      level: l.level,
      files: l.filesRead,
      bytes: readBytes,
      unfilteredFiles: none?.files ?? 0,
      unfilteredBytes: none?.bytes ?? 0,
      unfilteredByteShare: share(none?.bytes ?? 0, readBytes),
    };
    c.files += lv.files;
    c.bytes += lv.bytes;
    c.unfilteredFiles += lv.unfilteredFiles;
    c.unfilteredBytes += lv.unfilteredBytes;
    c.undescribedFiles += l.filesUnread;
    c.perLevel.push(lv);
  }
  return c;
}

export const rule: Rule = {
  id: "filters-missing",
  describe: "files without a filter (per level, share of bytes); filters in one arm only",
  run(ctx) {
    const out: CheckFinding[] = [];
    for (const a of arms(ctx)) {
      for (const r of cfsWithFiles(a)) {
        const k = ctx.knobs(r);
        const c = filterCoverage(k);
        if (c.unfilteredFiles === 0) continue;
        const configured = k.configured ? k.configured.filter.policy : undefined;
        const configuredKind = k.configured?.filter.kind;
        const ofh = k.configured?.optimizeFiltersForHits === true;
        const onlyBottom = c.perLevel.every(
          (l) => l.unfilteredFiles === 0 || l.level === k.carried.bottomLevel,
        );
        // optimize_filters_for_hits builds no filter for the bottommost level: as configured
        const explained = ofh && onlyBottom && configuredKind !== undefined && configuredKind !== "none";
        const levels = c.perLevel
          .filter((l) => l.unfilteredFiles > 0)
          .map((l) => `L${l.level} ${l.unfilteredFiles}/${l.files}`)
          .join(", ");
        out.push(
          finding(
            "filters-missing",
            explained ? "info" : "warn",
            a.arm,
            at(r),
            `${armLabel(a.arm)}: ${c.unfilteredFiles} of ${plural(c.files, "file")} carry no filter ` +
              `(${pctOf(c.unfilteredBytes, c.bytes)} of bytes; ${levels}); OPTIONS filter_policy: ${configured ?? "unknown"}` +
              (explained ? " (optimize_filters_for_hits leaves the bottom level unfiltered)" : ""),
            {
              files: c.files,
              bytes: c.bytes,
              unfilteredFiles: c.unfilteredFiles,
              unfilteredBytes: c.unfilteredBytes,
              unfilteredByteShare: share(c.unfilteredBytes, c.bytes),
              undescribedFiles: c.undescribedFiles,
              configuredFilter: configured ?? null,
              optimizeFiltersForHits: ofh,
              perLevel: c.perLevel.filter((l) => l.files > 0),
            },
          ),
        );
      }
    }
    if (ctx.reference) {
      for (const p of pairCfs(ctx.subject.model, ctx.reference.model)) {
        if (!p.subject || !p.reference) continue;
        const s = filterCoverage(ctx.knobs(p.subject));
        const r = filterCoverage(ctx.knobs(p.reference));
        if (s.files === 0 || r.files === 0) continue;
        const sFiltered = s.files - s.unfilteredFiles;
        const rFiltered = r.files - r.unfilteredFiles;
        if (sFiltered > 0 === rFiltered > 0) continue;
        const withArm = sFiltered > 0 ? "DIR" : "REF_DIR";
        const withoutArm = sFiltered > 0 ? "REF_DIR" : "DIR";
        const side = (c: FilterCoverage) => ({
          files: c.files,
          filteredFiles: c.files - c.unfilteredFiles,
          unfilteredFiles: c.unfilteredFiles,
          unfilteredByteShare: share(c.unfilteredBytes, c.bytes),
        });
        out.push(
          finding(
            "filters-missing",
            "error",
            "both",
            { instance: p.instance, cf: p.cf },
            `filters in ${withArm} only: none of ${withoutArm}'s ${plural(sFiltered > 0 ? r.files : s.files, "file")} carries one`,
            { subject: side(s), reference: side(r) },
          ),
        );
      }
    }
    return out;
  },
};
