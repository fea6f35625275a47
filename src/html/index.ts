/**
 * `report A [B] --html FILE`: one self-contained HTML page (inline CSS and SVG, nothing fetched) with the
 * arms side by side: identity, per column family the level layout as bars, bytes above the bottom level,
 * filters and compression as the files carry them, key/value/code size histograms (sizes, sampled), the
 * geth freezer, and `check`'s findings. Pure rendering over what the library computed (gatherArm).
 */
import { interesting, type InspectReport, type CfReport } from "../report/build.js";
import type { SizesReport } from "../sizes/types.js";
import type { CheckReport } from "../check/types.js";
import { renderSizesSvg } from "../sizes/render.js";
import { escapeText, formatBytes } from "../util/bytes.js";
import { int, pct } from "../util/words.js";
import { perLookupCells } from "../probe/render.js";
import { instanceLabel } from "../datadir/names.js";
import type { Tally } from "../analysis/knobs.js";
import type { ProbeReport } from "../probe/types.js";

/** One probe definition's outcome on an arm: its report, or why it did not run. */
export interface HtmlProbe {
  name: string;
  report?: ProbeReport;
  note?: string;
}

export interface HtmlArm {
  label: string;
  inspect: InspectReport;
  sizes?: SizesReport;
  probes?: HtmlProbe[];
}

/** Text for HTML: every character that could start markup or end an attribute is escaped. */
export function escapeHtml(s: string): string {
  // escapeText first: control bytes from file names never reach the page raw
  return escapeText(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
const h = escapeHtml;

const CSS = `
body{font:14px/1.4 system-ui,sans-serif;margin:16px;color:#111;background:#fff}
h1{font-size:20px;margin:0 0 8px} h2{font-size:17px;margin:18px 0 6px} h3{font-size:15px;margin:12px 0 4px}
.arms{display:grid;grid-template-columns:repeat(var(--arms),minmax(0,1fr));gap:24px}
.arm{border:1px solid #ccc;border-radius:6px;padding:10px;min-width:0}
table{border-collapse:collapse;margin:4px 0} td,th{padding:2px 8px;text-align:left;vertical-align:top}
th{background:#f0f0f0} td.n{text-align:right;font-variant-numeric:tabular-nums}
code{font-size:12px;word-break:break-all} svg{max-width:100%;height:auto}
.error{color:#b00020;font-weight:600} .warn{color:#a05a00;font-weight:600} .info{color:#555}
.cf{border-top:1px solid #eee;margin-top:8px;padding-top:4px}
`;

const tallies = (ts: readonly Tally[]) =>
  ts.length === 0 ? "-" : ts.map((t) => `${h(t.key)} ×${t.files}`).join(", ");

/** One horizontal bar per non-empty level, widths by bytes against the largest level of the CF. */
function levelBars(c: CfReport): string {
  const levels = c.layout.levels.filter((l) => l.files > 0);
  const max = Math.max(1, ...levels.map((l) => l.bytes));
  const W = 360;
  const row = 18;
  const bottom = c.layout.placement?.bottomLevel;
  const bars = levels
    .map((l, i) => {
      const w = Math.max(1, Math.round((l.bytes / max) * (W - 150)));
      const y = i * row;
      const fill = l.level === bottom ? "#3b7dd8" : "#e07b00";
      return (
        `<text x="0" y="${y + 13}" font-size="12">L${l.level}</text>` +
        `<rect x="30" y="${y + 3}" width="${w}" height="12" fill="${fill}"/>` +
        `<text x="${36 + w}" y="${y + 13}" font-size="11">${h(formatBytes(l.bytes))} · ${l.files} files</text>`
      );
    })
    .join("");
  const H = Math.max(row, levels.length * row);
  return `<svg class="levels" xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" role="img" aria-label="levels">${bars}</svg>`;
}

function cfSection(c: CfReport): string {
  const all = c.knobs.carried.all;
  // bits/key: entry-weighted over every filtered table, as inspect's knob table and level rows show it
  const bits = all.filterBitsPerKey;
  return (
    `<div class="cf"><h3>${h(c.cf.displayName)}</h3>` +
    (c.layout.files > 0 ? levelBars(c) : "<p>no table files</p>") +
    `<table><tr><td>bytes above the bottom level</td><td class="n">${h(formatBytes(c.layout.placement?.bytesAboveBottom ?? 0))} (${h(pct(c.layout.placement?.byteShareAboveBottom ?? 0))})</td></tr>` +
    `<tr><td>filters</td><td>${tallies(all.filterKind)}${bits !== undefined ? ` · ${bits.toFixed(1)} bits/key` : ""}</td></tr>` +
    `<tr><td>compression</td><td>${tallies(all.compression)}</td></tr>` +
    `<tr><td>blob files</td><td class="n">${c.layout.blob.files} (${h(formatBytes(c.layout.blob.fileBytes))})</td></tr></table>` +
    (c.flags.length
      ? `<ul>${c.flags.map((f) => `<li class="${f.severity}">${h(f.id)}: ${h(f.message)}</li>`).join("")}</ul>`
      : "") +
    `</div>`
  );
}

function armSection(a: HtmlArm): string {
  const r = a.inspect;
  const id = r.identity;
  const t = r.totals;
  const out: string[] = [`<section class="arm"><h2>${h(a.label)}: <code>${h(r.root)}</code></h2>`];
  out.push(`<table class="identity"><tr><td>client</td><td>${h(r.client.kind)}</td></tr>`);
  if (id?.chainHead)
    out.push(
      `<tr><td>chain head</td><td>#${int(id.chainHead.number)} <code>${h(id.chainHead.hash)}</code></td></tr>` +
        `<tr><td>state root</td><td><code>${h(id.stateRoot ?? "-")}</code></td></tr>`,
    );
  else out.push(`<tr><td>chain head</td><td>- (${h(id?.note ?? "not read")})</td></tr>`);
  out.push(`<tr><td>written by</td><td>${h(id?.writtenBy ?? "-")}</td></tr>`);
  out.push(
    `<tr><td>stores</td><td>${t.instances} instances, ${t.cfs} column families, ${int(t.sstFiles)} SSTs ` +
      `${h(formatBytes(t.sstBytes))}, blob ${h(formatBytes(t.blobFileBytes))}, WAL ${h(formatBytes(t.walBytes))}</td></tr></table>`,
  );
  for (const inst of r.instances) {
    out.push(`<h3>${h(instanceLabel(inst.instance))} (${h(inst.instance.engine)})</h3>`);
    for (const c of inst.cfs) if (interesting(c)) out.push(cfSection(c));
  }
  for (const f of r.freezers ?? []) {
    out.push(`<h3>freezer ${h(f.relPath)} (${h(f.kind)}), ${h(formatBytes(f.bytes))}</h3><table>`);
    out.push("<tr><th>table</th><th>items</th><th>tail</th><th>data</th><th>items are</th></tr>");
    for (const t of f.tables)
      out.push(
        `<tr><td>${h(t.name)}</td><td class="n">${int(t.items)}</td><td class="n">${int(t.tail)}</td>` +
          `<td class="n">${h(formatBytes(t.bytes))}</td><td>${t.compressed ? "snappy" : "raw"}</td></tr>`,
      );
    out.push("</table>");
  }
  if (a.sizes) {
    out.push(`<h3>key, value and code sizes (${h(a.sizes.mode)})</h3>`);
    // the SVG document without its XML declaration, inline
    out.push(renderSizesSvg(a.sizes).replace(/^<\?xml[^>]*>\s*/, ""));
  }
  if (a.probes) out.push(probeSection(a.probes));
  out.push("</section>");
  return out.join("\n");
}

/** Probe points as a table: per lookup, what the reader (or the engine) read. */
function probeSection(probes: HtmlProbe[]): string {
  const rows: string[] = [];
  for (const p of probes) {
    if (!p.report) {
      rows.push(`<tr><td>${h(p.name)}</td><td colspan="8" class="info">${h(p.note ?? "not run")}</td></tr>`);
      continue;
    }
    for (const pt of p.report.points)
      rows.push(
        `<tr><td>${h(p.name)}<br><small>${h(p.report.cfDisplayName)}, ${h(pt.path)}${pt.cold ? ", cold" : ""}</small></td>` +
          `<td class="n">${int(pt.lookups)}</td><td class="n">${int(pt.found)}</td>` +
          // as probe's text prints them (src/probe/render.ts perLookupCells)
          perLookupCells(pt)
            .map((c) => `<td class="n">${c}</td>`)
            .join("") +
          `<td class="n">${h(formatBytes(Math.round(pt.bytesPerLookup)))}</td></tr>`,
      );
  }
  return (
    `<h3>probes (per lookup)</h3><table class="probes"><tr><th>probe</th><th>lookups</th><th>found</th>` +
    `<th>files</th><th>filter checks</th><th>filter rejections</th><th>index blocks</th><th>data blocks</th>` +
    `<th>bytes</th></tr>${rows.join("")}</table>`
  );
}

function checkSection(c: CheckReport): string {
  const rows = c.findings
    .map(
      (f) =>
        `<tr><td class="${f.severity}">${f.severity}</td><td>${h(f.rule)}</td><td>${h(f.arm)}</td>` +
        `<td>${h([f.instance, f.cf].filter(Boolean).join(" / "))}</td><td>${h(f.message)}</td></tr>`,
    )
    .join("\n");
  return (
    `<h2>check: ${c.counts.error} errors, ${c.counts.warn} warnings, ${c.counts.info} info</h2>` +
    (c.findings.length
      ? `<table class="findings"><tr><th>verdict</th><th>rule</th><th>arm</th><th>where</th><th>finding</th></tr>${rows}</table>`
      : "<p>no findings</p>")
  );
}

export function renderHtmlReport(arms: HtmlArm[], check?: CheckReport): string {
  const title = `lsmscope report — ${arms.map((a) => a.inspect.root).join(" vs ")}`;
  return (
    `<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>${h(title)}</title>` +
    `<meta name="viewport" content="width=device-width,initial-scale=1"><style>${CSS}</style></head>\n<body>` +
    `<h1>${h(title)}</h1>` +
    `<div class="arms" style="--arms:${arms.length}">${arms.map(armSection).join("\n")}</div>` +
    (check ? checkSection(check) : "") +
    `</body></html>\n`
  );
}
