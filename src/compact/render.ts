/**
 * Text rendering of a compaction plan and of its outcome (run + verification). Names of column families
 * and paths come from files: they are escaped before they reach a terminal.
 */
import { placementBottomName, placementDefinition } from "../datadir/placement.js";
import { escapeText, formatBytes } from "../util/bytes.js";
import type { CompactPlan } from "./plan.js";
import type { KnobRow } from "./intended.js";
import type { RunResult } from "./run.js";
import type { VerifyReport } from "./verify.js";
import { DEFAULT_WIDTH, fitLine, pct, plural } from "../util/words.js";
import { wrappedTable } from "../util/text_table.js";

const e = escapeText;

function knobTable(rows: KnobRow[], afterRun: boolean, width: number): string[] {
  const cells = rows.map((r) => {
    const mark =
      r.differing === 0
        ? ""
        : r.knob === "block-size"
          ? `  (estimate differs in ${plural(r.differing, "file")})`
          : `  ≠ ${r.differing} of ${plural(r.files, "file")}`;
    const how =
      r.how && r.knob !== "block-size" ? ` [${r.how}]` : r.knob === "block-size" ? " [estimate]" : "";
    return [r.knob, r.carried, `${r.intended}${how}${mark}`];
  });
  return wrappedTable([["knob", afterRun ? "files carry" : "files carry now", "intended"], ...cells], width);
}

/** The plan in `width` columns (default 80): prose wraps with a hanging indent, the knob table's cells under their column. */
export function renderPlanText(plan: CompactPlan, width = DEFAULT_WIDTH): string {
  const L: string[] = [];
  L.push(`compact plan for ${e(plan.store)} (engine: RocksDB ${plan.rocksdbVersion})`);
  L.push(
    `options from: ${plan.optionsSource.kind === "store" ? "the store's own" : "reference"} ${e(plan.optionsSource.file)}`,
  );
  if (plan.untouched.length) L.push(`left as they are: ${plan.untouched.map(e).join(", ")}`);
  if (plan.untouchedFlushed.length)
    L.push(
      `  but opening the store read-write flushes their WAL writes into L0: ${plan.untouchedFlushed.map(e).join(", ")}`,
    );
  for (const cf of plan.columnFamilies) {
    L.push("");
    const state = cf.empty
      ? "  (empty: nothing to do)"
      : cf.nothingToDo
        ? cf.compact
          ? `  (already all in L${cf.targetLevel} with the intended knobs; rewritten: --force)`
          : `  (nothing to do: all in L${cf.targetLevel} with the intended knobs)`
        : "";
    L.push(`${e(cf.displayName)} → L${cf.targetLevel}${state}`);
    const layout = cf.levelsBefore
      .filter((l) => l.files > 0)
      .map((l) => `L${l.level} ${plural(l.files, "file")} ${formatBytes(l.bytes)}`)
      .join(" · ");
    L.push(
      `  levels now: ${layout || "no tables"}${cf.unflushedWrites ? ` · WAL: ${cf.unflushedWrites} unflushed writes (${formatBytes(cf.unflushedBytes)})` : ""}`,
    );
    const p = cf.placement;
    if (p)
      L.push(
        `  placement now: ${p.filesAboveBottom} of ${p.filesAboveBottom + p.filesInBottom} tables, ${formatBytes(p.bytesAboveBottom)} (${pct(p.byteShareAboveBottom)}) above ${placementBottomName(p)}`,
        `    (${placementDefinition(p)}); every table is rewritten into L${cf.targetLevel}`,
      );
    if (cf.blobFiles)
      L.push(
        `  blob files: ${cf.blobFiles} (${formatBytes(cf.blobFileBytes)}), referenced as they are (not rewritten)`,
      );
    if (cf.compact)
      L.push(
        `  rewrite: ${formatBytes(cf.sstBytes)} of tables${cf.unflushedBytes ? ` + ${formatBytes(cf.unflushedBytes)} from the WAL` : ""}; estimated bytes read ${formatBytes(cf.estimatedReadBytes)}${cf.unflushedBytes ? ` (WAL writes at the files' compression ${cf.compressionRatio.toFixed(2)})` : ""}`,
      );
    if (cf.intended.filter.why) L.push(`  note: ${cf.intended.filter.why}`);
    // the knob table of a CF left alone would only repeat what inspect shows
    if (cf.compact) L.push(...knobTable(cf.knobs, false, width));
    for (const n of cf.consequences) L.push(`  by design: ${n}`);
    for (const n of cf.normalisations) L.push(`  normalised: ${n}`);
    if (cf.optionString) L.push(`  engine options on top of the store's OPTIONS: ${e(cf.optionString)}`);
  }
  L.push("");
  const t = plan.totals;
  L.push(
    `total: ${plural(t.files, "table")}, ${formatBytes(t.sstBytes)}${t.unflushedBytes ? ` + ${formatBytes(t.unflushedBytes)} unflushed` : ""}; estimated bytes read ${formatBytes(t.estimatedReadBytes)}`,
  );
  if (plan.totals.estimatedReadBytes > 0)
    L.push(
      `estimated duration: ~${Math.max(1, Math.round(plan.estimate.seconds))} s at ${formatBytes(plan.estimate.rateBytesPerSecond)}/s (estimate: ${plan.estimate.basis})`,
    );
  L.push(
    `disk: ${formatBytes(plan.disk.free)} free, ${formatBytes(plan.disk.needed)} needed (${plan.disk.basis})`,
  );
  for (const a of plan.accepted) L.push(`accepted option change: ${e(a)}`);
  if (plan.refusals.length) {
    L.push(`REFUSED (nothing will be written):`);
    for (const r of plan.refusals) L.push(`  [${r.code}] ${e(r.message)}`);
  } else if (plan.nothingToDo && !plan.forced) {
    L.push(
      `nothing to do: every column family sits in its bottom level with the intended knobs (--force rewrites them anyway)`,
    );
  } else {
    // the plan reads table metadata only: say where data-block damage would be met
    L.push("pre-flight: --yes first reads and checksums every block of every live table and");
    L.push("  blob file; damage is refused there, before the engine opens the store");
    L.push(`ready: run again with --yes to compact`);
  }
  return L.flatMap((l) => fitLine(l, width)).join("\n") + "\n";
}

/** The run and its verification in `width` columns (default 80). */
export function renderOutcomeText(run: RunResult, verify: VerifyReport, width = DEFAULT_WIDTH): string {
  const L: string[] = [];
  L.push(
    `run: ${run.status} in ${(run.elapsedMs / 1000).toFixed(1)} s; compactions wrote ${formatBytes(run.compactWriteBytes)} (read ${formatBytes(run.compactReadBytes)}) at ${formatBytes(Math.round(run.writeRateBytesPerSecond))}/s; flushes after the open wrote ${formatBytes(run.flushWriteBytes)} (the WAL recovery flush at open is not counted)`,
  );
  for (const n of run.engineNotes) L.push(`engine note: ${e(n)}`);
  for (const c of run.columnFamilies)
    if (c.status !== "done")
      L.push(
        `  ${e(c.displayName)}: ${c.status === "skipped" ? "left as it was (nothing to do)" : c.status}`,
      );
  L.push("");
  L.push(`verification: ${verify.ok ? "OK" : "PROBLEMS"}`);
  for (const v of verify.columnFamilies) {
    const layout = v.levelsAfter
      .filter((l) => l.files > 0)
      .map((l) => `L${l.level} ${plural(l.files, "file")}`)
      .join(" · ");
    L.push(
      `${e(v.displayName)}: ${v.placementOk ? "all in" : "NOT all in"} L${v.targetLevel} (${layout || "no tables"}); ` +
        `tables ${formatBytes(v.sstBytesBefore)} → ${formatBytes(v.sstBytesAfter)}` +
        (v.blobFileBytesBefore || v.blobFileBytesAfter
          ? `, blob files ${formatBytes(v.blobFileBytesBefore)} → ${formatBytes(v.blobFileBytesAfter)}`
          : "") +
        (v.filesNotRewritten ? `; ${plural(v.filesNotRewritten, "table")} not rewritten` : ""),
    );
    L.push(
      `  digest: ${v.digestEqual ? "equal" : "DIFFERENT"} — ${v.digestAfter.keys} live keys, sha256 ${v.digestAfter.sha256.slice(0, 16)}…` +
        (v.digestBefore && !v.digestEqual
          ? ` (before: ${plural(v.digestBefore.keys, "key")} ${v.digestBefore.sha256.slice(0, 16)}…)`
          : "") +
        (v.digestAfter.blobValues ? `, ${v.digestAfter.blobValues} values from blob files` : ""),
    );
    L.push(...knobTable(v.knobs, true, width));
  }
  const t = verify.totals;
  L.push("");
  L.push(
    `sizes: tables ${formatBytes(t.sstBytesBefore)} → ${formatBytes(t.sstBytesAfter)}, blob files ${formatBytes(t.blobFileBytesBefore)} → ${formatBytes(t.blobFileBytesAfter)}`,
  );
  for (const p of verify.problems) L.push(`problem: ${e(p)}`);
  return L.flatMap((l) => fitLine(l, width)).join("\n") + "\n";
}
