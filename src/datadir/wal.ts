/**
 * WAL files (<number>.log): a log file (log_reader.ts) whose records are WriteBatches
 * (write_batch.ts). This module counts what a WAL holds; whether those writes are still unflushed is
 * decided against the MANIFEST's per-column-family log numbers (walState below):
 *
 *   a CF's log number L means: every write of this CF in WALs numbered < L is in an SST already.
 *   So WAL n holds unflushed writes for CF c iff n >= L(c); a WAL is live (needed for recovery) iff
 *   n >= min over CFs of L(c) (LevelDB: n >= log_number or n == prev_log_number).
 */
import { statSync } from "node:fs";
import { scanLogFile, type LogIssue } from "./log_reader.js";
import { decodeWriteBatch, emptyOps, addOps, type BatchCfStats, type BatchWrite } from "./write_batch.js";
import { WriteKeeper, type KeptWrites } from "./wal_kept.js";
import type { HeadWrites } from "./head_keys.js";
import type { Finding, WalOpCounts } from "./model.js";
import { plural } from "../util/words.js";

export interface WalScan {
  path: string;
  logNumber: number;
  size: number;
  records: number;
  bytes: number;
  firstSeq?: number;
  lastSeq?: number;
  ops: WalOpCounts;
  perCf: Map<number, BatchCfStats>;
  recyclable: boolean;
  tail?: LogIssue;
  compressionType?: number;
  findings: Finding[];
  /** The writes `keep` asked for (undefined without it, or when a batch failed past its header). */
  kept?: KeptWrites;
}

/** A keeper of the writes `opts.keep` asks for, from the file as it is before the scan. */
function keeperFor(path: string, opts: { pebble?: boolean; keep?: HeadWrites }) {
  if (opts.keep === undefined) return undefined;
  try {
    const st = statSync(path);
    return new WriteKeeper(opts.keep, opts.pebble === true, st.size, st.mtimeMs);
  } catch {
    return undefined; // the scan itself reports what is wrong with the file
  }
}

/**
 * `pebble`: a Pebble WAL (its batches in Pebble's record format). `keep`: keep the writes of those
 * column families whose keys pass (and their range deletions) for a replay of this WAL asking for the
 * same keys (wal_kept.ts).
 */
export function scanWal(
  path: string,
  logNumber: number,
  opts: { pebble?: boolean; keep?: HeadWrites } = {},
): WalScan {
  const out: WalScan = {
    path,
    logNumber,
    size: 0,
    records: 0,
    bytes: 0,
    ops: emptyOps(),
    perCf: new Map(),
    recyclable: false,
    findings: [],
  };
  const keeper = keeperFor(path, opts);
  const onWrite = keeper && ((w: BatchWrite) => keeper.add(w));
  const res = scanLogFile(
    path,
    (rec) => {
      out.records++;
      out.bytes += rec.data.length;
      const b = decodeWriteBatch(rec.data, opts, out.perCf, onWrite);
      if (b.error) {
        keeper?.failed(b.error.at);
        out.findings.push({
          severity: "warn",
          code: "wal-batch-corrupt",
          file: path,
          offset: rec.offset,
          message: `WriteBatch at this record: ${b.error.message} (byte ${b.error.at} of the batch)`,
        });
      } else if (b.writes !== b.count) {
        out.findings.push({
          severity: "warn",
          code: "wal-batch-count",
          file: path,
          offset: rec.offset,
          message: `WriteBatch header says ${plural(b.count, "write")}, ${b.writes} found`,
        });
      }
      if (b.count > 0 || b.writes > 0) {
        const last = b.sequence + Math.max(b.count, b.writes) - 1;
        if (out.firstSeq === undefined || b.sequence < out.firstSeq) out.firstSeq = b.sequence;
        if (out.lastSeq === undefined || last > out.lastSeq) out.lastSeq = last;
      }
    },
    { logNumber, pebble: opts.pebble },
  );
  // the batches' tallies went to their column families' (decodeWriteBatch): the WAL's are their sum
  for (const s of out.perCf.values()) addOps(out.ops, s.ops);
  out.kept = keeper?.result();
  out.size = res.fileSize;
  out.recyclable = res.recyclable;
  out.compressionType = res.compressionType;
  for (const issue of res.issues) {
    if (issue.kind === "torn-tail" || issue.kind === "stale-recycled" || issue.kind === "zero-tail") {
      out.tail = issue;
      out.findings.push({
        severity: "info",
        code: `wal-${issue.kind}`,
        file: path,
        offset: issue.offset,
        message: `${issue.message} (${issue.bytes} bytes; normal at the end of a WAL)`,
      });
    } else if (issue.kind === "compressed") {
      out.tail = issue;
      out.findings.push({
        severity: "warn",
        code: "wal-compressed",
        file: path,
        offset: issue.offset,
        message: issue.message,
      });
    } else {
      out.findings.push({
        severity: "error",
        code: "wal-corrupt",
        file: path,
        offset: issue.offset,
        message: `${issue.message} (${issue.bytes} bytes skipped)`,
      });
    }
  }
  return out;
}
