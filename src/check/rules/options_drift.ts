/**
 * options-drift: the OPTIONS file disagrees with what the files carry (src/analysis/knobs.ts
 * disagreements, with their stable ids and severities). The last program that opened a store writes
 * OPTIONS, so a generator or a tool can leave options behind that no file was built with, and the next
 * files the store builds will differ from the ones it has.
 */
import { knobFindingMessage } from "../../report/knob_messages.js";
import type { CheckFinding, CheckSeverity, Rule } from "../types.js";
import { armLabel, arms, at, cfsWithFiles, finding } from "../util.js";

const rank: Record<CheckSeverity, number> = { info: 0, warn: 1, error: 2 };

export const rule: Rule = {
  id: "options-drift",
  describe: "OPTIONS disagrees with what the files carry",
  run(ctx) {
    const out: CheckFinding[] = [];
    for (const a of arms(ctx)) {
      for (const r of cfsWithFiles(a)) {
        const k = ctx.knobs(r);
        const ds = k.disagreements;
        if (ds.length === 0) continue;
        const severity = ds.reduce<CheckSeverity>(
          (s, d) => (rank[d.severity] > rank[s] ? d.severity : s),
          "info",
        );
        out.push(
          finding(
            "options-drift",
            severity,
            a.arm,
            at(r),
            `${armLabel(a.arm)}: ${ds.map(knobFindingMessage).join("; ")}`,
            {
              optionsFile: k.configured?.optionsFile ?? null,
              disagreements: ds.map((d) => ({
                id: d.id,
                knob: d.knob,
                severity: d.severity,
                level: d.level,
                configured: d.configured,
                carried: d.carried,
                files: d.files,
                bytes: d.bytes,
                totalFiles: d.totalFiles,
                totalBytes: d.totalBytes,
              })),
            },
          ),
        );
      }
    }
    return out;
  },
};
