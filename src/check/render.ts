/**
 * What `check` prints: a short table on a terminal, one summary line otherwise (harness logs).
 * Every text that came from a file (CF names, paths) goes through escapeText.
 */
import { escapeText } from "../util/bytes.js";
import type { CheckReport } from "./types.js";

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
    `: ${c.error} error${c.error === 1 ? "" : "s"}, ${c.warn} warning${c.warn === 1 ? "" : "s"}, ${c.info} info` +
    (list ? ` (${list})` : "") +
    ` exit ${exitCode}`
  );
}

/** A table of the findings, each row cut to `width` columns. */
export function renderTable(report: CheckReport, exitCode: number, width = 100): string {
  const rows = report.findings.map((f) => ({
    sev: SEV[f.severity],
    rule: f.rule,
    arm: ARM[f.arm],
    where: escapeText([f.instance, f.cf].filter((x) => x && x !== ".").join(" ") || "-"),
    msg: escapeText(f.message),
  }));
  const w = {
    sev: Math.max(3, ...rows.map((r) => r.sev.length)),
    rule: Math.max(4, ...rows.map((r) => r.rule.length)),
    arm: 4,
    where: Math.min(34, Math.max(5, ...rows.map((r) => r.where.length))),
  };
  const cut = (s: string, n: number) => (s.length > n ? s.slice(0, Math.max(0, n - 1)) + "…" : s.padEnd(n));
  const line = (a: string, b: string, c: string, d: string, e: string) =>
    `${cut(a, w.sev)}  ${cut(b, w.rule)}  ${cut(c, w.arm)}  ${cut(d, w.where)}  ${e}`;
  const out: string[] = [];
  out.push(line("SEV", "RULE", "ARM", "WHERE", "FINDING"));
  const msgWidth = Math.max(20, width - (w.sev + w.rule + w.arm + w.where + 8));
  for (const r of rows) out.push(line(r.sev, r.rule, r.arm, r.where, cut(r.msg, msgWidth).trimEnd()));
  if (rows.length === 0) out.push("(no findings)");
  out.push("");
  out.push(summaryLine(report, exitCode));
  return out.join("\n") + "\n";
}
