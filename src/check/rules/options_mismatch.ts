/**
 * options-mismatch (two arms): knob by knob, per column family matched by name, the differences between
 * the arms both as configured (OPTIONS) and as carried by the files (src/analysis/knobs.ts compareKnobs).
 * Any read-path knob that differs makes the arms measure different things: an error.
 *
 * One adjustment to the carried filter rows: a small file's filter is rounded up to a cache line, so its
 * measured bits/key says nothing about the policy. Filters compare by kind, and by bits/key only where
 * both sides have files large enough to measure it (filterBitsPerKeyLarge).
 */
import {
  compareKnobs,
  type CarriedLevel,
  type CfKnobs,
  type KnobComparisonRow,
} from "../../analysis/knobs.js";
import { LARGE_FILTER_BITS_NAME } from "../../analysis/carried.js";
import { pairCfs } from "../match.js";
import type { CheckFinding, CheckSeverity, Rule } from "../types.js";
import { finding } from "../util.js";
import { plural } from "../../util/words.js";

/** Knobs whose difference does not change what a read costs: warn, not error. */
const MINOR = new Set(["checksum", "blob-gc"]);

function levelOf(k: CfKnobs, level: number | undefined): CarriedLevel | undefined {
  return level === undefined ? k.carried.all : k.carried.levels.find((l) => l.level === level);
}

function filterRow(row: KnobComparisonRow, a: CfKnobs, b: CfKnobs): KnobComparisonRow {
  const la = levelOf(a, row.level);
  const lb = levelOf(b, row.level);
  if (!la || !lb) return row;
  const kinds = (l: CarriedLevel) =>
    l.filterKind
      .map((t) => t.key)
      .sort()
      .join(", ") || "-";
  const bits = (l: CarriedLevel) =>
    l.filterBitsPerKeyLarge === undefined ? undefined : Math.round(l.filterBitsPerKeyLarge);
  const ba = bits(la);
  const bb = bits(lb);
  const equal = kinds(la) === kinds(lb) && (ba === undefined || bb === undefined || ba === bb);
  const show = (l: CarriedLevel, n: number | undefined) =>
    kinds(l) + (n === undefined ? "" : ` ~${n} ${LARGE_FILTER_BITS_NAME}`);
  return { ...row, a: show(la, ba), b: show(lb, bb), equal };
}

/** Knob differences between two column families, with the filter adjustment above. */
export function knobDifferences(a: CfKnobs, b: CfKnobs): KnobComparisonRow[] {
  return compareKnobs(a, b)
    .rows.map((r) => (r.side === "carried" && r.knob === "filter" ? filterRow(r, a, b) : r))
    .filter((r) => !r.equal);
}

const where = (r: KnobComparisonRow) =>
  r.side === "configured" ? "OPTIONS" : r.level === undefined ? "files" : `files L${r.level}`;

export const rule: Rule = {
  id: "options-mismatch",
  describe: "knob-by-knob differences between the arms per CF (OPTIONS and files)",
  run(ctx) {
    if (!ctx.reference) return [];
    const out: CheckFinding[] = [];
    for (const p of pairCfs(ctx.subject.model, ctx.reference.model)) {
      const at = { instance: p.instance, cf: p.cf };
      if (!p.subject || !p.reference) {
        const only = (p.subject ?? p.reference)!;
        out.push(
          finding(
            "options-mismatch",
            only.cf.totals.files > 0 ? "error" : "warn",
            "both",
            at,
            `column family present in ${p.subject ? "DIR" : "REF_DIR"} only (${plural(only.cf.totals.files, "file")} there)`,
            {
              differences: [
                {
                  knob: "present",
                  side: "configured",
                  a: p.subject ? "yes" : "-",
                  b: p.reference ? "yes" : "-",
                  equal: false,
                },
              ],
              knobs: ["present"],
            },
          ),
        );
        continue;
      }
      const diffs = knobDifferences(ctx.knobs(p.subject), ctx.knobs(p.reference));
      if (diffs.length === 0) continue;
      const severity: CheckSeverity = diffs.some((d) => !MINOR.has(d.knob)) ? "error" : "warn";
      const text = diffs.map((d) => `${d.knob} ${d.a} vs ${d.b} (${where(d)})`).join("; ");
      out.push(
        finding("options-mismatch", severity, "both", at, `DIR vs REF_DIR: ${text}`, {
          differences: diffs.map((d) => ({
            knob: d.knob,
            side: d.side,
            level: d.level,
            subject: d.a,
            reference: d.b,
          })),
          knobs: [...new Set(diffs.map((d) => d.knob))],
        }),
      );
    }
    return out;
  },
};
