/**
 * The logical content a sample writer puts into each store: every put, per instance and column
 * family, tagged with the history phase it belongs to. The ground-truth file is computed from this
 * record, not from the generator's intentions, so it says exactly what was written.
 */

/** History phases: the bulk load (compacted to the bottom), the pre-run (flushed above it), the last writes (WAL only). */
export type Phase = "bulk" | "pre-run" | "wal";

export interface CfRecord {
  /** live value per key (hex) after all phases */
  live: Map<string, Buffer>;
  /** puts per phase */
  puts: Record<Phase, number>;
  /** distinct keys written per phase */
  keysByPhase: Record<Phase, Set<string>>;
}

export class LogicalStore {
  /** instance (directory relative to the sample root, "." for a single store) → CF label → record */
  readonly instances = new Map<string, Map<string, CfRecord>>();

  cf(instance: string, cf: string): CfRecord {
    let inst = this.instances.get(instance);
    if (!inst) this.instances.set(instance, (inst = new Map()));
    let rec = inst.get(cf);
    if (!rec) {
      rec = {
        live: new Map(),
        puts: { bulk: 0, "pre-run": 0, wal: 0 },
        keysByPhase: { bulk: new Set(), "pre-run": new Set(), wal: new Set() },
      };
      inst.set(cf, rec);
    }
    return rec;
  }

  put(instance: string, cf: string, key: Buffer, value: Buffer, phase: Phase): void {
    const rec = this.cf(instance, cf);
    const hex = key.toString("hex");
    rec.live.set(hex, value);
    rec.puts[phase]++;
    rec.keysByPhase[phase].add(hex);
  }
}

/** Hex label of a one-byte Besu column family name ("06"). */
export function byteCfLabel(b: number): string {
  return b.toString(16).padStart(2, "0");
}
