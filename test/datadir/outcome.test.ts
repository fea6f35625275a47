/**
 * One located line per finding and one reason for a store that cannot be read, the same in every
 * command (datadir/outcome.ts): diff, check, probe/sizes (noReadableStoreError) and compact's pre-flight
 * say the same words for a MANIFEST of garbage, each with its own exit code; and stores are named as
 * datadir/names.ts names them (the datadir itself by its directory's name) in summary and diff text.
 */
import { afterAll, describe, expect, it } from "vitest";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { REPO, summaryRow, trackedTempDirs } from "../helpers/index.js";
import {
  findingLine,
  findingText,
  incompleteLine,
  noReadableStoreError,
  unreadableStoreReason,
} from "../../src/datadir/outcome.js";
import { inspectDatadir } from "../../src/datadir/inspect.js";
import type { Finding, InstanceModel } from "../../src/datadir/model.js";
import { diffDatadirs, type DiffResult } from "../../src/diff/index.js";
import { renderDiffText } from "../../src/diff/render.js";
import { CheckCannotRunError, loadArm } from "../../src/check/arms.js";
import { preflight } from "../../src/compact/preflight.js";
import { damageRefusals, type CompactPlan } from "../../src/compact/plan.js";
import { buildSummary, type Summary } from "../../src/summary/index.js";
import { renderSummaryText } from "../../src/summary/render.js";
import { renderProbeStart } from "../../src/probe/render.js";
import type { ProbeTarget } from "../../src/probe/types.js";
import { LsmscopeError } from "../../src/util/errors.js";

const { tempDir, cleanupTemps } = trackedTempDirs("lsmscope-outcome-");
afterAll(cleanupTemps);

const finding = (over: Partial<Finding>): Finding => ({
  severity: "error",
  code: "manifest-corrupt",
  file: "/d/store/MANIFEST-000005",
  message: "bad record",
  ...over,
});

describe("findingLine", () => {
  it("names the file and the offset when known, and escapes control characters and backslashes", () => {
    const f = finding({ offset: 123, message: "key \x1b[2Jboom\\ here" });
    expect(findingLine(f)).toBe("/d/store/MANIFEST-000005 @ offset 123: key \\x1b[2Jboom\\\\ here");
    expect(findingLine(finding({}))).toBe("/d/store/MANIFEST-000005: bad record");
    // raw for --json (JSON escapes for itself)
    expect(findingText(f)).toBe("/d/store/MANIFEST-000005 @ offset 123: key \x1b[2Jboom\\ here");
  });

  it("under a base: the file named under it, left out when it is the base itself", () => {
    expect(findingLine(finding({ offset: 7 }), "/d/store")).toBe("MANIFEST-000005 @ offset 7: bad record");
    expect(findingLine(finding({ file: "/d/store" }), "/d/store")).toBe("bad record");
    expect(findingLine(finding({ file: "/d/store", offset: 0 }), "/d/store")).toBe("offset 0: bad record");
    expect(findingLine(finding({ file: "/elsewhere/x" }), "/d/store")).toBe("/elsewhere/x: bad record");
  });

  it("incompleteLine never prints a control character from a datadir", () => {
    const line = incompleteLine([findingText(finding({ file: "/d/\x07bell", offset: 1 }))]);
    expect(line).toBe(
      "picture incomplete: 1 error met while reading (first: /d/\\x07bell @ offset 1: bad record); exit 2",
    );
    expect(line).not.toMatch(/[\x00-\x1f]/);
  });

  it("a store's reason: its first error, escaped; the file left out when it is the store's directory", () => {
    const inst = {
      path: "/d/store",
      findings: [
        finding({ severity: "info", message: "torn tail" }),
        finding({ file: "/d/store", message: "permission\ndenied" }),
      ],
    };
    expect(unreadableStoreReason(inst)).toBe("store cannot be read: permission\\x0adenied");
  });
});

describe("a MANIFEST of garbage: one reason in every command", () => {
  const store = () => {
    const d = join(tempDir(), "mydb");
    mkdirSync(d);
    writeFileSync(join(d, "CURRENT"), "MANIFEST-000005\n");
    writeFileSync(join(d, "MANIFEST-000005"), Buffer.alloc(4096, 0x5a));
    writeFileSync(join(d, "IDENTITY"), "x\n");
    return d;
  };
  const reason = (d: string) =>
    `store cannot be read: ${join(d, "MANIFEST-000005")} @ offset 0: MANIFEST holds no readable VersionEdit`;

  it("diff (exit 2), check (exit 3), probe/sizes (exit 2) and compact's pre-flight say the same", async () => {
    const d = store();
    const diff = await diffDatadirs(d, d).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(diff).toBeInstanceOf(LsmscopeError);
    expect((diff as LsmscopeError).message).toBe(reason(d));
    expect((diff as LsmscopeError).exitCode).toBe(2);
    expect((diff as LsmscopeError).file).toBe(d);

    const check = await loadArm(d, "subject").then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(check).toBeInstanceOf(CheckCannotRunError);
    expect((check as CheckCannotRunError).message).toBe(`DIR: ${reason(d)}`);
    expect((check as CheckCannotRunError).exitCode).toBe(3);

    const model = await inspectDatadir(d, { tableDetails: "none" });
    const probe = noReadableStoreError(model);
    expect(probe.message).toBe(reason(d));
    expect(probe.exitCode).toBe(2);

    const pre = await preflight({ store: d } as CompactPlan);
    expect(pre.refusals).toEqual([{ code: "store-damaged", message: reason(d) }]);
  });

  it("compact's plan names a damaged file under the store, escaped", () => {
    const inst = {
      path: "/d/store",
      findings: [finding({ offset: 9, message: "bad\x1bblock" })],
    } as unknown as InstanceModel;
    expect(damageRefusals(inst)).toEqual([
      { code: "store-damaged", message: "MANIFEST-000005 @ offset 9: bad\\x1bblock" },
    ]);
  });
});

describe("stores named as inspect names them", () => {
  it("summary text: the datadir itself by its directory's name, never '.'", () => {
    const s: Summary = {
      root: "/data/mydb",
      rows: [summaryRow(".", "default"), summaryRow("sub", "default")],
      total: { ...summaryRow("Total", ""), kind: "total" },
    };
    const lines = renderSummaryText(s).split("\n");
    expect(lines).toContain("mydb");
    expect(lines).toContain("sub");
    expect(lines).not.toContain(".");
  });

  it("summary text of a store read from disk names it by its directory; the CSV keeps '.'", async () => {
    const d = join(REPO, "test", "fixtures", "pebble", "stores", "find-db");
    const s = buildSummary(await inspectDatadir(d, { tableDetails: "none" }));
    expect(s.rows.length).toBeGreaterThan(0);
    for (const r of s.rows) expect(r.instance).toBe(".");
    expect(renderSummaryText(s).split("\n")[0]).toBe("find-db");
  });

  it("diff text: an instance at the datadir's root by its directory's name, not './default'", () => {
    const cf = (instance: string): DiffResult["columnFamilies"][number] => ({
      instance,
      cf: "64656661756c74",
      displayName: "default",
      inA: true,
      inB: true,
      same: 1,
      changed: 0,
      onlyInA: 0,
      onlyInB: 0,
      differences: [],
      comparedBy: "merge",
    });
    const r: DiffResult = {
      a: "/data/mydb",
      b: "/data/other",
      identical: true,
      columnFamilies: [cf("."), cf("nethermind_db/mainnet/code")],
      totals: { same: 2, changed: 0, onlyInA: 0, onlyInB: 0 },
      incomplete: [],
      elapsedMs: 0,
    };
    r.columnFamilies[1]!.displayName = "code";
    const text = renderDiffText(r);
    expect(text).toContain("mydb/default");
    expect(text).not.toContain("./default");
    // a column family named as its instance is not named twice (names.ts cfLabel)
    expect(text).toContain("nethermind_db/mainnet/code ");
    expect(text).not.toContain("code/code");
  });

  it("probe: the engine's filter policies under the model's display names where matched", () => {
    const target = {
      instanceDir: "/d/besu/database",
      cfDisplayName: "cf06 ACCOUNT_INFO_STATE",
      options: { source: "OPTIONS-000007", filterPolicy: "bloomfilter:10:false" },
    } as unknown as ProbeTarget;
    const text = renderProbeStart(target, [
      { cf: "06", displayName: "cf06 ACCOUNT_INFO_STATE", filterPolicy: "bloomfilter:10:false" },
      { cf: "default", filterPolicy: "nullptr" },
    ]);
    // the list on lines of its own (probe/render.ts listLines), each name kept whole
    expect(text).toContain(
      "engine filter policy per column family (from OPTIONS):\n  cf06 ACCOUNT_INFO_STATE=bloomfilter:10:false, default=nullptr",
    );
  });
});
