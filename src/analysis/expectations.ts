/**
 * What the recognised client itself configures (shared/reference/clients.md, from the clients' source),
 * so that a store written by some other program (a state generator, a migration tool) can be told apart
 * from the client's own: Besu sets `bloomfilter:10` on every column family; Nethermind uses Ribbon on the
 * flat database, no filter on `code`, Bloom elsewhere; legacy geth LevelDB uses bloom(10).
 */
import type { ColumnFamilyModel, InstanceModel } from "../datadir/model.js";

export interface ClientFilterExpectation {
  /** Filter kind the client configures for this CF; undefined when unknown. */
  kind?: "bloom" | "ribbon" | "none";
  bitsPerKey?: number;
  /** Who says so, readable: "Besu configures bloomfilter:10 on every column family". */
  source: string;
}

export function clientFilterExpectation(
  instance: InstanceModel,
  cf: ColumnFamilyModel,
): ClientFilterExpectation | undefined {
  if (instance.client === "besu")
    return { kind: "bloom", bitsPerKey: 10, source: "Besu configures bloomfilter:10 on every column family" };
  if (instance.client === "nethermind") {
    const db = instance.clientDetail?.database;
    if (db === "code")
      return { kind: "none", source: "Nethermind configures no filter for its code database" };
    if (db === "flat")
      return {
        kind: "ribbon",
        bitsPerKey: 10,
        source: "Nethermind configures ribbonfilter:10 on its flat database",
      };
    void cf;
    return { kind: "bloom", bitsPerKey: 10, source: "Nethermind configures a Bloom filter on its databases" };
  }
  if (instance.client === "geth" && instance.engine === "leveldb")
    return { kind: "bloom", bitsPerKey: 10, source: "geth opens LevelDB with a bloom(10) filter" };
  if (instance.client === "geth" && instance.engine === "pebble")
    return {
      kind: "bloom",
      bitsPerKey: 10,
      source: "geth opens Pebble with bloom.FilterPolicy(10) on every level",
    };
  return undefined;
}
