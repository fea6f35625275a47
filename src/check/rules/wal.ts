/**
 * wal-unflushed / wal-inert: what the WAL holds. Unflushed writes are replayed into a memtable when the
 * store opens, so a benchmark starts with a memtable (and possibly a flush) the other arm does not
 * have. An inert WAL holds nothing that is not already in an SST: reported with its size.
 */
import type { CheckFinding, Rule } from "../types.js";
import { armLabel, arms, finding } from "../util.js";
import { formatBytes } from "../../util/bytes.js";
import { plural } from "../../util/words.js";

export const rule: Rule = {
  id: "wal-unflushed",
  describe: "WAL writes not yet in any SST, and their size",
  run(ctx) {
    const out: CheckFinding[] = [];
    for (const a of arms(ctx)) {
      for (const inst of a.model.instances) {
        if (inst.wal.length === 0) continue;
        const bytes = inst.wal.reduce((s, w) => s + w.size, 0);
        const unflushed = inst.wal.reduce((s, w) => s + w.unflushedWrites, 0);
        const perCf = new Map<string, number>();
        for (const w of inst.wal)
          for (const c of w.perColumnFamily)
            if (c.unflushed && c.writes > 0) {
              const name =
                inst.columnFamilies.find((cf) => cf.id === c.columnFamilyId)?.displayName ??
                c.name ??
                `cf ${c.columnFamilyId}`;
              perCf.set(name, (perCf.get(name) ?? 0) + c.writes);
            }
        const evidence = {
          walFiles: inst.wal.map((w) => ({
            file: w.file,
            size: w.size,
            records: w.records,
            unflushedWrites: w.unflushedWrites,
            live: w.live,
          })),
          walBytes: bytes,
          unflushedWrites: unflushed,
          columnFamilies: [...perCf].map(([cf, writes]) => ({ cf, writes })),
        };
        const where = { instance: inst.relPath, cf: "" };
        if (unflushed > 0) {
          out.push(
            finding(
              "wal-unflushed",
              "warn",
              a.arm,
              where,
              `${armLabel(a.arm)}: ${plural(inst.wal.length, "WAL file")}, ${formatBytes(bytes)}, hold ${unflushed} unflushed writes (` +
                [...perCf].map(([cf, n]) => `${cf}: ${n}`).join(", ") +
                `); they are replayed into a memtable at open`,
              evidence,
            ),
          );
        } else {
          out.push(
            finding(
              "wal-inert",
              "info",
              a.arm,
              where,
              `${armLabel(a.arm)}: ${plural(inst.wal.length, "WAL file")}, ${formatBytes(bytes)}, nothing unflushed`,
              evidence,
            ),
          );
        }
      }
    }
    return out;
  },
};
