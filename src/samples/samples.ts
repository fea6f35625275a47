/**
 * The sample registry: each sample's writer, wired to the world, the marker and the truth.
 */
import { requireEngine } from "../engine/index.js";
import { worldEvents } from "./events.js";
import { LogicalStore } from "./logical.js";
import { prepareSampleDir } from "./marker.js";
import { computeTruth, GENERATOR_VERSION, type SampleTruth } from "./truth.js";
import { buildWorld, type WorldParams } from "./world.js";
import { besuCfSpecs, writeBesu } from "./besu.js";
import { NETHERMIND_INSTANCES, writeNethermind } from "./nethermind.js";
import { GETH_INSTANCE, writeGeth } from "./geth.js";
import { gethKeyCategory } from "../eth/geth_schema.js";
import { prepareKeccak } from "../eth/keccak.js";
import { writeGethFreezer } from "./geth_freezer.js";
import { MODERN_CFS, MODERN_INSTANCE, writeModern } from "./modern.js";

export const SAMPLE_NAMES = [
  "geth-leveldb",
  "modern",
  "nethermind",
  "besu-snapshot",
  "besu-generated",
] as const;
export type SampleName = (typeof SAMPLE_NAMES)[number];
export const DEFAULT_SEED = "lsmscope-samples-1";
export const DEFAULT_ACCOUNTS = 4000;

export const DESCRIPTIONS: Record<SampleName, string> = {
  "besu-snapshot":
    "Besu Bonsai datadir after a benchmark pre-run: bulk state compacted to the bottom level, pre-run rewrites flushed above it, last writes only in the WAL; shared bytecodes; bloom 10 on every CF; blob files on 01 and 0a.",
  "besu-generated":
    "The same final Besu state written like a state generator: no filters on 06/07/08/09, everything in the bottom level, no WAL writes; every contract has its own bytecode.",
  nethermind:
    "Nethermind nethermind_db/mainnet with separate instances: code (block 4096, hash index, no filter), flat (Account/Storage/StateNodes/StorageNodes, ribbon 10, LZ4; Account uncompressed block 4096) and state (Snappy, two-level index, partitioned bloom, optimize_filters_for_hits).",
  "geth-leveldb":
    "Legacy geth LevelDB chaindata (classic-level, LevelDB 1.20): a/o/c snapshot and code prefixes, hash-keyed trie nodes, h/H/b/r/l chain data; last writes left in the LevelDB log.",
  modern:
    "A RocksDB 9.7 store (@nxtedition/rocksdb): format_version 6, XXH3 checksums, ZSTD with a trained dictionary; CFs accounts, code, storage.",
};

export async function generateSample(
  name: SampleName,
  dir: string,
  params: WorldParams,
): Promise<SampleTruth> {
  if (name.startsWith("besu") || name === "nethermind") requireEngine();
  // every account, slot and trie node of the world is hashed
  await prepareKeccak();
  prepareSampleDir(dir, {
    sample: name,
    seed: params.seed,
    accounts: params.accounts,
    version: GENERATOR_VERSION,
  });
  const world = buildWorld(params);
  const events = worldEvents(world);
  const log = new LogicalStore();
  switch (name) {
    case "besu-snapshot":
    case "besu-generated": {
      const variant = name === "besu-snapshot" ? "snapshot" : "generated";
      const w = writeBesu(dir, variant, world, events, log);
      return computeTruth({
        sample: name,
        description: DESCRIPTIONS[name],
        client: "besu",
        world,
        log,
        codeAt: ["database", "07"],
        accountsAt: ["database", "06"],
        cfNames: { database: Object.fromEntries(besuCfSpecs(variant).map((c) => [c.label, c.name])) },
        cfOptions: w.cfOptions,
        dbOptions: w.dbOptions,
        levels: w.levels,
        notes: [
          "Besu sets partition_filters=true with the default binary-search index; RocksDB ignores it and Debian's assertion-enabled 7.8.3 aborts on it, so the sample is written with partition_filters=false (identical files).",
          ...w.engineNotes,
        ],
      });
    }
    case "nethermind": {
      const w = writeNethermind(dir, world, events, log);
      return computeTruth({
        sample: name,
        description: DESCRIPTIONS[name],
        client: "nethermind",
        world,
        log,
        codeAt: ["nethermind_db/mainnet/code", "default"],
        accountsAt: ["nethermind_db/mainnet/flat", "Account"],
        cfNames: Object.fromEntries(
          Object.entries(NETHERMIND_INSTANCES).map(([inst, cfs]) => [
            inst,
            Object.fromEntries(cfs.map((c) => [c.label, c.name])),
          ]),
        ),
        cfOptions: w.cfOptions,
        dbOptions: w.dbOptions,
        levels: w.levels,
        notes: [
          "flat and code hold the final state only (no WAL writes); the state instance's later rounds (phase pre-run) are new hash-keyed nodes flushed above the bottom level.",
          "StateNodes/StorageNodes keys are a packed nibble path (8 bytes ‖ length), an approximation of Nethermind's layout; trie nodes are random bytes of realistic shape, not a consistent trie.",
          ...w.engineNotes,
        ],
      });
    }
    case "geth-leveldb": {
      await writeGeth(dir, world, events, log);
      const freezer = writeGethFreezer(dir, world);
      const truth = computeTruth({
        sample: name,
        description: DESCRIPTIONS[name],
        client: "geth",
        world,
        log,
        codeAt: [GETH_INSTANCE, "default"],
        accountsAt: [GETH_INSTANCE, "default"],
        accountPrefix: Buffer.from("a"),
        codePrefix: Buffer.from("c"),
        categorize: gethKeyCategory,
        cfNames: { [GETH_INSTANCE]: { default: Buffer.from("default") } },
        notes: [
          "LevelDB has no column families: the single keyspace is reported as CF 'default'; key categories by prefix are in keyCategories.",
          "Hash-scheme trie nodes are random node-shaped bytes keyed by their keccak, not a consistent trie.",
        ],
      });
      return { ...truth, freezers: [freezer] };
    }
    case "modern": {
      await writeModern(dir, world, events, log);
      return computeTruth({
        sample: name,
        description: DESCRIPTIONS[name],
        client: "none",
        world,
        log,
        codeAt: [MODERN_INSTANCE, "code"],
        accountsAt: [MODERN_INSTANCE, "accounts"],
        cfNames: { [MODERN_INSTANCE]: Object.fromEntries(MODERN_CFS.map((c) => [c, Buffer.from(c)])) },
        notes: [
          "Written by @nxtedition/rocksdb (RocksDB 9.7.4): format_version=6, checksum=kXXH3, compression=kZSTD with compression_opts max_dict_bytes=16384 and zstd_max_train_bytes=1638400, bloom 10. RocksDB 7.8.3 (ldb, sst_dump, the engine addon) cannot read format 6 files.",
        ],
      });
    }
    default:
      throw new Error(`sample ${name} not implemented yet`);
  }
}
