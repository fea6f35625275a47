/**
 * blob-files: blob files per column family and their garbage; which column families separate values
 * (and, with two arms, where only one arm does).
 */
import { pairCfs } from "../match.js";
import type { CheckFinding, Rule } from "../types.js";
import { allCfs } from "../match.js";
import { armLabel, arms, finding, share } from "../util.js";
import { formatBytes } from "../../util/bytes.js";
import { pctOf, plural } from "../../util/words.js";

/** Garbage above this share of blob bytes is worth a warning (reads still pay for it in space). */
const GARBAGE_WARN_SHARE = 0.2;

const separates = (cf: import("../../datadir/model.js").ColumnFamilyModel) =>
  cf.totals.blobFiles > 0 || cf.options?.blob.enableBlobFiles === true;

export const rule: Rule = {
  id: "blob-files",
  describe: "blob files and garbage per CF; which CFs separate values",
  run(ctx) {
    const out: CheckFinding[] = [];
    for (const a of arms(ctx)) {
      for (const r of allCfs(a.model)) {
        const cf = r.cf;
        if (!separates(cf)) continue;
        const garbageCount = cf.blobFiles.reduce((s, b) => s + b.garbageBlobCount, 0);
        const blobCount = cf.blobFiles.reduce((s, b) => s + b.totalBlobCount, 0);
        const t = cf.totals;
        const gShare = share(t.blobGarbageRecordBytes, t.blobRecordBytes);
        out.push(
          finding(
            "blob-files",
            gShare >= GARBAGE_WARN_SHARE ? "warn" : "info",
            a.arm,
            { instance: r.instance.relPath, cf: cf.displayName },
            `${armLabel(a.arm)}: ${plural(t.blobFiles, "blob file")} ${formatBytes(t.blobFileBytes)}, garbage ` +
              `${formatBytes(t.blobGarbageRecordBytes)} of ${formatBytes(t.blobRecordBytes)} record bytes (${pctOf(t.blobGarbageRecordBytes, t.blobRecordBytes)}); ` +
              `enable_blob_files=${cf.options?.blob.enableBlobFiles ?? "unknown"}, min_blob_size=${cf.options?.blob.minBlobSize ?? "unknown"}`,
            {
              blobFiles: t.blobFiles,
              blobFileBytes: t.blobFileBytes,
              blobRecordBytes: t.blobRecordBytes,
              blobCount,
              blobGarbageRecordBytes: t.blobGarbageRecordBytes,
              garbageBlobCount: garbageCount,
              garbageShare: gShare,
              enableBlobFiles: cf.options?.blob.enableBlobFiles ?? null,
              minBlobSize: cf.options?.blob.minBlobSize ?? null,
              missingFiles: cf.blobFiles.filter((b) => !b.present).map((b) => b.fileName),
            },
          ),
        );
      }
    }
    if (ctx.reference)
      for (const p of pairCfs(ctx.subject.model, ctx.reference.model)) {
        if (!p.subject || !p.reference) continue;
        const s = separates(p.subject.cf);
        const r = separates(p.reference.cf);
        if (s === r) continue;
        out.push(
          finding(
            "blob-files",
            "warn",
            "both",
            { instance: p.instance, cf: p.cf },
            `values separated into blob files in ${s ? "DIR" : "REF_DIR"} only`,
            {
              subject: {
                blobFiles: p.subject.cf.totals.blobFiles,
                enableBlobFiles: p.subject.cf.options?.blob.enableBlobFiles ?? null,
              },
              reference: {
                blobFiles: p.reference.cf.totals.blobFiles,
                enableBlobFiles: p.reference.cf.options?.blob.enableBlobFiles ?? null,
              },
            },
          ),
        );
      }
    return out;
  },
};
