/**
 * l0-pileup: L0 holds at least as many tables as make the engine slow its writes
 * (level0_slowdown_writes_trigger): every lookup consults each L0 table whose key range holds the key,
 * so read amplification is the layout's `maxFilesPerLookup` (src/analysis/layout.ts), not the store's
 * data. A benchmark run on such an arm measures the pile-up. An error for the arm, whatever the layout's
 * severity; the finding names the `lsmscope probe --keys absent` command that measures the tables a
 * lookup consults (stated beside the layout's figure) and the `lsmscope compact` one that removes it.
 */
import { cfLayout } from "../../analysis/layout.js";
import { layoutFlagMessage } from "../../report/layout_messages.js";
import type { CheckFinding, Rule } from "../types.js";
import { armLabel, arms, at, cfsWithFiles, finding } from "../util.js";
import { compactCommand, shellQuote } from "./placement_overlay.js";

export const rule: Rule = {
  id: "l0-pileup",
  describe: "L0 tables at or past the write-slowdown trigger: read amplification from the layout",
  run(ctx) {
    const out: CheckFinding[] = [];
    for (const a of arms(ctx))
      for (const r of cfsWithFiles(a)) {
        const L = cfLayout(r.instance, r.cf);
        const flag = L.flags.find((f) => f.id === "l0-pileup");
        if (!flag) continue;
        const cmd = compactCommand(a, r.instance, r.cf);
        const probe = `lsmscope probe ${shellQuote(r.instance.path)} --cf ${shellQuote(r.cf.name)} --keys absent --count 1000 --path reader`;
        out.push(
          finding(
            "l0-pileup",
            "error",
            a.arm,
            at(r),
            `${armLabel(a.arm)}: ${layoutFlagMessage(flag, L)}; measure: ${probe}` +
              (cmd ? `; remove: ${cmd}` : ""),
            { ...flag.evidence, probeCommand: probe, compactCommand: cmd ?? null },
          ),
        );
      }
    return out;
  },
};
