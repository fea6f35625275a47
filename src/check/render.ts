/**
 * What `check` prints: a short table on a terminal, one summary line otherwise (harness logs).
 * Every text that came from a file (CF names, paths) goes through escapeText.
 */
import { escapeText, formatBytes } from "../util/bytes.js";
import type { CheckFinding, CheckReport } from "./types.js";
import { plural } from "../util/words.js";

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
      const range = est.method === "exact" ? "" : ` (${est.low}–${est.high})`;
      return (
        `${formatBytes(n(e.bytesAboveBottom))} above ${e.oldestL0AsBottom ? "oldest L0 file" : `L${n(e.bottomLevel)}`} (${(n(e.byteShareAboveBottom) * 100).toFixed(1)}%), ` +
        `${est.method === "exact" ? "" : "~"}${est.value}${range} of ${plural(n(e.entriesAboveBottom), "entry", "entries")} shadow older versions`
      );
    }
    case "wal-unflushed":
      return `${n(e.unflushedWrites)} unflushed writes in ${formatBytes(n(e.walBytes))} of WAL`;
    case "wal-inert":
      return `${formatBytes(n(e.walBytes))} of WAL, nothing unflushed`;
    default:
      return f.message.replace(/^(DIR|REF_DIR): /, "");
  }
}

/** A table of the findings, each row cut to `width` columns. */
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
  out.push(line("SEV", "RULE", "ARM", "WHERE", "FINDING"));
  const msgWidth = Math.max(20, width - (w.sev + w.rule + w.arm + w.where + 8));
  for (const r of rows) out.push(line(r.sev, r.rule, r.arm, r.where, cut(r.msg, msgWidth).trimEnd()));
  if (rows.length === 0) out.push("(no findings)");
  const commands = [
    ...new Set(
      report.findings
        .filter(
          (f) =>
            f.rule === "placement-overlay" &&
            f.severity !== "info" &&
            typeof f.evidence.compactCommand === "string",
        )
        .map((f) => f.evidence.compactCommand as string),
    ),
  ];
  if (commands.length) {
    out.push("", "To merge the overlays into the bottom level:");
    for (const c of commands) out.push(`  ${escapeText(c)}`);
  }
  out.push("");
  out.push(summaryLine(report, exitCode));
  return out.join("\n") + "\n";
}
