/**
 * format-mix: mixed format versions, checksums or compressions in one CF (files
 * written by different programs or option sets at different times). A compression mix that the
 * configured per-level / bottommost compression explains is only informational.
 */
import type { Tally } from "../../analysis/knobs.js";
import type { CheckFinding, Rule } from "../types.js";
import { armLabel, arms, at, cfsWithFiles, finding } from "../util.js";
import { plural } from "../../util/words.js";

const KNOBS = ["formatVersion", "checksum", "compression"] as const;
const NAMES: Record<(typeof KNOBS)[number], string> = {
  formatVersion: "format version",
  checksum: "checksum",
  compression: "compression",
};

const describe = (ts: Tally[]) => ts.map((t) => `${t.key} (${plural(t.files, "file")})`).join(", ");

export const rule: Rule = {
  id: "format-mix",
  describe: "mixed format versions, checksums or compressions in one CF",
  run(ctx) {
    const out: CheckFinding[] = [];
    for (const a of arms(ctx)) {
      for (const r of cfsWithFiles(a)) {
        const k = ctx.knobs(r);
        const all = k.carried.all;
        const mixed = KNOBS.filter((knob) => all[knob].length > 1);
        if (mixed.length === 0) continue;
        const c = k.configured;
        const configured = new Set(
          [...(c?.compressionPerLevel ?? [c?.compression]), c?.bottommostCompression].filter(
            (x): x is string => x !== undefined,
          ),
        );
        // a mix of compressions the options ask for per level is not a mix of writers
        const explained =
          mixed.length === 1 &&
          mixed[0] === "compression" &&
          configured.size > 1 &&
          all.compression.every((t) => configured.has(t.key));
        const evidence: Record<string, unknown> = {};
        for (const knob of mixed)
          evidence[knob] = all[knob].map((t) => ({ value: t.key, files: t.files, bytes: t.bytes }));
        out.push(
          finding(
            "format-mix",
            explained ? "info" : "warn",
            a.arm,
            at(r),
            `${armLabel(a.arm)}: ` +
              mixed.map((knob) => `${NAMES[knob]}: ${describe(all[knob])}`).join("; ") +
              (explained ? " (as configured per level)" : ""),
            evidence,
          ),
        );
      }
    }
    return out;
  },
};
