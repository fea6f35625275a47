/**
 * A plain text dump of the datadir model (the full human report lives in src/report/). Every byte
 * string that came from a file is escaped or hex.
 */
import { escapeText, formatBytes } from "../util/bytes.js";
import type { DatadirModel } from "./model.js";
import { plural } from "../util/words.js";
import { instanceLabel } from "./names.js";

export function renderDatadirText(m: DatadirModel): string {
  const out: string[] = [];
  const e = escapeText;
  out.push(
    `datadir ${e(m.root)}  client: ${m.client.kind}${m.client.besu?.format ? ` (${m.client.besu.format})` : ""}`,
  );
  for (const inst of m.instances) {
    out.push("");
    out.push(
      `instance ${e(instanceLabel(inst))}  engine: ${inst.engine}  client: ${inst.client}` +
        (inst.clientDetail?.database ? `  database: ${e(inst.clientDetail.database)}` : "") +
        (inst.clientDetail?.network ? `  network: ${e(inst.clientDetail.network)}` : ""),
    );
    if (!inst.readable) {
      out.push("  not readable");
      continue;
    }
    const man = inst.manifest!;
    out.push(
      `  ${man.file}: ${man.edits} edits, next file ${man.nextFileNumber}, last sequence ${man.lastSequence}, log number ${man.logNumber}`,
    );
    if (inst.options) {
      const v = inst.options.rocksdbVersion ? ` (RocksDB ${inst.options.rocksdbVersion})` : "";
      out.push(`  ${inst.options.file}${v}`);
    }
    for (const cf of inst.columnFamilies) {
      const t = cf.totals;
      out.push(
        `  cf ${cf.id} ${e(cf.displayName)}: ${plural(t.files, "file")}, ${formatBytes(t.bytes)}, log number ${cf.logNumber}` +
          (t.blobFiles
            ? `, ${plural(t.blobFiles, "blob file")} ${formatBytes(t.blobFileBytes)} (garbage records ${formatBytes(t.blobGarbageRecordBytes)})`
            : "") +
          (t.unflushedWrites ? `, ${t.unflushedWrites} unflushed writes in WAL` : ""),
      );
      const o = cf.options;
      if (o) {
        const tb = o.table;
        out.push(
          `    options: compression ${o.compression ?? "?"}` +
            (tb
              ? `, filter ${tb.filterPolicy.raw}, block ${tb.blockSize ?? "?"}, format ${tb.formatVersion ?? "?"}, index ${tb.indexType ?? "?"}`
              : "") +
            (o.optimizeFiltersForHits ? ", optimize_filters_for_hits" : "") +
            (o.blob.enableBlobFiles ? `, blob files (min ${o.blob.minBlobSize ?? 0})` : ""),
        );
      }
      for (const lv of cf.levels) {
        if (lv.files.length === 0) continue;
        out.push(`    L${lv.level}: ${plural(lv.files.length, "file")}, ${formatBytes(lv.bytes)}`);
      }
    }
    for (const w of inst.wal) {
      const seq = w.firstSeq !== undefined ? `, seq ${w.firstSeq}..${w.lastSeq}` : "";
      out.push(
        `  wal ${w.file}: ${plural(w.records, "record")}${seq}; ${w.livenessUnknown ? "liveness unknown" : w.live ? "live" : "not live"}; ${e(w.summary)}`,
      );
    }
  }
  if (m.findings.length) {
    out.push("");
    out.push(`findings (${m.findings.length}):`);
    for (const f of m.findings) {
      const where = f.offset !== undefined ? `${f.file} @ ${f.offset}` : f.file;
      out.push(`  ${f.severity.padEnd(5)} ${f.code}: ${e(where)}: ${e(f.message)}`);
    }
  }
  out.push("");
  out.push(m.complete ? "picture complete" : "picture INCOMPLETE (see error findings)");
  return out.join("\n") + "\n";
}
