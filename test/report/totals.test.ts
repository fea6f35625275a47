/** inspect's total line counts every flag and every finding the report prints. */
import { describe, expect, it } from "vitest";
import { readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { inspectDatadir } from "../../src/datadir/inspect.js";
import { buildInspectReport, shownFindings } from "../../src/report/build.js";
import { renderInspectReport } from "../../src/report/render.js";
import { copyInto, trackedTempDirs } from "../helpers/index.js";
import { samplesDir } from "./helpers.js";

const { tempDir, cleanupTemps } = trackedTempDirs("lsmscope-totals-");

describe("inspect's total line", () => {
  it("counts the error findings it prints (a table missing from a copy of besu-snapshot)", async () => {
    const dir = copyInto(join(samplesDir, "besu-snapshot"), tempDir());
    const store = join(dir, "database");
    rmSync(
      join(
        store,
        readdirSync(store).find((n) => n.endsWith(".sst"))!,
      ),
    );
    try {
      const report = buildInspectReport(await inspectDatadir(dir, { tableDetails: "cheap" }));
      const findings = report.instances.flatMap((i) => shownFindings(i.findings));
      const flags = report.instances.flatMap((i) => i.cfs.flatMap((c) => c.flags));
      const errors = [...findings, ...flags].filter((f) => f.severity === "error").length;
      expect(findings.some((f) => f.severity === "error")).toBe(true);
      expect(report.flagCounts.error).toBe(errors);
      expect(renderInspectReport(report)).toContain(`flags and findings: ${errors} error`);
    } finally {
      cleanupTemps();
    }
  });
});
