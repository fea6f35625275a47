/**
 * datadir-finding: problems the datadir model met while reading (damaged MANIFEST records, missing
 * SSTs, torn blob files, ...) passed through with their own code, so a harness sees them in the same
 * list. Informational reading notes stay out.
 */
import { relative } from "node:path";
import type { CheckFinding, Rule } from "../types.js";
import { armLabel, arms, finding } from "../util.js";

export const rule: Rule = {
  id: "datadir-finding",
  describe: "damaged or missing files met while reading the datadir",
  run(ctx) {
    const out: CheckFinding[] = [];
    for (const a of arms(ctx))
      for (const f of a.model.findings) {
        if (f.severity === "info") continue;
        const inst = a.model.instances.find((i) => f.file === i.path || f.file.startsWith(i.path + "/"));
        out.push(
          finding(
            "datadir-finding",
            f.severity,
            a.arm,
            { instance: inst?.relPath ?? "", cf: "" },
            `${armLabel(a.arm)}: ${relative(a.model.root, f.file) || "."}${f.offset !== undefined ? ` @ ${f.offset}` : ""}: ${f.message}`,
            { code: f.code, file: f.file, offset: f.offset ?? null },
          ),
        );
      }
    return out;
  },
};
