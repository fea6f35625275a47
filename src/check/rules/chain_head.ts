/**
 * chain-head (with --against): the two arms point at different chain heads (src/identity/), so they do
 * not hold the same state and a benchmark between them compares more than their layout. Error when both
 * heads were read and differ; info when one arm's head could not be read.
 */
import { readIdentity, type DatadirIdentity } from "../../identity/index.js";
import type { CheckFinding, Rule } from "../types.js";
import { finding } from "../util.js";

const head = (id: DatadirIdentity) =>
  id.chainHead ? `#${id.chainHead.number} ${id.chainHead.hash}` : `unread (${id.note ?? "?"})`;

export const rule: Rule = {
  id: "chain-head",
  describe: "the arms point at different chain heads",
  run(ctx) {
    if (!ctx.reference) return [];
    const a = (ctx.subject.model.identity ??= readIdentity(ctx.subject.model));
    const b = (ctx.reference.model.identity ??= readIdentity(ctx.reference.model));
    const out: CheckFinding[] = [];
    const where = { instance: "", cf: "" };
    const evidence = { subject: a, reference: b };
    if (a.chainHead && b.chainHead) {
      if (a.chainHead.hash !== b.chainHead.hash || a.stateRoot !== b.stateRoot)
        out.push(
          finding(
            "chain-head",
            "error",
            "both",
            where,
            `the arms are at different chain heads: DIR ${head(a)}, REF_DIR ${head(b)}; they do not hold the same state`,
            evidence,
          ),
        );
    } else if (a.chainHead || b.chainHead)
      out.push(
        finding(
          "chain-head",
          "info",
          "both",
          where,
          `only one arm's chain head was read: DIR ${head(a)}, REF_DIR ${head(b)}`,
          evidence,
        ),
      );
    return out;
  },
};
