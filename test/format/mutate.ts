/**
 * Run every reader operation over a (possibly damaged) table and classify the outcome: fine, or one
 * LsmscopeError (CorruptionError) naming the file. Anything else is a reader bug.
 */
import { LsmscopeError } from "../../src/util/errors.js";
import { openTable } from "../../src/format/index.js";

export type Outcome = { ok: true } | { ok: false; error: LsmscopeError };

export function exercise(file: string, verifyChecksums: boolean, probeKeys: Buffer[] = []): Outcome {
  try {
    const t = openTable(file, { verifyChecksums });
    try {
      void t.filter;
      t.scan();
      for (const k of probeKeys) {
        t.get(k);
        t.mayContain(k);
      }
      t.verifyAllBlocks();
      t.rangeDeletions();
    } finally {
      t.close();
    }
    return { ok: true };
  } catch (err) {
    if (err instanceof LsmscopeError) return { ok: false, error: err };
    throw err;
  }
}
