/**
 * Ground truth for a sample, written beside it as `samples/<name>.truth.json`: what the generator put
 * into the store, counted from the recorded puts (LogicalStore), so tests can recount the store and
 * compare.
 */
import {
  classifyAccount,
  decodeAccount,
  isDelegationCode,
  rlpDecode,
  summariseCodeSizes,
  type CodeSizeSummary,
} from "../eth/index.js";
import type { LogicalStore, Phase } from "./logical.js";
import type { World } from "./world.js";

export interface CfTruth {
  /** the CF name as hex bytes (Besu: "06"; others: the UTF-8 name) */
  nameHex: string;
  /** live keys after every phase (what an iterator over the store, WAL recovered, sees) */
  keys: number;
  /** puts per phase */
  puts: Record<Phase, number>;
  /** distinct keys written by each phase */
  keysWritten: Record<Phase, number>;
  /** the column family option string the generator opened it with */
  options?: string;
  /** files per level L0..L6 right after writing, from rocksdb.num-files-at-levelN (RocksDB samples) */
  filesPerLevel?: number[];
}

export interface SampleTruth {
  sample: string;
  description: string;
  generator: { seed: string; accounts: number; version: number };
  client: "besu" | "nethermind" | "geth" | "none";
  accounts: { total: number; eoa: number; delegatedEoa: number; contract: number };
  code: {
    /** where the code lives: instance and CF label */
    location: string;
    /** entries in the code CF: distinct contract bytecodes + distinct delegation designators */
    entries: number;
    distinctContractBytecodes: number;
    distinctDelegationCodes: number;
    /** contract accounts per distinct contract bytecode */
    contractsPerDistinctBytecode: number;
    /** sizes of the distinct contract bytecodes stored (delegations excluded) */
    distinctSizes: CodeSizeSummary;
    /** sizes of the code of every contract account (one per contract, reuse counted) */
    perContractSizes: CodeSizeSummary;
  };
  /** What `identity` must read from the store: the head the client writer pointed at last. */
  identity: { client: string; chainHead?: { number: number; hash: string }; stateRoot?: string };
  storageSlots: number;
  history: {
    /** distinct accounts whose newest version was written by the pre-run (flushed above the bottom level) */
    preRunRewrittenAccounts: number;
    preRunRewrittenSlots: number;
    /** puts written after the last flush, only in the WAL (LevelDB: the .log) */
    unflushedWalWrites: number;
    unflushedWalWritesPerCf: Record<string, number>;
  };
  instances: Record<string, { dbOptions?: string; columnFamilies: Record<string, CfTruth> }>;
  /** geth: the freezer tables written beside the key/value store (src/samples/geth_freezer.ts) */
  freezers?: import("./geth_freezer.js").FreezerTruth[];
  /** LevelDB/geth: live keys per geth key category */
  keyCategories?: Record<string, number>;
  notes: string[];
}

export interface TruthInput {
  sample: string;
  description: string;
  client: SampleTruth["client"];
  world: World;
  log: LogicalStore;
  /** instance and CF label of the code store, e.g. ["database", "07"] */
  codeAt: [string, string];
  /** instance and CF label of the account store and whether its values are keyed such that the prefix must be stripped */
  accountsAt: [string, string];
  /** CF label → name bytes, per instance */
  cfNames: Record<string, Record<string, Buffer>>;
  cfOptions?: Record<string, Record<string, string>>;
  dbOptions?: Record<string, string>;
  levels?: Record<string, Record<string, number[]>>;
  notes?: string[];
  /** key prefix to select in the account/code CF (geth: "a" / "c") */
  accountPrefix?: Buffer;
  codePrefix?: Buffer;
  /** categorise keys of a single-keyspace store (geth prefixes) */
  categorize?: (key: Buffer) => string;
}

export const GENERATOR_VERSION = 1;

/**
 * The head the Besu and geth writers point at last (the world's last block, written in the WAL phase)
 * and its header's state root; the Nethermind writer stores no blocks.
 */
export function identityTruth(world: World, client: SampleTruth["client"]): SampleTruth["identity"] {
  if (client !== "besu" && client !== "geth") return { client: client === "none" ? "generic" : client };
  const head = world.blocks[world.blocks.length - 1]!;
  const fields = rlpDecode(head.header) as Uint8Array[];
  return {
    client,
    chainHead: { number: head.number, hash: "0x" + head.hash.toString("hex") },
    stateRoot: "0x" + Buffer.from(fields[3]!).toString("hex"),
  };
}

function countPrefixed(m: Map<string, Buffer>, prefix?: Buffer): [string, Buffer][] {
  const hexPrefix = prefix?.toString("hex") ?? "";
  const out: [string, Buffer][] = [];
  for (const [k, v] of m)
    if (k.startsWith(hexPrefix) && (prefix === undefined || k.length === hexPrefix.length + 64))
      out.push([k.slice(hexPrefix.length), v]);
  return out;
}

export function computeTruth(t: TruthInput): SampleTruth {
  const { world, log } = t;
  const codeRec = log.cf(t.codeAt[0], t.codeAt[1]);
  const codes = new Map(countPrefixed(codeRec.live, t.codePrefix));
  const accRec = log.cf(t.accountsAt[0], t.accountsAt[1]);
  const accounts = { total: 0, eoa: 0, delegatedEoa: 0, contract: 0 };
  const perContract: number[] = [];
  // classify from the stored records themselves, exactly as a reader of the store would
  for (const [, v] of countPrefixed(accRec.live, t.accountPrefix)) {
    const a = decodeAccount(v);
    const code = codes.get(a.codeHash.toString("hex"));
    const kind = classifyAccount(a, code);
    if (kind === undefined)
      throw new Error(`${t.sample}: account with code hash ${a.codeHash.toString("hex")} has no code entry`);
    accounts.total++;
    if (kind === "eoa") accounts.eoa++;
    else if (kind === "delegated-eoa") accounts.delegatedEoa++;
    else {
      accounts.contract++;
      perContract.push(code!.length);
    }
  }
  const contractCodes = [...codes.values()].filter((c) => !isDelegationCode(c));
  const distinctDelegation = codes.size - contractCodes.length;

  const instances: SampleTruth["instances"] = {};
  let walWrites = 0;
  const walPerCf: Record<string, number> = {};
  for (const [inst, cfs] of log.instances) {
    const out: Record<string, CfTruth> = {};
    for (const [label, rec] of cfs) {
      out[label] = {
        nameHex: (t.cfNames[inst]?.[label] ?? Buffer.from(label)).toString("hex"),
        keys: rec.live.size,
        puts: rec.puts,
        keysWritten: {
          bulk: rec.keysByPhase.bulk.size,
          "pre-run": rec.keysByPhase["pre-run"].size,
          wal: rec.keysByPhase.wal.size,
        },
        options: t.cfOptions?.[inst]?.[label],
        filesPerLevel: t.levels?.[inst]?.[label],
      };
      if (rec.puts.wal > 0) {
        walWrites += rec.puts.wal;
        walPerCf[inst === "." ? label : `${inst}/${label}`] = rec.puts.wal;
      }
    }
    // CFs that exist but were never written (e.g. "default")
    for (const [label, name] of Object.entries(t.cfNames[inst] ?? {}))
      if (!out[label])
        out[label] = {
          nameHex: name.toString("hex"),
          keys: 0,
          puts: { bulk: 0, "pre-run": 0, wal: 0 },
          keysWritten: { bulk: 0, "pre-run": 0, wal: 0 },
          options: t.cfOptions?.[inst]?.[label],
          filesPerLevel: t.levels?.[inst]?.[label],
        };
    instances[inst] = {
      dbOptions: t.dbOptions?.[inst],
      columnFamilies: Object.fromEntries(Object.entries(out).sort(([a], [b]) => (a < b ? -1 : 1))),
    };
  }
  // the pre-run counts only where accounts were actually rewritten in a separate phase
  const hasHistory = accRec.puts["pre-run"] > 0;

  return {
    sample: t.sample,
    description: t.description,
    generator: { seed: world.params.seed, accounts: world.params.accounts, version: GENERATOR_VERSION },
    client: t.client,
    identity: identityTruth(world, t.client),
    accounts,
    code: {
      location: `${t.codeAt[0]}/${t.codeAt[1]}`,
      entries: codes.size,
      distinctContractBytecodes: contractCodes.length,
      distinctDelegationCodes: distinctDelegation,
      contractsPerDistinctBytecode: Number(
        (accounts.contract / Math.max(1, contractCodes.length)).toFixed(3),
      ),
      distinctSizes: summariseCodeSizes(contractCodes),
      perContractSizes: summariseCodeSizes(perContract),
    },
    storageSlots: world.accounts.reduce((s, a) => s + a.slots.length, 0),
    history: {
      preRunRewrittenAccounts: hasHistory ? world.preRun.length : 0,
      preRunRewrittenSlots: hasHistory ? world.preRun.reduce((s, u) => s + u.slots.length, 0) : 0,
      unflushedWalWrites: walWrites,
      unflushedWalWritesPerCf: walPerCf,
    },
    instances,
    keyCategories: t.categorize ? categorizeAll(log, t.accountsAt, t.categorize) : undefined,
    notes: t.notes ?? [],
  };
}

function categorizeAll(
  log: LogicalStore,
  at: [string, string],
  categorize: (key: Buffer) => string,
): Record<string, number> {
  const out: Record<string, number> = {};
  for (const k of log.cf(at[0], at[1]).live.keys()) {
    const c = categorize(Buffer.from(k, "hex"));
    out[c] = (out[c] ?? 0) + 1;
  }
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => (a < b ? -1 : 1)));
}
