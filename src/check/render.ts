/**
 * What `check` prints: a short table on a terminal, one summary line otherwise (harness logs).
 * Every text that came from a file (CF names, paths) goes through escapeText.
 */
import { escapeText, formatBytes } from "../util/bytes.js";
import type { CheckFinding, CheckReport } from "./types.js";
import { compactCommandFor } from "./rules/placement_overlay.js";
import { int, pct, plural, wrap } from "../util/words.js";
import { placementBottomName } from "../datadir/placement.js";
export { wrap } from "../util/words.js";

const SEV = { error: "ERROR", warn: "WARN", info: "info" } as const;
const ARM = { subject: "DIR", reference: "REF", both: "both" } as const;

/** One line: counts, the rules that fired, the exit code. */
export function summaryLine(report: CheckReport, exitCode: number): string {
  const rules = new Map<string, number>();
  for (const f of report.findings) if (f.severity !== "info") rules.set(f.rule, (rules.get(f.rule) ?? 0) + 1);
  const list = [...rules].map(([r, n]) => (n > 1 ? `${r}×${n}` : r)).join(", ");
  const c = report.counts;
  return (
    `lsmscope check ${escapeText(report.subject.root)}` +
    (report.reference ? ` vs ${escapeText(report.reference.root)}` : "") +
    `: ${plural(c.error, "error")}, ${plural(c.warn, "warning")}, ${c.info} info` +
    (list ? ` (${list})` : "") +
    ` exit ${exitCode}`
  );
}

type Ev = Record<string, unknown>;
const n = (v: unknown) => (typeof v === "number" ? v : 0);

/** The few numbers that matter per rule, for the table (the full message is in --json). */
export function shortText(f: CheckFinding): string {
  const e = f.evidence as Ev;
  switch (f.rule) {
    case "placement-overlay": {
      const est = e.shadowedEntriesEstimate as { value: number; low: number; high: number; method: string };
      const range = est.method === "exact" ? "" : ` (${int(est.low)}–${int(est.high)})`;
      return (
        `${formatBytes(n(e.bytesAboveBottom))} above ${placementBottomName({ oldestL0AsBottom: e.oldestL0AsBottom === true, bottomLevel: n(e.bottomLevel) })} (${pct(n(e.byteShareAboveBottom))}), ` +
        `${est.method === "exact" ? "" : "~"}${int(est.value)}${range} of ${e.entriesAboveBottomEstimate ? "~" : ""}${plural(n(e.entriesAboveBottom), "entry", "entries")} shadow older versions`
      );
    }
    case "wal-unflushed":
      return `${int(n(e.unflushedWrites))} unflushed writes in ${formatBytes(n(e.walBytes))} of WAL`;
    case "wal-inert":
      return `${formatBytes(n(e.walBytes))} of WAL, nothing unflushed`;
    default:
      return f.message.replace(/^(DIR|REF_DIR): /, "");
  }
}

/** One `lsmscope compact` per store, naming every column family whose overlay is worth removing. */
export function compactCommands(report: CheckReport): string[] {
  const byStore = new Map<string, string[]>();
  for (const f of report.findings) {
    const ev = f.evidence as Ev;
    if (f.rule !== "placement-overlay" || f.severity === "info") continue;
    if (typeof ev.compactStore !== "string" || typeof ev.compactCf !== "string") continue;
    const cfs = byStore.get(ev.compactStore) ?? [];
    if (!cfs.includes(ev.compactCf)) cfs.push(ev.compactCf);
    byStore.set(ev.compactStore, cfs);
  }
  return [...byStore].map(([dir, cfs]) => compactCommandFor(dir, cfs));
}

/** Narrower than this for the FINDING column, findings print as blocks: a heading line, the text under it. */
const MIN_FINDING_COLUMN = 36;

/**
 * The findings in `width` columns: a table whose FINDING text wraps under its own column, or, when that
 * column would be narrower than MIN_FINDING_COLUMN, one block per finding (SEV RULE ARM WHERE, then the
 * text indented below).
 */
export function renderTable(report: CheckReport, exitCode: number, width = 100): string {
  const instances = new Set(report.findings.map((f) => f.instance).filter((i) => i));
  const rows = report.findings.map((f) => ({
    sev: SEV[f.severity],
    rule: f.rule,
    arm: ARM[f.arm],
    where: escapeText(
      (instances.size > 1 ? [f.instance, f.cf] : [f.cf || f.instance])
        .filter((x) => x && x !== ".")
        .join(" ") || "-",
    ),
    msg: escapeText(shortText(f)),
  }));
  const w = {
    sev: Math.max(3, ...rows.map((r) => r.sev.length)),
    rule: Math.max(4, ...rows.map((r) => r.rule.length)),
    arm: 4,
    where: Math.min(40, Math.max(5, ...rows.map((r) => r.where.length))),
  };
  const cut = (s: string, n: number) => (s.length > n ? s.slice(0, Math.max(0, n - 1)) + "…" : s.padEnd(n));
  const line = (a: string, b: string, c: string, d: string, e: string) =>
    `${cut(a, w.sev)}  ${cut(b, w.rule)}  ${cut(c, w.arm)}  ${cut(d, w.where)}  ${e}`;
  const out: string[] = [];
  const msgCol = w.sev + w.rule + w.arm + w.where + 8;
  if (width - msgCol >= MIN_FINDING_COLUMN) {
    out.push(line("SEV", "RULE", "ARM", "WHERE", "FINDING"));
    for (const r of rows) {
      const [head, ...more] = wrap(r.msg, width - msgCol);
      out.push(line(r.sev, r.rule, r.arm, r.where, head!).trimEnd());
      for (const m of more) out.push(" ".repeat(msgCol) + m);
    }
  } else {
    for (const r of rows) {
      out.push(...wrap(`${r.sev} ${r.rule} ${r.arm} ${r.where}`, width, "", "    "));
      out.push(...wrap(r.msg, width, "    "));
    }
  }
  if (rows.length === 0) out.push("(no findings)");
  const commands = compactCommands(report);
  if (commands.length) {
    out.push("", `To merge the overlays into the bottom level:`);
    for (const c of commands) out.push(...wrap(escapeText(c), width - 2, "  ", "    "));
  }
  out.push("");
  out.push(...wrap(summaryLine(report, exitCode), width, "", "  "));
  return out.join("\n") + "\n";
}
